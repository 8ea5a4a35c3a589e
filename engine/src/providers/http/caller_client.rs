//! The HTTP client of a thread that drives a turn itself (`robota_session_run`): its
//! connections live on that thread's own reactor, so a request and its streamed answer never
//! cross threads. Set while the thread drives, and for good on the threads of a worker shard
//! (its own pool); every other thread uses the shared pool.

use std::cell::RefCell;

thread_local! {
    static CALLER: RefCell<Option<reqwest::Client>> = const { RefCell::new(None) };
}

/// Runs `f` with `client` as this thread's HTTP client (the previous one back afterwards,
/// also when `f` panics).
pub fn with_caller_client<R>(client: &reqwest::Client, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<reqwest::Client>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            let _ = CALLER.try_with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CALLER
        .try_with(|c| c.borrow_mut().replace(client.clone()))
        .ok()
        .flatten();
    let _restore = Restore(previous);
    f()
}

/// Makes `client` this thread's HTTP client for as long as the thread lives (a worker
/// shard's threads: their connections live on the shard's reactor).
pub fn set_thread_client(client: &reqwest::Client) {
    let _ = CALLER.try_with(|c| *c.borrow_mut() = Some(client.clone()));
}

/// Calls `f` with this thread's driving client, or with `shared` when the thread drives none.
pub(super) fn with_client<R>(shared: &reqwest::Client, f: impl FnOnce(&reqwest::Client) -> R) -> R {
    match CALLER.try_with(|c| c.borrow().clone()).ok().flatten() {
        Some(own) => f(&own),
        None => f(shared),
    }
}
