using System;

namespace Robota
{
    /// <summary>Library-wide functions: versions, status text, the log callback, callback errors.</summary>
    public static class RobotaLibrary
    {
        /// <summary>The ABI this binding was written against: <c>(major &lt;&lt; 16) | minor</c> (include/robota.h ROBOTA_ABI_VERSION).</summary>
        public const uint BindingAbiVersion = 0x00010002;

        private static readonly object Gate = new object();
        private static bool checkedAbi;

        /// <summary>The loaded library's ABI version, <c>(major &lt;&lt; 16) | minor</c>.</summary>
        public static uint AbiVersion => Load(() => NativeMethods.robota_abi_version());

        /// <summary>The loaded library's version (e.g. <c>"0.1.0"</c>).</summary>
        public static string Version => Load(() => Utf8.DecodeZ(NativeMethods.robota_version()));

        /// <summary>The library's English text for a status code.</summary>
        public static string StatusText(RobotaStatus status) => Load(() => Errors.StatusText((int)status));

        /// <summary>
        /// Called with every exception a user handler throws inside a library callback (event
        /// handlers; tool handler exceptions become the tool's failure instead). Exceptions never
        /// unwind into native code. Without a subscriber they are written to the Unity console
        /// (Unity) or standard error.
        /// </summary>
        public static event Action<Exception> CallbackException;

        /// <summary>
        /// Checks once that the native library loads and speaks a compatible ABI: the same major
        /// version and at least the binding's minor version.
        /// </summary>
        public static void EnsureCompatible()
        {
            lock (Gate)
            {
                if (checkedAbi)
                {
                    return;
                }
                var lib = AbiVersion;
                if (lib >> 16 != BindingAbiVersion >> 16 || (lib & 0xffff) < (BindingAbiVersion & 0xffff))
                {
                    throw new RobotaException(
                        RobotaStatus.VersionMismatch,
                        string.Format(
                            "native library ABI {0}.{1} is not compatible with this binding (needs {2}.{3} or a later {2}.x)",
                            lib >> 16, lib & 0xffff, BindingAbiVersion >> 16, BindingAbiVersion & 0xffff));
                }
                checkedAbi = true;
            }
        }

        /// <summary>
        /// Installs the process-wide log handler (null removes it): lines with
        /// <c>level &gt;= minLevel</c> arrive as (level, target, message), from any library thread.
        /// The previous handler is released after its last call.
        /// </summary>
        public static void SetLogHandler(Action<LogLevel, string, string> handler, LogLevel minLevel = LogLevel.Info)
        {
            EnsureCompatible();
            if (handler == null)
            {
                IntPtr err;
                Errors.Check(NativeMethods.robota_set_log_callback(null, IntPtr.Zero, null, (int)minLevel, out err), err);
                return;
            }
            Callbacks.Register(new LogRegistration(handler), (IntPtr ud, out IntPtr err) =>
                NativeMethods.robota_set_log_callback(Callbacks.Log, ud, Callbacks.Free, (int)minLevel, out err));
        }

        /// <summary>Reports an exception from a user handler (never rethrows).</summary>
        internal static void Report(Exception e)
        {
            try
            {
                var h = CallbackException;
                if (h != null)
                {
                    h(e);
                    return;
                }
#if UNITY_5_3_OR_NEWER
                UnityEngine.Debug.LogException(e);
#else
                Console.Error.WriteLine("Robota: a callback handler threw: " + e);
#endif
            }
            catch
            {
                // The reporter itself failed: nothing safe is left to do inside a native callback.
            }
        }

        private static T Load<T>(Func<T> f)
        {
            try
            {
                return f();
            }
            catch (DllNotFoundException e)
            {
                throw new DllNotFoundException(
                    "the Robota native library (librobota.so / librobota.dylib / robota.dll) was not found: " +
                    "put it on LD_LIBRARY_PATH (Linux), DYLD_LIBRARY_PATH (macOS) or next to the executable, " +
                    "or under Runtime/Plugins/<platform>/ in Unity (" + e.Message + ")", e);
            }
        }
    }

    /// <summary>The log handler behind one robota_set_log_callback registration.</summary>
    internal sealed class LogRegistration
    {
        internal LogRegistration(Action<LogLevel, string, string> handler)
        {
            Handler = handler;
        }

        internal Action<LogLevel, string, string> Handler { get; }
    }
}
