//! Host callback registrations. Each owns `user_data` and calls its `free_fn` exactly once,
//! when the last reference goes (after the last callback, which holds a reference while it runs).

use std::cell::Cell;
use std::ffi::{c_char, c_void};

use super::handles::robota_session;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use robota_engine::core::log::LogSink;
use robota_engine::sdk::events::HostToolHandler;
use robota_engine::sdk::events::{self, Event, Payload, ToolCallPayload};

/// Releases `user_data`.
#[allow(non_camel_case_types)]
pub type robota_free_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// Receives session events. `payload` is borrowed for the call and NUL-terminated.
#[allow(non_camel_case_types)]
pub type robota_event_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        session: *mut robota_session,
        kind: u32,
        turn_id: u64,
        payload: *const c_char,
        payload_len: usize,
    ),
>;

/// Runs a host tool. Answer with `robota_tool_call_complete` (now or later, any thread).
#[allow(non_camel_case_types)]
pub type robota_tool_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        session: *mut robota_session,
        call_id: u64,
        tool_name: *const c_char,
        input_json: *const c_char,
        input_len: usize,
    ),
>;

/// Receives library log lines.
#[allow(non_camel_case_types)]
pub type robota_log_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        level: i32,
        target: *const c_char,
        message: *const c_char,
        message_len: usize,
    ),
>;

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// True while this thread runs a host callback.
pub(crate) fn in_callback() -> bool {
    DEPTH.with(|d| d.get() > 0)
}

/// `ROBOTA_E_REENTRANT` naming `call` when this thread runs a host callback (a blocking call
/// made there would wait for the very thread it blocks).
pub(crate) fn refuse_in_callback(call: &str) -> Result<(), robota_engine::sdk::error::SdkError> {
    if in_callback() {
        return Err(robota_engine::sdk::error::SdkError::new(
            robota_engine::sdk::error::ErrorCode::Reentrant,
            format!("{call} was called from inside a callback"),
        ));
    }
    Ok(())
}

/// Marks this thread as inside a callback for the guard's lifetime.
pub(crate) struct CallbackScope;

impl CallbackScope {
    /// Enters.
    pub(crate) fn enter() -> Self {
        DEPTH.with(|d| d.set(d.get() + 1));
        CallbackScope
    }
}

impl Drop for CallbackScope {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// `user_data` + `free_fn`, freed once on drop while armed. A registration is created
/// unarmed and armed once it succeeded, so a failed registration call never runs `free_fn`
/// (the caller still owns `user_data`).
pub(crate) struct Owned {
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    armed: AtomicBool,
}

// SAFETY: the ABI requires hosts to pass `user_data` that may be used from any thread (callbacks
// run on library threads); the library never dereferences it.
unsafe impl Send for Owned {}
// SAFETY: as above; only the pointer value is shared.
unsafe impl Sync for Owned {}

impl Owned {
    /// Wraps a registration, unarmed.
    pub(crate) fn new(user_data: *mut c_void, free_fn: robota_free_fn) -> Self {
        Owned {
            user_data,
            free_fn,
            armed: AtomicBool::new(false),
        }
    }

    /// The pointer.
    pub(crate) fn user_data(&self) -> *mut c_void {
        self.user_data
    }

    /// The registration succeeded: `free_fn` runs when the last reference goes.
    pub(crate) fn arm(&self) {
        self.armed.store(true, Ordering::Release);
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        if !self.armed.load(Ordering::Acquire) {
            return;
        }
        if let Some(f) = self.free_fn {
            let _scope = CallbackScope::enter();
            // SAFETY: `free_fn` was supplied with `user_data` for exactly this call, made once.
            unsafe { f(self.user_data) };
        }
    }
}

/// A session's event callback registration.
pub(crate) struct EventReg {
    /// The host's event function (NULL in `pull` delivery).
    pub(crate) f: robota_event_fn,
    /// Its `user_data` and `free_fn`.
    pub(crate) owned: Owned,
}

/// A host tool's callback registration.
pub(crate) struct ToolReg {
    f: robota_tool_fn,
    owned: Owned,
}

/// The process-wide log callback registration.
pub(crate) struct LogReg {
    f: robota_log_fn,
    owned: Owned,
}

impl EventReg {
    /// A registration, unarmed until [`Owned::arm`].
    pub(crate) fn new(f: robota_event_fn, user_data: *mut c_void, free_fn: robota_free_fn) -> Self {
        EventReg {
            f,
            owned: Owned::new(user_data, free_fn),
        }
    }
}

impl ToolReg {
    /// A registration, unarmed until [`ToolReg::arm`].
    pub(crate) fn new(f: robota_tool_fn, user_data: *mut c_void, free_fn: robota_free_fn) -> Self {
        ToolReg {
            f,
            owned: Owned::new(user_data, free_fn),
        }
    }

