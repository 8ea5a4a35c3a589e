//! Driving the C ABI from Rust tests as a host would: runtimes and `pull`-delivery sessions
//! (no callbacks), events read as JSON, and errors read back as (status, message).

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::null_mut;

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};
use serde_json::Value;

/// What a callback's `user_data` points to, and its payload bytes (event payload or tool input).
///
/// # Safety
/// `ud` must point to a live `T` for `'a`, and `p` to `n` readable bytes for `'a` (the library
/// guarantees the payload for the duration of the callback).
pub unsafe fn callback_args<'a, T>(
    ud: *mut c_void,
    p: *const c_char,
    n: usize,
) -> (&'a T, &'a [u8]) {
    // SAFETY: the caller's contract above.
    unsafe {
        (
            &*(ud as *const T),
            std::slice::from_raw_parts(p.cast::<u8>(), n),
        )
    }
}

/// A failed call: its status and the error message.
#[derive(Debug, PartialEq)]
pub struct Failure {
    pub status: robota_status,
    pub message: String,
}

/// `s` as a C string (test inputs hold no NUL).
pub fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// Takes the error object a call wrote (if any) into a [`Failure`].
pub fn failure(status: robota_status, e: *mut robota_error) -> Failure {
    let msg = robota_error_message(e);
    let message = if msg.is_null() {
        String::new()
    } else {
        // SAFETY: a non-NULL message is NUL-terminated and valid until `robota_error_free`.
        unsafe { CStr::from_ptr(msg) }
            .to_string_lossy()
            .into_owned()
    };
    robota_error_free(e);
    Failure { status, message }
}

fn owned_string(p: *mut c_char) -> String {
    // SAFETY: the library wrote a NUL-terminated string it owns; we free it right after.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    robota_string_free(p);
    s
}

