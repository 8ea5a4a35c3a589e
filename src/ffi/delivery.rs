//! Event delivery per session: `thread` (a dispatcher thread owned by the library, started
//! when events arrive and gone when the session is idle), `pump` (`robota_session_dispatch`)
//! and `pull` (`robota_session_next_event`). No lock is held while calling out.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::callbacks::{in_callback, nul_terminated, EventReg, ToolReg};
use super::handles::robota_session;
use super::status::err;
use crate::sdk::config::Delivery;
use crate::sdk::error::{ErrorCode, SdkError};
use crate::sdk::events::{self, Event, EventSink, Payload};
use crate::sdk::interactive::InteractiveSession;
use crate::sdk::runtime::{Runtime, RuntimeShared};

/// How long an idle dispatcher thread waits for more events before it exits.
const DISPATCHER_LINGER: Duration = Duration::from_millis(200);

#[derive(Default)]
struct QState {
    events: VecDeque<Event>,
    reg: Option<Arc<EventReg>>,
    dispatcher_running: bool,
    dispatching: bool,
    detached: bool,
    closed_queued: bool,
    closed_taken: bool,
    session_ptr: usize,
    /// Threads blocked on the condvar (a push only signals when somebody waits).
    waiters: u32,
}

/// A session's event queue.
pub struct Queue {
    mode: Delivery,
    /// Callback gate: open, calling or closed (see [`Queue::deliver_gated`]).
    gate: std::sync::atomic::AtomicU8,
    state: Mutex<QState>,
    cond: Condvar,
    shared: Arc<RuntimeShared>,
}

