//! `robota_session_wait`'s side of the queue: which turns' `TURN_COMPLETED` reached the host,
//! the wake-ups of the threads waiting for that, and the counted condvar waits of the queue.

use std::sync::{Arc, Condvar, MutexGuard};
use std::time::{Duration, Instant};

use super::{QState, Queue};
use crate::ffi::status::err;
use robota_engine::sdk::error::{ErrorCode, SdkError};
use robota_engine::sdk::runtime::wake_batch::{self, DeferredWake};

impl Queue {
    /// Records that `turn`'s `TURN_COMPLETED` was handed over. Returns whether a
    /// `wait_delivered` is asleep: the caller wakes it with [`Self::wake_delivered`] once it has
    /// released the lock, so the woken host does not block at once on the lock it still holds
    /// (two more context switches per turn when both threads share a CPU).
    #[must_use]
    pub(super) fn mark_delivered(&self, st: &mut QState, turn: u64) -> bool {
        st.delivered.mark(turn);
        st.delivery_waiters > 0
    }

    /// Wakes the `wait_delivered` callers when [`Self::mark_delivered`] said one is asleep.
    pub(super) fn wake_delivered(&self, sleeping: bool) {
        if sleeping {
            self.delivered_cond.0.notify_all();
        }
    }

    /// [`Self::wake_delivered`] for a `TURN_COMPLETED` marked as handed over when it was
    /// pushed (no callback, `pump`, `pull`): the turn's task pushes it just before it finishes
    /// the turn in the same poll, so the wake-up waits for that ([`wake_batch::turn_ended`]).
    /// Woken at once, `robota_session_wait` would find the turn still running and sleep again
    /// until the turn's end woke it: two wake-ups per turn instead of one.
    pub(super) fn wake_delivered_at_turn_end(&self, sleeping: bool) {
        if sleeping {
            wake_batch::wake_at_turn_end(self.delivered_cond.clone());
        }
    }

    /// Waits until turn `turn_id`'s `TURN_COMPLETED` was handed over to the host (`thread`:
    /// its callback returned; `pump`/`pull`: it is queued), or with `turn_id == 0` those of
    /// every turn up to `last_turn`. Returns at once when delivery was detached (freed).
    pub(crate) fn wait_delivered(
        &self,
        turn_id: u64,
        last_turn: u64,
        deadline: Option<Instant>,
    ) -> Result<(), SdkError> {
        let mut st = self.lock();
        loop {
            let done = if turn_id == 0 {
                st.delivered.all_upto(last_turn)
            } else {
                st.delivered.has(turn_id)
            };
            if done || st.detached {
                return Ok(());
            }
            match wait_step(&self.delivered_cond.0, st, deadline, delivery_waiters) {
                (s, true) => st = s,
                (_, false) => {
                    return Err(err(
                        ErrorCode::Timeout,
                        format!("turn {turn_id} finished but its events were not all delivered within the timeout"),
                    ))
                }
            }
        }
    }
}

/// The condition variable `robota_session_wait` sleeps on until its turn was handed over; a
/// wake-up of it can wait for the end of the turn that handed it over (`wake_batch`).
pub(super) struct DeliveredSignal(pub(super) Condvar);

impl DeferredWake for DeliveredSignal {
    fn wake_now(self: Arc<Self>) {
        self.0.notify_all();
    }
}

/// The deadline of a C timeout (`-1` or any negative value = none).
pub(crate) fn deadline_of(timeout_ms: i32) -> Option<Instant> {
    if timeout_ms < 0 {
        None
    } else {
        Some(Instant::now() + Duration::from_millis(u64::from(timeout_ms.unsigned_abs())))
    }
}

/// The count of threads waiting for events.
pub(super) fn waiters(st: &mut QState) -> &mut u32 {
    &mut st.waiters
}

/// The count of threads waiting in [`Queue::wait_delivered`].
fn delivery_waiters(st: &mut QState) -> &mut u32 {
    &mut st.delivery_waiters
}

/// Waits once on `cond`, counted in the `count` field (a signal is only sent when somebody
/// waits); returns the guard and whether waiting may continue.
pub(super) fn wait_step<'a>(
    cond: &Condvar,
    st: MutexGuard<'a, QState>,
    deadline: Option<Instant>,
    count: fn(&mut QState) -> &mut u32,
) -> (MutexGuard<'a, QState>, bool) {
    let mut st = st;
    match deadline {
        None => {
            *count(&mut st) += 1;
            let mut g = cond.wait(st).unwrap_or_else(|p| p.into_inner());
            *count(&mut g) -= 1;
            (g, true)
        }
        Some(d) => {
            let now = Instant::now();
            if now >= d {
                return (st, false);
            }
            *count(&mut st) += 1;
            let mut g = cond
                .wait_timeout(st, d - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            *count(&mut g) -= 1;
            (g, true)
        }
    }
}
