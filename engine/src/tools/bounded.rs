//! Network work of a built-in (WebFetch, WebSearch) bounded by its time limit and by the
//! call's cancellation.

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// `work`'s result; `<what> timed out after <timeout_ms>ms` when it takes longer, and
/// `<what> was cancelled` when `cancel` fires first.
pub(crate) async fn bounded_by_time_and_cancel<T>(
    what: &str,
    work: impl Future<Output = Result<T, String>>,
    timeout_ms: u64,
    cancel: &CancellationToken,
) -> Result<T, String> {
    tokio::select! {
        r = tokio::time::timeout(Duration::from_millis(timeout_ms), work) => match r {
            Ok(r) => r,
            Err(_) => Err(format!("{what} timed out after {timeout_ms}ms")),
        },
        _ = cancel.cancelled() => Err(format!("{what} was cancelled")),
    }
}