impl Queue {
    /// A queue for `mode` with an optional callback.
    pub fn new(
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
            shared,
        })
    }

    fn lock(&self) -> MutexGuard<'_, QState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The sink the session emits into.
    pub fn sink(self: &Arc<Self>) -> EventSink {
        let q = Arc::downgrade(self);
        Arc::new(move |ev: Event| {
            if let Some(q) = q.upgrade() {
                q.push(ev);
            }
        })
    }

    /// Sets the handle pointer passed to callbacks.
    pub fn set_session_ptr(&self, p: *mut robota_session) {
        self.lock().session_ptr = p as usize;
    }

    fn push(self: &Arc<Self>, ev: Event) {
        let mut st = self.lock();
        if st.detached || st.closed_queued {
            return;
        }
        if self.mode == Delivery::Thread
            && !st.reg.as_ref().is_some_and(|r| r.f.is_some())
            && !matches!(&ev.payload, Payload::ToolCall(c) if c.handler.is_some())
        {
            return;
        }
        if ev.kind == events::SESSION_CLOSED {
            st.closed_queued = true;
        }
        st.events.push_back(ev);
        match self.mode {
            Delivery::Thread => {
                if st.dispatcher_running {
                    let wake = st.waiters > 0;
                    drop(st);
                    if wake {
                        self.cond.notify_one();
                    }
                } else {
                    st.dispatcher_running = true;
                    drop(st);
                    let me = self.clone();
                    let spawned = std::thread::Builder::new()
                        .name("robota-dispatch".into())
                        .spawn(move || me.dispatcher_loop());
                    match spawned {
                        Ok(j) => self.shared.track_thread(j),
                        Err(_) => self.lock().dispatcher_running = false,
                    }
                }
            }
            Delivery::Pump | Delivery::Pull => {
                let wake = st.waiters > 0;
                drop(st);
                if wake {
                    self.cond.notify_all();
                }
            }
        }
    }

    fn dispatcher_loop(self: Arc<Self>) {
        let mut batch: VecDeque<Event> = VecDeque::new();
        loop {
            let (reg, ptr) = {
                let mut st = self.lock();
                let deadline = Instant::now() + DISPATCHER_LINGER;
                loop {
                    if st.detached {
                        st.dispatcher_running = false;
                        return;
                    }
                    if !st.events.is_empty() {
                        break;
                    }
                    let now = Instant::now();
                    if now >= deadline {
                        st.dispatcher_running = false;
                        return;
                    }
                    st.waiters += 1;
                    st = self
                        .cond
                        .wait_timeout(st, deadline - now)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                    st.waiters -= 1;
                }
                // Take everything queued at once: one lock round-trip per burst, not per event.
                std::mem::swap(&mut batch, &mut st.events);
                (st.reg.clone(), st.session_ptr)
            };
            while let Some(ev) = batch.pop_front() {
                if !self.deliver_gated(ev, reg.as_deref(), ptr as *mut robota_session) {
                    batch.clear();
                    break;
                }
            }
        }
    }

    /// Pump mode: delivers up to `max` events (`<= 0` = all queued) on this thread, waiting up
    /// to `timeout_ms` (`-1` = forever) for the first one. Returns how many were delivered.
    pub fn dispatch(&self, max: i32, timeout_ms: i32) -> Result<i32, SdkError> {
        if self.mode != Delivery::Pump {
            return Err(err(
                ErrorCode::Unsupported,
                format!("robota_session_dispatch needs \"delivery\": \"pump\" (this session uses \"{}\")", self.mode.as_str()),
            ));
        }
        if in_callback() {
            return Err(err(
                ErrorCode::Reentrant,
                "robota_session_dispatch was called from inside a callback",
            ));
        }
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
                match wait_step(&self.cond, st, deadline) {
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
    pub fn next_event(&self, timeout_ms: i32) -> Result<String, SdkError> {
        if self.mode != Delivery::Pull {
            return Err(err(
                ErrorCode::Unsupported,
                format!("robota_session_next_event needs \"delivery\": \"pull\" (this session uses \"{}\")", self.mode.as_str()),
            ));
        }
        if timeout_ms != 0 && in_callback() {
            return Err(err(
                ErrorCode::Reentrant,
                "robota_session_next_event with a timeout was called from inside a callback",
            ));
        }
        let deadline = deadline_of(timeout_ms);
        let mut st = self.lock();
        loop {
            if let Some(ev) = st.events.pop_front() {
                if ev.kind == events::SESSION_CLOSED {
                    st.closed_taken = true;
                }
                drop(st);
                return Ok(ev.to_pull_json().to_string());
            }
            if st.closed_taken || st.detached {
                return Err(err(
                    ErrorCode::Closed,
                    "the session is closed; no more events",
                ));
            }
            match wait_step(&self.cond, st, deadline) {
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
        deliver(ev, reg, session);
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
    pub fn detach(&self) {
        let reg = {
            let mut st = self.lock();
            self.gate
                .store(GATE_CLOSED, std::sync::atomic::Ordering::Release);
            st.detached = true;
            st.events.clear();
            st.reg.take()
        };
        self.cond.notify_all();
        drop(reg);
    }
}

const GATE_OPEN: u8 = 0;
const GATE_CALLING: u8 = 1;
const GATE_CLOSED: u8 = 2;

fn deadline_of(timeout_ms: i32) -> Option<Instant> {
    if timeout_ms < 0 {
        None
    } else {
        Some(Instant::now() + Duration::from_millis(u64::from(timeout_ms.unsigned_abs())))
    }
}

/// Waits once; returns the guard and whether waiting may continue.
fn wait_step<'a>(
    cond: &Condvar,
    st: MutexGuard<'a, QState>,
    deadline: Option<Instant>,
) -> (MutexGuard<'a, QState>, bool) {
    let mut st = st;
    match deadline {
        None => {
            st.waiters += 1;
            let mut g = cond.wait(st).unwrap_or_else(|p| p.into_inner());
            g.waiters -= 1;
            (g, true)
        }
        Some(d) => {
            let now = Instant::now();
            if now >= d {
                return (st, false);
            }
            st.waiters += 1;
            let mut g = cond
                .wait_timeout(st, d - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            g.waiters -= 1;
            (g, true)
        }
    }
}

/// Delivers one event through the callbacks (thread and pump modes).
fn deliver(ev: Event, reg: Option<&EventReg>, session: *mut robota_session) {
    let kind = ev.kind;
    let turn = ev.turn_id;
    match ev.payload {
        Payload::Text(t) => {
            if let Some(r) = reg {
                r.call(session, kind, turn, &nul_terminated(t));
            }
        }
        Payload::Json(v) => {
            if let Some(r) = reg {
                r.call(session, kind, turn, &nul_terminated(v.to_string()));
            }
        }
        Payload::ToolCall(c) => {
            let tool = c
                .handler
                .as_ref()
                .and_then(|h| h.clone().downcast::<ToolReg>().ok())
                .filter(|t| t.f.is_some());
            match tool {
                Some(t) => t.call(
                    session,
                    c.call_id,
                    &nul_terminated(c.tool_name.clone()),
                    &nul_terminated(c.input_json.clone()),
                ),
                None => {
                    if let Some(r) = reg {
                        let doc = events::tool_call_json(&c).to_string();
                        r.call(session, kind, turn, &nul_terminated(doc));
                    }
                }
            }
        }
    }
}

/// What a session handle holds.
pub struct SessionObj {
    /// The session.
    pub session: InteractiveSession,
    /// Its queue.
    pub queue: Arc<Queue>,
    /// Keeps the runtime alive.
    pub runtime: Arc<Runtime>,
}

impl Drop for SessionObj {
    fn drop(&mut self) {
        self.session.close();
        self.queue.detach();
    }
}