/// A runtime from its config JSON.
pub fn runtime(config: &str) -> *mut robota_runtime {
    let mut rt = null_mut();
    let mut e = null_mut();
    let st = robota_runtime_new(c(config).as_ptr(), &mut rt, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    rt
}

/// The host tool `add(a, b)` of the callback tests (integers in, their sum out).
pub const ADD_TOOL: &str = r#"{"name":"add","description":"adds","input_schema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}}"#;

/// A runtime from its config JSON with the host tool `add` ([`ADD_TOOL`]) answered by `f`,
/// which gets `ud`.
pub fn runtime_with_add(config: &str, f: robota_tool_fn, ud: *mut c_void) -> *mut robota_runtime {
    let rt = runtime(config);
    let mut e = null_mut();
    let st = robota_runtime_register_tool(rt, c(ADD_TOOL).as_ptr(), f, ud, None, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    rt
}

/// The answer of the host tool `add` to its input JSON `{"a","b"}`: the sum, as text.
pub fn add_answer(input: &[u8]) -> CString {
    let args: Value = serde_json::from_slice(input).unwrap();
    let sum = args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap();
    c(&sum.to_string())
}

/// What a test's callbacks record (`state`), with the condvar they signal when it changes.
#[derive(Default)]
pub struct Watched<T> {
    /// What the callbacks saw so far.
    pub state: std::sync::Mutex<T>,
    /// Signalled by the callbacks (and the test) when `state` changed.
    pub cond: std::sync::Condvar,
}

/// What the callbacks of a test answering the host tool `add` record: the runtime the answer
/// goes to, and (optionally) the calling thread and tool calls held for the test to answer.
pub trait AddHost: Send {
    /// The runtime (as an address) tool calls are answered on.
    fn runtime(&mut self) -> &mut usize;
    /// Called first in the tool callback (records the thread, for one).
    fn on_call(&mut self) {}
    /// True when `call_id` is held for the test to answer later instead of answered now.
    fn defer(&mut self, _call_id: u64) -> bool {
        false
    }
    /// Called last in the tool callback, once the call was answered (may block, holding the
    /// callback).
    fn answered(_seen: &Watched<Self>)
    where
        Self: Sized,
    {
    }
}

/// The tool callback of `add` for a [`Watched`] `T`: notes the call, then holds it
/// ([`AddHost::defer`], signalling the condvar) or answers it inside the callback (then
/// [`AddHost::answered`]).
///
/// # Safety
/// `ud` must point to the live `Watched<T>` the test registered, and `input` to `n` readable
/// bytes (the library guarantees both for the duration of the callback).
pub unsafe extern "C" fn answer_add<T: AddHost>(
    ud: *mut c_void,
    _s: *mut robota_session,
    call_id: u64,
    _name: *const c_char,
    input: *const c_char,
    n: usize,
) {
    // SAFETY: the caller's contract above.
    let (seen, input) = unsafe { callback_args::<Watched<T>>(ud, input, n) };
    let mut st = seen.state.lock().unwrap();
    st.on_call();
    if st.defer(call_id) {
        seen.cond.notify_all();
        return;
    }
    let result = add_answer(input);
    let rt = *st.runtime() as *mut robota_runtime;
    drop(st);
    assert_eq!(
        robota_tool_call_complete(rt, call_id, result.as_ptr(), 0, null_mut()),
        ROBOTA_OK
    );
    T::answered(seen);
}

/// A runtime for `config` with the host tool `add` answered by `f` (given `seen`, which learns
/// the runtime).
pub fn runtime_with_add_for<T: AddHost>(
    config: &str,
    f: robota_tool_fn,
    seen: &Watched<T>,
) -> *mut robota_runtime {
    let rt = runtime_with_add(config, f, watched_ptr(seen));
    *seen.state.lock().unwrap().runtime() = rt as usize;
    rt
}

/// `seen` as the `user_data` of a callback.
pub fn watched_ptr<T>(seen: &Watched<T>) -> *mut c_void {
    seen as *const Watched<T> as *mut c_void
}

/// `robota_session_new` with the event callback `f`, which gets `ud`.
pub fn session_with_events(
    rt: *mut robota_runtime,
    json: &str,
    f: robota_event_fn,
    ud: *mut c_void,
) -> *mut robota_session {
    open_with(|out, e| robota_session_new(rt, c(json).as_ptr(), f, ud, None, out, e))
        .unwrap_or_else(|f| panic!("robota_session_new: {f:?}"))
}

/// Opens a session with `open(out, out_error)`; `Err` holds the failure.
fn open_with(
    open: impl FnOnce(*mut *mut robota_session, *mut *mut robota_error) -> robota_status,
) -> Result<*mut robota_session, Failure> {
    let mut s = null_mut();
    let mut e = null_mut();
    match open(&mut s, &mut e) {
        ROBOTA_OK => Ok(s),
        st => Err(failure(st, e)),
    }
}

/// `robota_session_new` without a callback.
pub fn session_new(rt: *mut robota_runtime, json: &str) -> Result<*mut robota_session, Failure> {
    let j = c(json);
    open_with(|out, e| robota_session_new(rt, j.as_ptr(), None, null_mut(), None, out, e))
}

/// `robota_session_resume` without a callback.
pub fn session_resume(rt: *mut robota_runtime, json: &str) -> Result<*mut robota_session, Failure> {
    let j = c(json);
    open_with(|out, e| robota_session_resume(rt, j.as_ptr(), None, null_mut(), None, out, e))
}

/// `robota_session_fork` without a callback.
pub fn session_fork(s: *mut robota_session, json: &str) -> Result<*mut robota_session, Failure> {
    let j = c(json);
    open_with(|out, e| robota_session_fork(s, j.as_ptr(), None, null_mut(), None, out, e))
}

/// Runs `text` on the calling thread (`robota_session_run`); the turn id and the outcome.
pub fn run_turn(s: *mut robota_session, text: &str) -> (u64, Result<(), Failure>) {
    let input = serde_json::json!({ "text": text }).to_string();
    let mut turn = 0;
    let mut e = null_mut();
    let outcome = match robota_session_run(s, c(&input).as_ptr(), &mut turn, &mut e) {
        ROBOTA_OK => Ok(()),
        st => Err(failure(st, e)),
    };
    (turn, outcome)
}

/// The events with the parts that differ per run (ids, timestamps, durations) blanked.
pub fn comparable(events: &[(u32, String)]) -> Vec<(u32, serde_json::Value)> {
    fn blank(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if matches!(
                        k.as_str(),
                        "id" | "session_id"
                            | "request_id"
                            | "executionId"
                            | "timestamp"
                            | "duration_ms"
                            | "elapsed_ms"
                            | "started_at"
                            | "ended_at"
                    ) {
                        *x = serde_json::Value::Null;
                    } else {
                        blank(x);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(blank),
            _ => {}
        }
    }
    events
        .iter()
        .map(|(k, p)| {
            let mut v = match *k {
                ROBOTA_EVENT_TEXT_DELTA => serde_json::Value::String(p.clone()),
                _ => serde_json::from_str(p).unwrap(),
            };
            blank(&mut v);
            (*k, v)
        })
        .collect()
}

/// Submits `text` and returns the turn id.
pub fn submit(s: *mut robota_session, text: &str) -> u64 {
    let input = serde_json::json!({ "text": text }).to_string();
    let mut turn = 0;
    let mut e = null_mut();
    let st = robota_session_submit(s, c(&input).as_ptr(), &mut turn, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    turn
}

/// The next pull event (waits up to 30 s; panics when none came).
pub fn next_event(s: *mut robota_session) -> Value {
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_session_next_event(s, 30_000, &mut out, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    serde_json::from_str(&owned_string(out)).unwrap()
}

/// Pull events up to and including the first of type `until`.
pub fn events_until(s: *mut robota_session, until: &str) -> Vec<Value> {
    events_until_any(s, &[until])
}

/// Pull events up to and including the first whose type is one of `until`.
pub fn events_until_any(s: *mut robota_session, until: &[&str]) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let ev = next_event(s);
        let done = until.iter().any(|u| ev["type"] == *u);
        seen.push(ev);
        if done {
            return seen;
        }
    }
}

/// `robota_session_state` as JSON.
pub fn state(s: *mut robota_session) -> Value {
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_session_state(s, &mut out, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    serde_json::from_str(&owned_string(out)).unwrap()
}

/// `robota_session_save` as JSON.
pub fn save(s: *mut robota_session) -> Value {
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_session_save(s, &mut out, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    serde_json::from_str(&owned_string(out)).unwrap()
}

/// Answers request `id` with `json`.
pub fn respond(rt: *mut robota_runtime, id: u64, json: &str) {
    let mut e = null_mut();
    let st = robota_request_respond(rt, id, c(json).as_ptr(), &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
}

/// `robota_session_command` as JSON.
pub fn command(s: *mut robota_session, json: &str) -> Result<Value, Failure> {
    let mut out = null_mut();
    let mut e = null_mut();
    match robota_session_command(s, c(json).as_ptr(), &mut out, &mut e) {
        ROBOTA_OK => Ok(serde_json::from_str(&owned_string(out)).unwrap()),
        st => Err(failure(st, e)),
    }
}

/// `robota_store_list` as JSON (`query` None = NULL).
pub fn store_list(rt: *mut robota_runtime, query: Option<&str>) -> Result<Value, Failure> {
    let q = query.map(c);
    let mut out = null_mut();
    let mut e = null_mut();
    let qp = q.as_ref().map_or(std::ptr::null(), |q| q.as_ptr());
    match robota_store_list(rt, qp, &mut out, &mut e) {
        ROBOTA_OK => Ok(serde_json::from_str(&owned_string(out)).unwrap()),
        st => Err(failure(st, e)),
    }
}

/// `robota_store_delete`.
pub fn store_delete(rt: *mut robota_runtime, id: &str) -> Result<(), Failure> {
    let mut e = null_mut();
    match robota_store_delete(rt, c(id).as_ptr(), &mut e) {
        ROBOTA_OK => Ok(()),
        st => Err(failure(st, e)),
    }
}

/// `robota_session_messages` with `{"view":"history"}`: the timeline's entries.
pub fn history_entries(s: *mut robota_session) -> Vec<Value> {
    let mut out = null_mut();
    let mut e = null_mut();
    let q = c(r#"{"view":"history"}"#);
    let st = robota_session_messages(s, q.as_ptr(), &mut out, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    let v: Value = serde_json::from_str(&owned_string(out)).unwrap();
    v["entries"].as_array().cloned().unwrap_or_default()
}

/// `robota_session_messages` (conversation view) as JSON.
pub fn messages(s: *mut robota_session) -> Value {
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_session_messages(s, std::ptr::null(), &mut out, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    serde_json::from_str(&owned_string(out)).unwrap()
}

/// `robota_session_inject_message`.
pub fn inject(s: *mut robota_session, json: &str) -> Result<(), Failure> {
    let mut e = null_mut();
    match robota_session_inject_message(s, c(json).as_ptr(), &mut e) {
        ROBOTA_OK => Ok(()),
        st => Err(failure(st, e)),
    }
}
