//! Event delivery per session: `thread` (on one of the runtime's callback threads while the
//! session has events queued, see `sdk::runtime::callback_threads`), `inline` (on the async
//! worker that emitted them, at the end of its poll; from other threads as `thread`), `pump`
//! (`robota_session_dispatch`) and `pull` (`robota_session_next_event`). No lock is held while
//! calling out. The queue also records which turns' `TURN_COMPLETED` reached the host, for
//! `robota_session_wait`.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::callbacks::{deliver, in_callback, refuse_in_callback, EventReg};
use super::delivered::DeliveredTurns;
use super::handles::robota_session;
use super::status::err;
use robota_engine::sdk::config::Delivery;
use robota_engine::sdk::error::{ErrorCode, SdkError};
use robota_engine::sdk::events::{self, Event, EventSink, Payload};
use robota_engine::sdk::runtime::wake_batch::{self, DeferredWake};
use robota_engine::sdk::runtime::RuntimeShared;

mod inline;
#[cfg(test)]
mod tests;

#[derive(Default)]
struct QState {
    events: VecDeque<Event>,
    reg: Option<Arc<EventReg>>,
    /// `thread` mode: a callback thread is draining the queue (at most one at a time).
    dispatcher_running: bool,
    /// `thread` mode: a thread is handing events over right now (the dispatcher, or a tool
    /// thread delivering its host I/O request itself, see `inline`); one at a time, in order.
    delivering: bool,
    dispatching: bool,
    detached: bool,
    closed_queued: bool,
    closed_taken: bool,
    session_ptr: usize,
    /// Threads blocked on the condvar (a push only signals when somebody waits).
    waiters: u32,
    /// Turns whose `TURN_COMPLETED` was handed over to the host.
    delivered: DeliveredTurns,
    /// Threads blocked in [`Queue::wait_delivered`].
    delivery_waiters: u32,
    /// `pump`/`pull`: a wake-up of the waiting threads is on its way.
    wake_pending: bool,
}

/// A session's event queue.
pub(crate) struct Queue {
    mode: Delivery,
    /// Callback gate: open, calling or closed (see [`Queue::deliver_gated`]).
    gate: std::sync::atomic::AtomicU8,
    state: Mutex<QState>,
    cond: Condvar,
    /// Signalled when a turn's `TURN_COMPLETED` was handed over, and on detach.
    delivered_cond: Arc<DeliveredSignal>,
    shared: Arc<RuntimeShared>,
}

impl Queue {
    /// A queue for `mode` with an optional callback.
    pub(crate) fn new(
        mode: Delivery,
        reg: Option<Arc<EventReg>>,
        shared: Arc<RuntimeShared>,
    ) -> Arc<Self> {
        Arc::new(Queue {
            mode,
            gate: std::sync::atomic::AtomicU8::new(GATE_OPEN),
            state: Mutex::new(QState {
                reg,
                ..Default::default()
            }),
            cond: Condvar::new(),
            delivered_cond: Arc::new(DeliveredSignal(Condvar::new())),
            shared,
        })
    }

    fn lock(&self) -> MutexGuard<'_, QState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `thread` or `inline`: the library calls the host back (no dispatch, no pull).
    fn calls_back(&self) -> bool {
        matches!(self.mode, Delivery::Thread | Delivery::Inline)
    }

    /// The sink the session emits into.
    pub(crate) fn sink(self: &Arc<Self>) -> EventSink {
        let q = Arc::downgrade(self);
        Arc::new(move |ev: Event| {
            if let Some(q) = q.upgrade() {
                q.push(ev);
            }
        })
    }

    /// Sets the handle pointer passed to callbacks.
    pub(crate) fn set_session_ptr(&self, p: *mut robota_session) {
        self.lock().session_ptr = p as usize;
    }

