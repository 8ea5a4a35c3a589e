using System;
using System.Runtime.InteropServices;

namespace Robota
{
    /// <summary>
    /// Owns one reference to a native robota_runtime. Released exactly once (Dispose or the
    /// critical finalizer) with robota_runtime_free; P/Invoke calls taking the handle add a
    /// reference for their duration, so a concurrent Dispose cannot free it mid-call.
    /// </summary>
    public sealed class RuntimeHandle : SafeHandle
    {
        internal RuntimeHandle(IntPtr ptr) : base(IntPtr.Zero, true)
        {
            SetHandle(ptr);
        }

        /// <inheritdoc />
        public override bool IsInvalid => handle == IntPtr.Zero;

        /// <inheritdoc />
        protected override bool ReleaseHandle()
        {
            NativeMethods.robota_runtime_free(handle);
            return true;
        }
    }

    /// <summary>
    /// Owns a native robota_session (and a reference on its runtime handle). robota_session_free never blocks, so releasing from the
    /// finalizer thread or from the session's own callback is safe; no new callback starts
    /// after it returns.
    /// </summary>
    public sealed class SessionHandle : SafeHandle
    {
        private readonly RuntimeHandle runtime;

        /// <summary>
        /// Wraps a session pointer and holds a reference on its runtime handle until released:
        /// the library forgets a freed runtime pointer (answers through it would fail), so the
        /// native runtime is freed only after its last session, even when the RobotaRuntime
        /// object was disposed first.
        /// </summary>
        internal SessionHandle(IntPtr ptr, RuntimeHandle runtime) : base(IntPtr.Zero, true)
        {
            var added = false;
            runtime.DangerousAddRef(ref added);
            this.runtime = added ? runtime : null;
            SetHandle(ptr);
        }

        /// <inheritdoc />
        public override bool IsInvalid => handle == IntPtr.Zero;

        /// <summary>The raw pointer (for matching callback arguments; never dereferenced).</summary>
        internal IntPtr Pointer => handle;

        /// <inheritdoc />
        protected override bool ReleaseHandle()
        {
            NativeMethods.robota_session_free(handle);
            runtime?.DangerousRelease();
            return true;
        }
    }
}
