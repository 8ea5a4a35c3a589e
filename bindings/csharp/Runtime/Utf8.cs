using System;
using System.Text;

namespace Robota
{
    /// <summary>
    /// UTF-8 marshalling by hand (netstandard2.0 has no UnmanagedType.LPUTF8Str, and Mono/IL2CPP
    /// marshal plain strings as ANSI/UTF-16). Strings in become NUL-terminated byte arrays, which
    /// the marshaller pins and passes as <c>const char *</c>; strings out are decoded in place.
    /// </summary>
    internal static class Utf8
    {
        private static readonly UTF8Encoding Utf8Enc = new UTF8Encoding(false, false);

        /// <summary>NUL-terminated UTF-8 bytes of <paramref name="s"/>; null stays null (C NULL).</summary>
        internal static byte[] Encode(string s)
        {
            if (s == null)
            {
                return null;
            }
            var bytes = new byte[Utf8Enc.GetByteCount(s) + 1];
            Utf8Enc.GetBytes(s, 0, s.Length, bytes, 0);
            return bytes;
        }

        // A thread's buffer for strings passed in for the duration of one native call.
        [ThreadStatic] private static byte[] scratch;

        private const int ScratchKeptBytes = 4096;

        /// <summary>
        /// As <see cref="Encode"/>, into this thread's scratch buffer when it is free and large
        /// enough (the bytes after the NUL are garbage); give it back with <see cref="Return"/>
        /// once the native call returned. A call made meanwhile on this thread (a callback inside
        /// the native call) finds the buffer taken and gets its own.
        /// </summary>
        internal static byte[] Rent(string s)
        {
            if (s == null)
            {
                return null;
            }
            var b = scratch;
            scratch = null;
            var n = Utf8Enc.GetByteCount(s) + 1;
            if (b == null || b.Length < n)
            {
                b = new byte[Math.Max(n, 256)];
            }
            b[Utf8Enc.GetBytes(s, 0, s.Length, b, 0)] = 0;
            return b;
        }

        /// <summary>Gives a <see cref="Rent"/> buffer back to this thread (a large one is dropped).</summary>
        internal static void Return(byte[] b)
        {
            if (b != null && b.Length <= ScratchKeptBytes)
            {
                scratch = b;
            }
        }

        /// <summary>True when the NUL-terminated string at <paramref name="ptr"/> is the ASCII string <paramref name="s"/>.</summary>
        internal static unsafe bool IsAscii(IntPtr ptr, string s)
        {
            if (ptr == IntPtr.Zero)
            {
                return false;
            }
            var p = (byte*)ptr;
            for (var i = 0; i < s.Length; i++)
            {
                if (s[i] >= 0x80 || p[i] != s[i])
                {
                    return false;
                }
            }
            return p[s.Length] == 0;
        }

        /// <summary>Decodes <paramref name="len"/> bytes at <paramref name="ptr"/> (null for NULL).</summary>
        internal static unsafe string Decode(IntPtr ptr, int len)
        {
            if (ptr == IntPtr.Zero)
            {
                return null;
            }
            return len == 0 ? string.Empty : Utf8Enc.GetString((byte*)ptr, len);
        }

        /// <summary>Decodes a NUL-terminated string (null for NULL).</summary>
        internal static unsafe string DecodeZ(IntPtr ptr)
        {
            if (ptr == IntPtr.Zero)
            {
                return null;
            }
            var p = (byte*)ptr;
            var len = 0;
            while (p[len] != 0)
            {
                len++;
            }
            return Decode(ptr, len);
        }

        /// <summary>Decodes a string the library handed over (char ** output) and frees it.</summary>
        internal static string TakeOwned(IntPtr ptr)
        {
            if (ptr == IntPtr.Zero)
            {
                return null;
            }
            try
            {
                return DecodeZ(ptr);
            }
            finally
            {
                NativeMethods.robota_string_free(ptr);
            }
        }

        /// <summary>A payload length (size_t) as an int, refusing sizes a .NET string cannot hold.</summary>
        internal static int Length(UIntPtr len)
        {
            var n = len.ToUInt64();
            if (n > int.MaxValue)
            {
                throw new ArgumentOutOfRangeException(nameof(len), "payload larger than 2 GiB");
            }
            return (int)n;
        }
    }
}
