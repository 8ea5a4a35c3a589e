//! Signal hygiene for the library's own threads inside a C host.

/// Blocks `SIGPIPE` on the calling thread, so a write to a closed pipe (a command hook or shell
/// that exits without reading its stdin) fails with `EPIPE` instead of killing the host process.
/// Only the library's threads are touched; the host's signal dispositions stay as they are.
pub(crate) fn block_sigpipe_on_this_thread() {
    #[cfg(unix)]
    {
        use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow, Signal};
        let mut set = SigSet::empty();
        set.add(Signal::SIGPIPE);
        // Failure leaves the default disposition, which is no worse than not trying.
        let _ = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None);
    }
}

/// Runs `f` with `SIGPIPE` blocked on the calling (host) thread, as on the library's own
/// threads, then restores the thread's previous mask.
pub(crate) fn with_sigpipe_blocked<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(unix)]
    {
        use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow, Signal};
        struct Restore(Option<SigSet>);
        impl Drop for Restore {
            fn drop(&mut self) {
                if let Some(old) = &self.0 {
                    let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(old), None);
                }
            }
        }
        let mut set = SigSet::empty();
        set.add(Signal::SIGPIPE);
        let mut old = SigSet::empty();
        // Already blocked (or no mask to be had): nothing to restore.
        let restore = match pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), Some(&mut old)) {
            Ok(()) if !old.contains(Signal::SIGPIPE) => Restore(Some(old)),
            _ => Restore(None),
        };
        let out = f();
        drop(restore);
        out
    }
    #[cfg(not(unix))]
    f()
}
