using System;
using System.Runtime.InteropServices;

namespace Robota
{
    /// <summary>Releases a registration's user data (robota_free_fn).</summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    internal delegate void FreeFn(IntPtr userData);

    /// <summary>Receives session events (robota_event_fn).</summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    internal delegate void EventFn(IntPtr userData, IntPtr session, uint kind, ulong turnId, IntPtr payload, UIntPtr payloadLen);

    /// <summary>Runs a host tool (robota_tool_fn).</summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    internal delegate void ToolFn(IntPtr userData, IntPtr session, ulong callId, IntPtr toolName, IntPtr inputJson, UIntPtr inputLen);

    /// <summary>Receives a host I/O request (robota_host_io_fn).</summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    internal delegate void HostIoFn(IntPtr userData, IntPtr session, ulong ioId, IntPtr requestJson, UIntPtr requestLen);

    /// <summary>Receives a session store request (robota_store_fn).</summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    internal delegate void StoreFn(IntPtr userData, ulong requestId, IntPtr requestJson, UIntPtr requestLen);

    /// <summary>Receives library log lines (robota_log_fn).</summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    internal delegate void LogFn(IntPtr userData, int level, IntPtr target, IntPtr message, UIntPtr messageLen);

    /// <summary>Receives a host provider's call or cancel document (robota_provider_fn).</summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    internal delegate void ProviderFn(IntPtr userData, ulong callId, IntPtr requestJson, UIntPtr requestLen);

    /// <summary>
    /// The C ABI of include/robota.h, one declaration per exported function. Strings in are
    /// NUL-terminated UTF-8 byte arrays (<see cref="Utf8.Encode"/>); strings out are owned
    /// pointers read and freed by <see cref="Utf8.TakeOwned"/>.
    /// </summary>
    internal static class NativeMethods
    {
#if UNITY_IOS && !UNITY_EDITOR
        /// <summary>iOS links the static library into the app: symbols are resolved in-process.</summary>
        internal const string Lib = "__Internal";
#else
        /// <summary>librobota.so (Linux, Android), librobota.dylib (macOS), robota.dll (Windows).</summary>
        internal const string Lib = "robota";
#endif

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern uint robota_abi_version();

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr robota_version();

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr robota_status_str(int status);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void robota_string_free(IntPtr s);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_error_code(IntPtr e);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr robota_error_message(IntPtr e);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr robota_error_details(IntPtr e);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void robota_error_free(IntPtr e);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_set_log_callback(LogFn fn, IntPtr userData, FreeFn freeFn, int minLevel, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_runtime_new(byte[] configJson, out IntPtr runtime, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void robota_runtime_free(IntPtr runtime);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_runtime_register_tool(RuntimeHandle runtime, byte[] toolJson, ToolFn fn, IntPtr userData, FreeFn freeFn, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_runtime_register_template(RuntimeHandle runtime, byte[] templateJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_tool_call_complete(RuntimeHandle runtime, ulong callId, byte[] resultJson, int isError, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_runtime_set_host_io(RuntimeHandle runtime, HostIoFn fn, IntPtr userData, FreeFn freeFn, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_host_io_complete(RuntimeHandle runtime, ulong ioId, byte[] responseJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_request_respond(RuntimeHandle runtime, ulong requestId, byte[] responseJson, out IntPtr error);

        /// <summary>robota_tool_call_complete through a runtime pointer a live session keeps alive.</summary>
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, EntryPoint = "robota_tool_call_complete")]
        internal static extern int robota_tool_call_complete_via(IntPtr runtime, ulong callId, byte[] resultJson, int isError, out IntPtr error);

        /// <summary>robota_request_respond through a runtime pointer a live session keeps alive.</summary>
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, EntryPoint = "robota_request_respond")]
        internal static extern int robota_request_respond_via(IntPtr runtime, ulong requestId, byte[] responseJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_runtime_register_provider(RuntimeHandle runtime, byte[] name, byte[] capabilitiesJson, ProviderFn fn, IntPtr userData, FreeFn freeFn, out IntPtr error);

        /// <summary>Takes the runtime by address: pushes outlive the RobotaRuntime object (its sessions keep the runtime).</summary>
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_provider_push(IntPtr runtime, ulong callId, byte[] eventJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_store_list(RuntimeHandle runtime, byte[] queryJson, out IntPtr outJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_store_delete(RuntimeHandle runtime, byte[] sessionId, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_runtime_set_store(RuntimeHandle runtime, StoreFn fn, IntPtr userData, FreeFn freeFn, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_store_complete(RuntimeHandle runtime, ulong requestId, byte[] responseJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_query(RuntimeHandle runtime, byte[] queryJson, EventFn fn, IntPtr userData, FreeFn freeFn, out IntPtr outJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_new(RuntimeHandle runtime, byte[] sessionJson, EventFn fn, IntPtr userData, FreeFn freeFn, out IntPtr session, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_resume(RuntimeHandle runtime, byte[] resumeJson, EventFn fn, IntPtr userData, FreeFn freeFn, out IntPtr session, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_fork(SessionHandle session, byte[] forkJson, EventFn fn, IntPtr userData, FreeFn freeFn, out IntPtr forked, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void robota_session_free(IntPtr session);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_close(SessionHandle session);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_submit(SessionHandle session, byte[] inputJson, out ulong turnId, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_run(SessionHandle session, byte[] inputJson, out ulong turnId, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_abort(SessionHandle session, ulong turnId);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_wait(SessionHandle session, ulong turnId, int timeoutMs, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_run_result(SessionHandle session, byte[] inputJson, out ulong turnId, out IntPtr resultJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_wait_result(SessionHandle session, ulong turnId, int timeoutMs, out IntPtr resultJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_command(SessionHandle session, byte[] commandJson, out IntPtr outJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_inject_message(SessionHandle session, byte[] messageJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_messages(SessionHandle session, byte[] queryJson, out IntPtr outJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_state(SessionHandle session, out IntPtr outJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_save(SessionHandle session, out IntPtr outJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_next_event(SessionHandle session, int timeoutMs, out IntPtr outEventJson, out IntPtr error);

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int robota_session_dispatch(SessionHandle session, int maxEvents, int timeoutMs);
    }
}
