using System;
using System.Text;
using System.Threading;

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

        /// <summary>Decodes <paramref name="len"/> bytes at <paramref name="ptr"/> (null for NULL).</summary>
        internal static unsafe string Decode(IntPtr ptr, int len)
        {
            if (ptr == IntPtr.Zero)
            {
                return null;
            }
            return len == 0 ? string.Empty : Utf8Enc.GetString((byte*)ptr, len);
        }

        private const int DeltaCacheMaxBytes = 32;

        // Recently decoded short ASCII deltas, indexed by a hash of their bytes: a model streams
        // the same tokens over and over, so most text deltas reuse a string instead of allocating
        // one. A slot holds an immutable string, replaced whole (no lock needed).
        private static readonly string[] DeltaCache = new string[1024];

        /// <summary>
        /// As <see cref="Decode"/> for a text or thinking delta: a short ASCII delta seen recently
        /// returns the same string instance again.
        /// </summary>
        internal static unsafe string DecodeDelta(IntPtr ptr, int len)
        {
            if (ptr == IntPtr.Zero || len == 0 || len > DeltaCacheMaxBytes)
            {
                return Decode(ptr, len);
            }
            var p = (byte*)ptr;
            var hash = 2166136261u; // FNV-1a
            var ascii = 0;
            for (var i = 0; i < len; i++)
            {
                ascii |= p[i];
                hash = (hash ^ p[i]) * 16777619u;
            }
            if (ascii >= 0x80)
            {
                return Decode(ptr, len);
            }
            var slot = (int)(hash & (uint)(DeltaCache.Length - 1));
            var cached = Volatile.Read(ref DeltaCache[slot]);
            if (cached != null && cached.Length == len)
            {
                var same = true;
                for (var i = 0; i < len && same; i++)
                {
                    same = cached[i] == p[i];
                }
                if (same)
                {
                    return cached;
                }
            }
            var s = Decode(ptr, len);
            Volatile.Write(ref DeltaCache[slot], s);
            return s;
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
