using System;
using System.Runtime.InteropServices;
using AOT;

namespace Robota
{
    /// <summary>
    /// The only methods native code calls: static, non-generic, marked [MonoPInvokeCallback]
    /// (IL2CPP's rule), kept in static fields so their function pointers live for the process.
    /// <c>user_data</c> is always a GCHandle, freed in <see cref="OnFree"/> (the library's
    /// free_fn, called exactly once after the registration's last callback). No exception ever
    /// unwinds into native code.
    /// </summary>
    internal static class Callbacks
    {
        internal static readonly FreeFn Free = OnFree;
        internal static readonly EventFn Event = OnEvent;
        internal static readonly ToolFn Tool = OnTool;
        internal static readonly LogFn Log = OnLog;
        internal static readonly HostIoFn HostIo = OnHostIo;
        internal static readonly ProviderFn Provider = OnProvider;
        internal static readonly StoreFn Store = OnStore;

        /// <summary>One registration call taking <c>user_data</c> (and the binding's callbacks).</summary>
        internal delegate int Registration(IntPtr userData, out IntPtr error);

        /// <summary>
        /// Hands <paramref name="target"/> to the library as <c>user_data</c>: a GCHandle that the
        /// library's free_fn releases after the registration's last callback, or that is released
        /// here when the registration fails (the library then never calls free_fn). Throws
        /// <see cref="RobotaException"/> for a failed registration.
        /// </summary>
        internal static void Register(object target, Registration call)
        {
            var ud = UserData(target);
            int status;
            IntPtr err;
            try
            {
                status = call(ud, out err);
            }
            catch
            {
                FreeUnregistered(ud);
                throw;
            }
            Registered(ud, status, err);
        }

        /// <summary><paramref name="target"/> as <c>user_data</c>: a new GCHandle (see <see cref="Register"/>).</summary>
        internal static IntPtr UserData(object target) => GCHandle.ToIntPtr(GCHandle.Alloc(target));

        /// <summary>
        /// The end of a registration call given <paramref name="userData"/>: frees its error, or,
        /// when it failed, the GCHandle (the library never calls free_fn then) and throws.
        /// </summary>
        internal static void Registered(IntPtr userData, int status, IntPtr err)
        {
            if (status != 0)
            {
                FreeUnregistered(userData);
                throw Errors.Take(status, err);
            }
            Errors.Free(err);
        }

        /// <summary>Frees a GCHandle the library never took ownership of (a failed registration).</summary>
        internal static void FreeUnregistered(IntPtr userData)
        {
            if (userData != IntPtr.Zero)
            {
                GCHandle.FromIntPtr(userData).Free();
            }
        }

        [MonoPInvokeCallback(typeof(FreeFn))]
        private static void OnFree(IntPtr userData)
        {
            try
            {
                var h = GCHandle.FromIntPtr(userData);
                var target = h.Target as IReleasable;
                h.Free();
                target?.Released();
            }
            catch (Exception e)
            {
                RobotaLibrary.Report(e);
            }
        }

        [MonoPInvokeCallback(typeof(EventFn))]
        private static void OnEvent(IntPtr userData, IntPtr session, uint kind, ulong turnId, IntPtr payload, UIntPtr payloadLen)
        {
            try
            {
                var core = GCHandle.FromIntPtr(userData).Target as SessionCore;
                core?.Deliver(kind, turnId, payload, Utf8.Length(payloadLen));
            }
            catch (Exception e)
            {
                RobotaLibrary.Report(e);
            }
        }

        [MonoPInvokeCallback(typeof(ToolFn))]
        private static void OnTool(IntPtr userData, IntPtr session, ulong callId, IntPtr toolName, IntPtr inputJson, UIntPtr inputLen)
        {
            try
            {
                var reg = GCHandle.FromIntPtr(userData).Target as ToolRegistration;
                reg?.Invoke(session, callId, toolName, Utf8.Decode(inputJson, Utf8.Length(inputLen)));
            }
            catch (Exception e)
            {
                RobotaLibrary.Report(e);
            }
        }

        [MonoPInvokeCallback(typeof(HostIoFn))]
        private static void OnHostIo(IntPtr userData, IntPtr session, ulong ioId, IntPtr requestJson, UIntPtr requestLen)
        {
            try
            {
                var reg = GCHandle.FromIntPtr(userData).Target as HostIoRegistration;
                var json = Utf8.Decode(requestJson, Utf8.Length(requestLen));
                // The handler may block (a disk, a network): never on the library's thread.
                if (reg != null) System.Threading.Tasks.Task.Run(() => reg.Invoke(ioId, json));
            }
            catch (Exception e)
            {
                RobotaLibrary.Report(e);
            }
        }

        [MonoPInvokeCallback(typeof(StoreFn))]
        private static void OnStore(IntPtr userData, ulong requestId, IntPtr requestJson, UIntPtr requestLen)
        {
            try
            {
                var reg = GCHandle.FromIntPtr(userData).Target as StoreRegistration;
                var json = Utf8.Decode(requestJson, Utf8.Length(requestLen));
                // The store may block (a database): never on the library's thread.
                if (reg != null) System.Threading.Tasks.Task.Run(() => reg.Invoke(requestId, json));
            }
            catch (Exception e)
            {
                RobotaLibrary.Report(e);
            }
        }

        [MonoPInvokeCallback(typeof(ProviderFn))]
        private static void OnProvider(IntPtr userData, ulong callId, IntPtr requestJson, UIntPtr requestLen)
        {
            try
            {
                var reg = GCHandle.FromIntPtr(userData).Target as ProviderRegistration;
                reg?.Receive(callId, Utf8.Decode(requestJson, Utf8.Length(requestLen)));
            }
            catch (Exception e)
            {
                RobotaLibrary.Report(e);
            }
        }

        [MonoPInvokeCallback(typeof(LogFn))]
        private static void OnLog(IntPtr userData, int level, IntPtr target, IntPtr message, UIntPtr messageLen)
        {
            try
            {
                var reg = GCHandle.FromIntPtr(userData).Target as LogRegistration;
                reg?.Handler((LogLevel)level, Utf8.DecodeZ(target), Utf8.Decode(message, Utf8.Length(messageLen)));
            }
            catch (Exception e)
            {
                RobotaLibrary.Report(e);
            }
        }
    }
}
