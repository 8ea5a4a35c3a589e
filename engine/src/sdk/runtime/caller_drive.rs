//! Turns driven by the thread that asks for them (`robota_session_run`): the turn, its HTTP
//! connections and its timers are polled on the calling thread by a single-threaded reactor of
//! its own, so a host that runs a turn and waits for it wakes no library thread at all (the
//! submit → worker and `TURN_COMPLETED` → waiter hand-overs of `submit`/`wait` are gone, and
//! with `inline` delivery the host's callbacks run on its own thread too).
//!
//! Reactors are pooled per runtime: a call takes an idle one (or starts one), drives the turn
//! to its end and puts it back, keep-alive connections included. A reactor only runs while a
//! thread drives it, so nothing outside its turn may depend on it: its HTTP client is used by
//! requests made on the driving thread only, and what outlives a turn (MCP connections,
//! `SessionEnd` hooks, a queued turn) is spawned on the runtime's workers
//! (`LibraryWork::spawn`). What a turn spawns on the reactor itself (a child process's pipe
//! readers and stdin writer) is awaited by the turn; a stdin writer left behind by a process
//! that exited without reading ends at the reactor's next call or when the runtime goes.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::runtime::library_work::LibraryWork;

/// Scheduler rounds given to the reactor's other tasks after a turn.
const SETTLE_YIELDS: usize = 2;
/// I/O events a reactor takes from the kernel per poll. It serves one turn — a connection or
/// two, a child's pipes — and events beyond these wait for the next poll; tokio's default
/// (1,024) costs each reactor a 12 KB buffer, paid once per thread that drives turns.
const EVENTS_PER_POLL: usize = 64;

/// One reactor and the HTTP client whose connections it drives.
struct Reactor {
    tokio: tokio::runtime::Runtime,
    http: reqwest::Client,
}

/// The runtime's idle reactors.
#[derive(Default)]
pub struct CallerReactors {
    idle: Mutex<Vec<Reactor>>,
}

impl CallerReactors {
    /// Drives `turn` to its end on the calling thread, counted as library work while it runs.
    /// The caller makes sure the thread runs no async runtime already (an `inline` callback,
    /// a host's own tokio worker), where blocking would stall it. When no reactor can be
    /// started the turn comes back, for the caller to run on the workers.
    pub fn drive<F: Future<Output = ()> + Send + 'static>(
        &self,
        work: &LibraryWork,
        turn: F,
    ) -> Result<(), Pin<Box<F>>> {
        // Boxed before anything else: a turn's future is ~10 KB, and every closure and
        // `block_on` below would otherwise hold a copy of its own on this thread's stack
        // (~90 KB deep per call, a fresh stack page fault each at a process's first turn).
        let turn = Box::pin(turn);
        let reactor = match self.take().map_or_else(Reactor::start, Ok) {
            Ok(r) => r,
            Err(e) => {
                crate::log_at!(
                    crate::core::log::WARN,
                    "robota::runtime",
                    "{}; the turn runs on the workers",
                    e.message
                );
                return Err(turn);
            }
        };
        let _counted = work.count_task();
        // From the thread's second turn on, the turn allocates as the workers would (the
        // library's heap): a thread that drives one turn and ends keeps to `malloc`.
        let _library = crate::sdk::runtime::thread_role::LibraryThreadScope::enter_for_turn();
        crate::sdk::runtime::signals::with_sigpipe_blocked(|| {
            crate::providers::with_caller_client(&reactor.http, || {
                reactor.tokio.block_on(async {
                    crate::sdk::runtime::wake_batch::Batched(turn).await;
                    // The turn ended with its last answer read; the connection's own tasks
                    // (hyper's end of the response, its return to the pool) run only while
                    // the reactor does: let them, so the next call finds it idle.
                    for _ in 0..SETTLE_YIELDS {
                        tokio::task::yield_now().await;
                    }
                })
            })
        });
        self.idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(reactor);
        Ok(())
    }

    fn take(&self) -> Option<Reactor> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop()
    }
}

impl Reactor {
    fn start() -> SdkResult<Reactor> {
        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .max_io_events_per_tick(EVENTS_PER_POLL)
            .build()
            .map_err(|e| SdkError::new(ErrorCode::Io, format!("cannot start a reactor: {e}")))?;
        let http = crate::providers::new_http_client().map_err(|e| {
            SdkError::new(
                ErrorCode::Internal,
                format!("cannot build the HTTP client: {e}"),
            )
        })?;
        Ok(Reactor { tokio, http })
    }
}

impl Drop for CallerReactors {
    fn drop(&mut self) {
        // Dropped with the runtime, possibly on one of its workers: never wait there.
        let idle = std::mem::take(self.idle.get_mut().unwrap_or_else(|p| p.into_inner()));
        for r in idle {
            r.tokio.shutdown_background();
        }
    }
}