    /// Records that `turn`'s `TURN_COMPLETED` was handed over. Returns whether a
    /// `wait_delivered` is asleep: the caller wakes it with [`Self::wake_delivered`] once it has
    /// released the lock, so the woken host does not block at once on the lock it still holds
    /// (two more context switches per turn when both threads share a CPU).
    #[must_use]
    fn mark_delivered(&self, st: &mut QState, turn: u64) -> bool {
        st.delivered.mark(turn);
        st.delivery_waiters > 0
    }

    /// Wakes the `wait_delivered` callers when [`Self::mark_delivered`] said one is asleep.
    fn wake_delivered(&self, sleeping: bool) {
        if sleeping {
            self.delivered_cond.0.notify_all();
        }
    }

    /// [`Self::wake_delivered`] for a `TURN_COMPLETED` marked as handed over when it was
    /// pushed (no callback, `pump`, `pull`): the turn's task pushes it just before it finishes
    /// the turn in the same poll, so the wake-up waits for that ([`wake_batch::turn_ended`]).
    /// Woken at once, `robota_session_wait` would find the turn still running and sleep again
    /// until the turn's end woke it: two wake-ups per turn instead of one.
    fn wake_delivered_at_turn_end(&self, sleeping: bool) {
        if sleeping {
            wake_batch::wake_at_turn_end(self.delivered_cond.clone());
        }
    }

    fn push(self: &Arc<Self>, ev: Event) {
        let mut st = self.lock();
        let mut sleeping = false;
        let discarded = st.detached
            || st.closed_queued
            || (self.calls_back()
                && st.reg.as_ref().is_none_or(|r| r.f.is_none())
                && !matches!(&ev.payload, Payload::ToolCall(c) if c.handler.is_some())
                && ev.kind != events::HOST_IO);
        if ev.kind == events::TURN_COMPLETED && (discarded || !self.calls_back()) {
            // Nobody will ever see it, or (pump/pull) queued is handed over.
            sleeping = self.mark_delivered(&mut st, ev.turn_id);
        }
        if discarded {
            drop(st);
            self.wake_delivered_at_turn_end(sleeping);
            return;
        }
        if ev.kind == events::SESSION_CLOSED {
            st.closed_queued = true;
        }
        if self.calls_back()
            && ev.kind == events::HOST_IO
            && !st.delivering
            && robota_engine::sdk::host::io::caller_serves_inline()
        {
            self.deliver_inline(st, ev);
            return;
        }
        st.events.push_back(ev);
        // The wake-up waits for the end of the emitting task's poll (`wake_batch`), so a burst
        // of events is handed over at once; `wake_pending` keeps it to one per burst.
        let wake = match self.mode {
            Delivery::Thread | Delivery::Inline => {
                !std::mem::replace(&mut st.dispatcher_running, true)
            }
            Delivery::Pump | Delivery::Pull => {
                st.waiters > 0 && !std::mem::replace(&mut st.wake_pending, true)
            }
        };
        drop(st);
        self.wake_delivered_at_turn_end(sleeping);
        if wake {
            wake_batch::wake_soon(self.clone());
        }
    }

    /// `thread` mode: drains the queue on a callback thread (`dispatcher_running` is set).
    fn start_dispatcher(self: &Arc<Self>) {
        let me = self.clone();
        if !self
            .shared
            .run_on_callback_thread(Box::new(move || me.drain()))
        {
            self.lock().dispatcher_running = false;
        }
    }

    /// `thread`/`inline` mode, on a callback thread or (`inline`) the worker whose poll just
    /// ended: delivers queued events in order until none is left, taking everything queued at
    /// once (one lock round trip per burst, not per event). Leaves when another thread is
    /// delivering (that one restarts it for what it leaves).
    fn drain(self: Arc<Self>) {
        let mut batch: VecDeque<Event> = VecDeque::new();
        let mut mine = false;
        loop {
            let (reg, ptr) = {
                let mut st = self.lock();
                if mine {
                    st.delivering = false;
                }
                if st.detached || st.events.is_empty() || st.delivering {
                    st.dispatcher_running = false;
                    return;
                }
                st.delivering = true;
                mine = true;
                std::mem::swap(&mut batch, &mut st.events);
                (st.reg.clone(), st.session_ptr)
            };
            self.deliver_batch(&mut batch, reg, ptr);
        }
    }

