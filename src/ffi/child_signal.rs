//! SIGCHLD for Go hosts. The Go runtime aborts when a signal arrives at a handler that non-Go
//! code installed without `SA_ONSTACK` ("non-Go code set up signal handler without SA_ONSTACK
//! flag"). The library reaps its child processes (shell commands, command hooks, MCP stdio
//! servers) through tokio, whose SIGCHLD handler `signal-hook-registry` installs without that
//! flag. So, once, before the first child is spawned ([`robota_engine::core::child_signal`]),
//! this installs that same handler through the same registry and adds `SA_ONSTACK`; tokio's
//! own registration later reuses it (the registry calls `sigaction` once per signal). The flag
//! only says "use the thread's alternate stack if it has one": other hosts see no change.

/// Installs the SIGCHLD handler with `SA_ONSTACK` (once; later calls return at once).
#[cfg(unix)]
pub(crate) fn prepare() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: the action is an empty closure: async-signal-safe, it touches nothing.
        if unsafe { signal_hook_registry::register(libc::SIGCHLD, || {}) }.is_err() {
            return;
        }
        // SAFETY: `act` is a zeroed, then kernel-filled `sigaction`; it is written back with
        // the handler, mask and flags just installed plus SA_ONSTACK.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGCHLD, std::ptr::null(), &mut act) == 0
                && act.sa_flags & libc::SA_ONSTACK == 0
            {
                act.sa_flags |= libc::SA_ONSTACK;
                libc::sigaction(libc::SIGCHLD, &act, std::ptr::null_mut());
            }
        }
    });
}

/// No SIGCHLD outside Unix.
#[cfg(not(unix))]
pub(crate) fn prepare() {}
