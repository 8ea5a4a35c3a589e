//! What a session handle holds: the session, its event queue and a reference to its runtime,
//! plus the two guarantees that need all three: `robota_session_wait` returns once the turn's
//! events were handed over ("wait means delivered"), and dropping a session never blocks, even
//! when it holds the last reference to its runtime.

use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Instant;

use super::delivery::{deadline_of, Queue};
use crate::sdk::error::{ErrorCode, SdkError};
use crate::sdk::interactive::InteractiveSession;
use crate::sdk::runtime::Runtime;

/// What a session handle holds.
pub struct SessionObj {
    /// The session.
    pub session: InteractiveSession,
    /// Its queue.
    pub queue: Arc<Queue>,
    /// Keeps the runtime alive.
    pub runtime: RuntimeRef,
}

impl SessionObj {
    /// `robota_session_wait`: waits until turn `turn_id` (0 = every turn so far) finished and
    /// its events were handed over — in `thread` delivery its `TURN_COMPLETED` callback
    /// returned, in `pump`/`pull` it is queued. `timeout_ms < 0` = forever. The turn's outcome
    /// decides the result (`Aborted`, `Provider`); `Timeout` when either step runs out of time.
    pub fn wait(&self, turn_id: u64, timeout_ms: i32) -> Result<(), SdkError> {
        let deadline = deadline_of(timeout_ms);
        let remaining = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let outcome = self.session.wait(turn_id, remaining);
        if let Err(e) = &outcome {
            if matches!(e.code, ErrorCode::Timeout | ErrorCode::NotFound) {
                return outcome;
            }
        }
        let last_turn = if turn_id == 0 {
            self.session.last_turn_id()
        } else {
            0
        };
        self.queue.wait_delivered(turn_id, last_turn, deadline)?;
        outcome
    }
}

impl Drop for SessionObj {
    fn drop(&mut self) {
        self.session.close();
        self.queue.detach();
    }
}

/// A session's reference to its runtime. Dropping the last one shuts the runtime down (joins
/// its library threads, which may be running a host callback, and stops its workers); a
/// session is freed from finalizers and callbacks and must never block there, so that
/// shutdown then moves to a short-lived thread of its own.
pub struct RuntimeRef(ManuallyDrop<Arc<Runtime>>);

impl RuntimeRef {
    /// Wraps a runtime reference.
    pub fn new(runtime: Arc<Runtime>) -> Self {
        RuntimeRef(ManuallyDrop::new(runtime))
    }
}

impl Deref for RuntimeRef {
    type Target = Arc<Runtime>;

    fn deref(&self) -> &Arc<Runtime> {
        &self.0
    }
}

impl Drop for RuntimeRef {
    fn drop(&mut self) {
        // SAFETY: `drop` runs once and `self.0` is never used afterwards.
        let runtime = unsafe { ManuallyDrop::take(&mut self.0) };
        if let Some(last) = Arc::into_inner(runtime) {
            // If the thread cannot start, the closure (and the runtime) is dropped right here.
            let _ = std::thread::Builder::new()
                .name("robota-shutdown".into())
                .spawn(move || drop(last));
        }
    }
}