    /// The registration succeeded (see [`Owned::arm`]).
    pub(crate) fn arm(&self) {
        self.owned.arm();
    }
}

impl LogReg {
    /// A registration (armed: installing a log sink cannot fail).
    pub(crate) fn new(f: robota_log_fn, user_data: *mut c_void, free_fn: robota_free_fn) -> Self {
        let owned = Owned::new(user_data, free_fn);
        owned.arm();
        LogReg { f, owned }
    }

    /// The log sink calling this registration; `None` without a function (the registration
    /// is released at once then).
    pub(crate) fn into_sink(self) -> Option<LogSink> {
        self.f?;
        let reg = Arc::new(self);
        Some(Arc::new(move |level: i32, target: &str, msg: &str| {
            reg.call(level, target, msg)
        }))
    }
}

impl EventReg {
    /// Calls the event callback; `payload` must end with a NUL byte not counted in the length.
    pub(crate) fn call(
        &self,
        session: *mut robota_session,
        kind: u32,
        turn_id: u64,
        payload: &[u8],
    ) {
        let Some(f) = self.f else { return };
        let len = payload.len().saturating_sub(1);
        let _scope = CallbackScope::enter();
        // SAFETY: the host registered `f` for `user_data`; `payload` is NUL-terminated and
        // outlives the call; `session` is the handle the host received.
        unsafe {
            f(
                self.owned.user_data(),
                session,
                kind,
                turn_id,
                payload.as_ptr().cast(),
                len,
            )
        };
    }
}

impl HostToolHandler for ToolReg {
    fn call(&self, session: usize, c: &ToolCallPayload) -> bool {
        let Some(f) = self.f else { return false };
        let name = nul_copy(&c.tool_name);
        let input = nul_copy(&c.input_json);
        let _scope = CallbackScope::enter();
        // SAFETY: registered callback; both buffers NUL-terminated and alive for the call.
        unsafe {
            f(
                self.owned.user_data(),
                session as *mut robota_session,
                c.call_id,
                name.as_ptr().cast(),
                input.as_ptr().cast(),
                input.len().saturating_sub(1),
            )
        };
        true
    }
}

impl LogReg {
    /// Calls the log callback.
    fn call(&self, level: i32, target: &str, message: &str) {
        let Some(f) = self.f else { return };
        let t = nul_copy(target);
        let m = nul_copy(message);
        let _scope = CallbackScope::enter();
        // SAFETY: registered callback; both buffers NUL-terminated and alive for the call.
        unsafe {
            f(
                self.owned.user_data(),
                level,
                t.as_ptr().cast(),
                m.as_ptr().cast(),
                m.len() - 1,
            )
        };
    }
}

/// A NUL-terminated copy of `s`, allocated once at its final size.
pub(crate) fn nul_copy(s: &str) -> Vec<u8> {
    let mut v = Vec::with_capacity(s.len() + 1);
    v.extend_from_slice(s.as_bytes());
    v.push(0);
    v
}

/// `doc` as compact JSON text followed by a NUL, written straight into the buffer (no
/// `fmt::Write` round trip per piece, as `Value::to_string` makes).
pub(crate) fn json_nul_terminated(doc: &serde_json::Value) -> Vec<u8> {
    let mut buf = Vec::with_capacity(256);
    if serde_json::to_writer(&mut buf, doc).is_err() {
        // Writing a `Value` into memory cannot fail; keep the text form regardless.
        buf = doc.to_string().into_bytes();
    }
    buf.push(0);
    buf
}

/// Delivers one event through the callbacks (thread and pump modes).
pub(crate) fn deliver(ev: Event, reg: Option<&EventReg>, session: *mut robota_session) {
    let kind = ev.kind;
    let turn = ev.turn_id;
    match ev.payload {
        Payload::Text(mut t) => {
            if let Some(r) = reg {
                t.push('\0');
                r.call(session, kind, turn, t.as_bytes());
            }
            robota_engine::sdk::events::text_buffers::give_back(t);
        }
        Payload::Json(v) => {
            if let Some(r) = reg {
                r.call(session, kind, turn, &json_nul_terminated(&v));
            }
        }
        Payload::JsonText(d) => {
            if let Some(r) = reg {
                r.call(session, kind, turn, d.nul_terminated());
            }
        }
        Payload::ToolCall(c) => {
            let handled = c
                .handler
                .as_ref()
                .is_some_and(|h| h.call(session as usize, &c));
            if let (false, Some(r)) = (handled, reg) {
                let doc = events::tool_call_json(&c);
                r.call(session, kind, turn, &json_nul_terminated(&doc));
            }
        }
    }
}