    /// Delivers `batch` in order (emptying it; the rest is dropped once delivery was
    /// detached), then records the turns whose `TURN_COMPLETED` the host got.
    fn deliver_batch(&self, batch: &mut VecDeque<Event>, reg: Option<Arc<EventReg>>, ptr: usize) {
        let mut completed: Vec<u64> = Vec::new();
        while let Some(ev) = batch.pop_front() {
            let turn = ev.turn_id;
            let kind = ev.kind;
            if !self.deliver_gated(ev, reg.as_deref(), ptr as *mut robota_session) {
                batch.clear();
                break;
            }
            if kind == events::TURN_COMPLETED {
                // The callback returned: every event of the turn reached the host.
                completed.push(turn);
            }
        }
        // Release the registration first: a host that frees the session as soon as `wait`
        // returns then gets its `free_fn` called inside `robota_session_free`.
        drop(reg);
        if !completed.is_empty() {
            let mut st = self.lock();
            let mut sleeping = false;
            for turn in completed {
                sleeping |= self.mark_delivered(&mut st, turn);
            }
            drop(st);
            self.wake_delivered(sleeping);
        }
    }

    /// Pump mode: delivers up to `max` events (`<= 0` = all queued) on this thread, waiting up
    /// to `timeout_ms` (`-1` = forever) for the first one. Returns how many were delivered.
    pub(crate) fn dispatch(&self, max: i32, timeout_ms: i32) -> Result<i32, SdkError> {
        if self.mode != Delivery::Pump {
            return Err(err(
                ErrorCode::Unsupported,
                format!("robota_session_dispatch needs \"delivery\": \"pump\" (this session uses \"{}\")", self.mode.as_str()),
            ));
        }
        refuse_in_callback("robota_session_dispatch")?;
        let mut st = self.lock();
        if st.dispatching {
            return Err(err(
                ErrorCode::Busy,
                "another thread is already dispatching this session",
            ));
        }
        st.dispatching = true;
        let deadline = deadline_of(timeout_ms);
        let mut count: i32 = 0;
        loop {
            if st.detached || (max > 0 && count >= max) {
                break;
            }
            if st.events.is_empty() {
                if count > 0 {
                    break;
                }
                match wait_step(&self.cond, st, deadline, waiters) {
                    (s, true) => {
                        st = s;
                        continue;
                    }
                    (s, false) => {
                        st = s;
                        break;
                    }
                }
            }
            let Some(ev) = st.events.pop_front() else {
                continue;
            };
            let reg = st.reg.clone();
            let ptr = st.session_ptr;
            drop(st);
            let delivered = self.deliver_gated(ev, reg.as_deref(), ptr as *mut robota_session);
            st = self.lock();
            if !delivered {
                break;
            }
            count += 1;
        }
        st.dispatching = false;
        Ok(count)
    }

    /// Pull mode: the next event as JSON, waiting up to `timeout_ms` (`-1` = forever).
    pub(crate) fn next_event(&self, timeout_ms: i32) -> Result<String, SdkError> {
        if self.mode != Delivery::Pull {
            return Err(err(
                ErrorCode::Unsupported,
                format!("robota_session_next_event needs \"delivery\": \"pull\" (this session uses \"{}\")", self.mode.as_str()),
            ));
        }
        if timeout_ms != 0 {
            refuse_in_callback("robota_session_next_event with a timeout")?;
        }
        let deadline = deadline_of(timeout_ms);
        let mut st = self.lock();
        loop {
            if let Some(ev) = st.events.pop_front() {
                if ev.kind == events::SESSION_CLOSED {
                    st.closed_taken = true;
                }
                drop(st);
                return Ok(ev.to_pull_text());
            }
            if st.closed_taken || st.detached {
                return Err(err(
                    ErrorCode::Closed,
                    "the session is closed; no more events",
                ));
            }
            match wait_step(&self.cond, st, deadline, waiters) {
                (s, true) => st = s,
                (_, false) => {
                    return Err(err(
                        ErrorCode::Timeout,
                        "no event arrived within the timeout",
                    ))
                }
            }
        }
    }

