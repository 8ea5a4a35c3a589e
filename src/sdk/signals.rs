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
