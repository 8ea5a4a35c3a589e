//! What a session handle holds: the session, its event queue and a reference to its runtime,
//! plus the two guarantees that need all three: `robota_session_wait` returns once the turn's
//! events were handed over ("wait means delivered"), and dropping a session never blocks, even
//! when it holds the last reference to its runtime.

use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Instant;

use super::callbacks::EventReg;
use super::delivery::{deadline_of, Queue};
use super::handles::{self, robota_session};
use robota_engine::sdk::config::{Delivery, SessionConfig};
use robota_engine::sdk::error::{ErrorCode, SdkError};
use robota_engine::sdk::interactive::{InteractiveSession, Restore};
use robota_engine::sdk::runtime::Runtime;

/// Builds a session with its event queue and publishes its handle. The registration is armed
/// only on success: on failure `free_fn` is not called and the caller keeps `user_data`.
pub(crate) fn open_session(
    runtime: Arc<Runtime>,
    cfg: Box<SessionConfig>,
    restore: Option<Restore>,
    reg: EventReg,
) -> Result<*mut robota_session, SdkError> {
    let mode = cfg.delivery;
    let can_answer = mode == Delivery::Pull || reg.f.is_some();
    let reg = Arc::new(reg);
    let queue = Queue::new(mode, Some(reg.clone()), runtime.shared().clone());
    let made = InteractiveSession::new_boxed(
        runtime.shared().clone(),
        cfg,
        queue.sink(),
        can_answer,
        restore,
    );
    let session = match made {
        Ok(s) => s,
        Err(e) => {
            queue.detach();
            return Err(e);
        }
    };
    reg.owned.arm();
    let started = session.clone();
    let obj = Arc::new(SessionObj {
        session,
        queue: queue.clone(),
        runtime: RuntimeRef::new(runtime),
    });
    let h = handles::new_session(obj);
    queue.set_session_ptr(h);
    // Settings/skill problems, once the handle exists (callbacks receive it).
    started.emit_startup_warnings();
    Ok(h)
}

/// What a session handle holds.
pub(crate) struct SessionObj {
    /// The session.
    pub(crate) session: InteractiveSession,
    /// Its queue.
    pub(crate) queue: Arc<Queue>,
    /// Keeps the runtime alive.
    pub(crate) runtime: RuntimeRef,
}

impl SessionObj {
    /// `robota_session_wait`: waits until turn `turn_id` (0 = every turn so far) finished and
    /// its events were handed over — in `thread` delivery its `TURN_COMPLETED` callback
    /// returned, in `pump`/`pull` it is queued. `timeout_ms < 0` = forever. The turn's outcome
    /// decides the result (`Aborted`, `Provider`); `Timeout` when either step runs out of time.
    pub(crate) fn wait(&self, turn_id: u64, timeout_ms: i32) -> Result<(), SdkError> {
        let deadline = deadline_of(timeout_ms);
        if turn_id != 0 && self.session.turn_pending(turn_id) {
            // A turn's `turn_completed` is handed over only after the turn has finished:
            // waiting for that first puts the host to sleep once per turn instead of once for
            // the turn and again for its last events (a wake-up each). What is left of the
            // timeout then goes to the checks below, which give the errors.
            let _ = self.queue.wait_delivered(turn_id, 0, deadline);
        }
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
pub(crate) struct RuntimeRef(ManuallyDrop<Arc<Runtime>>);

impl RuntimeRef {
    /// Wraps a runtime reference.
    pub(crate) fn new(runtime: Arc<Runtime>) -> Self {
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