    /// Delivers one event unless delivery was detached. Checking the gate and marking the
    /// callback as started is one atomic step, so once [`Self::detach`] has returned no new
    /// callback can start (one already running may finish). Returns false when detached.
    fn deliver_gated(
        &self,
        ev: Event,
        reg: Option<&EventReg>,
        session: *mut robota_session,
    ) -> bool {
        use std::sync::atomic::Ordering;
        if self
            .gate
            .compare_exchange(GATE_OPEN, GATE_CALLING, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return false;
        }
        if ev.kind == events::HOST_IO {
            robota_engine::sdk::host::io_handler::deliver(&self.shared, session as usize, ev);
        } else {
            deliver(ev, reg, session);
        }
        // Fails only when `detach` closed the gate meanwhile; it stays closed then.
        let _ = self.gate.compare_exchange(
            GATE_CALLING,
            GATE_OPEN,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        true
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

    /// Stops delivery for good: drops queued events and the callback registration (its
    /// `free_fn` runs now, or after an in-flight callback returns).
    pub(crate) fn detach(&self) {
        let (reg, waiters, delivery_waiters) = {
            let mut st = self.lock();
            self.gate
                .store(GATE_CLOSED, std::sync::atomic::Ordering::Release);
            st.detached = true;
            st.events.clear();
            (st.reg.take(), st.waiters, st.delivery_waiters)
        };
        // Only counted waiters can be asleep: the others see `detached` before they wait
        // (a wake-up without a waiter is still a system call).
        if waiters > 0 {
            self.cond.notify_all();
        }
        if delivery_waiters > 0 {
            self.delivered_cond.0.notify_all();
        }
        drop(reg);
    }
}

/// The condition variable `robota_session_wait` sleeps on until its turn was handed over; a
/// wake-up of it can wait for the end of the turn that handed it over (`wake_batch`).
struct DeliveredSignal(Condvar);

impl DeferredWake for DeliveredSignal {
    fn wake_now(self: Arc<Self>) {
        self.0.notify_all();
    }
}

impl DeferredWake for Queue {
    /// The wake-up [`Queue::push`] deferred: starts the dispatcher (`thread`; `inline` drains
    /// the queue right here when this is the end of a worker's poll outside any callback,
    /// where the worker holds nothing) or wakes the threads waiting for events (`pump`/`pull`).
    fn wake_now(self: Arc<Self>) {
        match self.mode {
            Delivery::Inline if wake_batch::at_poll_end() && !in_callback() => self.drain(),
            Delivery::Thread | Delivery::Inline => self.start_dispatcher(),
            Delivery::Pump | Delivery::Pull => {
                self.lock().wake_pending = false;
                self.cond.notify_all();
            }
        }
    }
}

const GATE_OPEN: u8 = 0;
const GATE_CALLING: u8 = 1;
const GATE_CLOSED: u8 = 2;

/// The deadline of a C timeout (`-1` or any negative value = none).
pub(crate) fn deadline_of(timeout_ms: i32) -> Option<Instant> {
    if timeout_ms < 0 {
        None
    } else {
        Some(Instant::now() + Duration::from_millis(u64::from(timeout_ms.unsigned_abs())))
    }
}

fn waiters(st: &mut QState) -> &mut u32 {
    &mut st.waiters
}

fn delivery_waiters(st: &mut QState) -> &mut u32 {
    &mut st.delivery_waiters
}

/// Waits once on `cond`, counted in the `count` field (a signal is only sent when somebody
/// waits); returns the guard and whether waiting may continue.
fn wait_step<'a>(
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
