//! Event delivery per session: `thread` (on one of the runtime's callback threads while the
//! session has events queued, see `sdk::runtime::callback_threads`), `inline` (on the async
//! worker that emitted them, at the end of its poll; from other threads as `thread`), `pump`
//! (`robota_session_dispatch`) and `pull` (`robota_session_next_event`). No lock is held while
//! calling out. The queue also records which turns' `TURN_COMPLETED` reached the host, for
//! `robota_session_wait`.
//!
//! Here: the queue, its push and the callback modes; `host_driven` has `pump` and `pull`,
//! `waiting` the handed-over turns and the counted waits, `inline` host I/O on a tool thread.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::callbacks::{deliver, in_callback, EventReg};
use super::delivered::DeliveredTurns;
use super::handles::robota_session;
use robota_engine::sdk::config::Delivery;
use robota_engine::sdk::events::{self, Event, EventSink, Payload};
use robota_engine::sdk::runtime::wake_batch::{self, DeferredWake};
use robota_engine::sdk::runtime::RuntimeShared;

mod host_driven;
mod inline;
#[cfg(test)]
mod tests;
mod waiting;

pub(crate) use waiting::deadline_of;
use waiting::DeliveredSignal;

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
