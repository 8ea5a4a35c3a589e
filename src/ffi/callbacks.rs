//! Host callback registrations. Each owns `user_data` and calls its `free_fn` exactly once,
//! when the last reference goes (after the last callback, which holds a reference while it runs).

use std::cell::Cell;
use std::ffi::{c_char, c_void};

use super::handles::robota_session;
use crate::sdk::events::{self, Event, Payload};

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
pub fn in_callback() -> bool {
    DEPTH.with(|d| d.get() > 0)
}

/// Marks this thread as inside a callback for the guard's lifetime.
pub struct CallbackScope;

impl CallbackScope {
    /// Enters.
    pub fn enter() -> Self {
        DEPTH.with(|d| d.set(d.get() + 1));
        CallbackScope
    }
}

impl Drop for CallbackScope {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// `user_data` + `free_fn`, freed once on drop unless disarmed.
pub struct Owned {
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    armed: bool,
}

// SAFETY: the ABI requires hosts to pass `user_data` that may be used from any thread (callbacks
// run on library threads); the library never dereferences it.
unsafe impl Send for Owned {}
// SAFETY: as above; only the pointer value is shared.
unsafe impl Sync for Owned {}

impl Owned {
    /// Wraps a registration.
    pub fn new(user_data: *mut c_void, free_fn: robota_free_fn) -> Self {
        Owned {
            user_data,
            free_fn,
            armed: true,
        }
    }

    /// The pointer.
    pub fn user_data(&self) -> *mut c_void {
        self.user_data
    }

    /// Registration failed: ownership stays with the caller, `free_fn` is not called.
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if let Some(f) = self.free_fn {
            let _scope = CallbackScope::enter();
            // SAFETY: `free_fn` was supplied with `user_data` for exactly this call, made once.
            unsafe { f(self.user_data) };
        }
    }
}

/// An event callback registration.
pub struct EventReg {
    /// Callback.
    pub f: robota_event_fn,
    /// Data.
    pub owned: Owned,
}

/// A tool callback registration.
pub struct ToolReg {
    /// Callback.
    pub f: robota_tool_fn,
    /// Data.
    pub owned: Owned,
}

/// A log callback registration.
pub struct LogReg {
    /// Callback.
    pub f: robota_log_fn,
    /// Data.
    pub owned: Owned,
}

impl EventReg {
    /// Calls the event callback; `payload` must end with a NUL byte not counted in the length.
    pub fn call(&self, session: *mut robota_session, kind: u32, turn_id: u64, payload: &[u8]) {
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

impl ToolReg {
    /// Calls the tool callback; strings must be NUL-terminated.
    pub fn call(&self, session: *mut robota_session, call_id: u64, name: &[u8], input: &[u8]) {
        let Some(f) = self.f else { return };
        let _scope = CallbackScope::enter();
        // SAFETY: registered callback; both buffers NUL-terminated and alive for the call.
        unsafe {
            f(
                self.owned.user_data(),
                session,
                call_id,
                name.as_ptr().cast(),
                input.as_ptr().cast(),
                input.len().saturating_sub(1),
            )
        };
    }
}

impl LogReg {
    /// Calls the log callback.
    pub fn call(&self, level: i32, target: &str, message: &str) {
        let Some(f) = self.f else { return };
        let mut t = target.as_bytes().to_vec();
        t.push(0);
        let mut m = message.as_bytes().to_vec();
        m.push(0);
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

/// NUL-terminated bytes of a string.
pub fn nul_terminated(s: String) -> Vec<u8> {
    let mut v = s.into_bytes();
    v.push(0);
    v
}

/// Delivers one event through the callbacks (thread and pump modes).
pub fn deliver(ev: Event, reg: Option<&EventReg>, session: *mut robota_session) {
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
