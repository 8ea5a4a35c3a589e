//! ABI v1.2 through the exported C functions: `ROBOTA_EVENT_REQUEST_CANCELLED` for each host
//! request kind ([`request_cancelled`]), `robota_session_abort` of one turn ([`abort_turns`]),
//! the result documents of `robota_session_run_result` / `robota_session_wait_result` and the
//! status of `robota_session_wait(0)` ([`turn_results`]), and the user's `MESSAGE` before any
//! model request ([`message_order`]).

mod abort_turns;
mod message_order;
mod request_cancelled;
mod turn_results;

use std::ffi::CStr;
use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support_ffi::{c, failure, runtime, session_new, Failure};

/// A runtime whose scripted model calls `Write` once, then answers "done"; with the host tool
/// `add` (answered through `ROBOTA_EVENT_TOOL_CALL`).
fn scripted_runtime(first_call: Value) -> *mut robota_runtime {
    let rt = runtime(
        &json!({"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"tool_calls":[first_call]}, {"text":"done"}]}}})
        .to_string(),
    );
    let tool = r#"{"name":"add","description":"adds","timeout_ms":0,"input_schema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}}"#;
    let mut e = null_mut();
    let st = robota_runtime_register_tool(rt, c(tool).as_ptr(), None, null_mut(), None, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    rt
}

/// The scripted model's first call: `Write out.txt`.
fn write_call() -> Value {
    json!({"name":"Write","arguments":{"filePath":"out.txt","content":"hi"}})
}

/// A pull session of provider `s` in `dir` with `extra` fields.
fn pull_session(
    rt: *mut robota_runtime,
    dir: &std::path::Path,
    extra: Value,
) -> *mut robota_session {
    let mut cfg = json!({"v":1,"provider":"s","model":"m","cwd":dir,"tools":["Write"],
                         "permission_mode":"default","delivery":"pull"});
    if let (Value::Object(m), Value::Object(x)) = (&mut cfg, extra) {
        m.extend(x);
    }
    session_new(rt, &cfg.to_string()).unwrap()
}

/// The `type`s of `events`.
fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// Takes a string the library wrote (NULL = `None`).
fn take_string(p: *mut std::ffi::c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string the library owns; freed right after.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    robota_string_free(p);
    Some(s)
}

/// `robota_session_wait_result`: the status (as `Err` with its message) and the document.
fn wait_result(
    s: *mut robota_session,
    turn: u64,
    timeout_ms: i32,
) -> (Result<(), Failure>, Option<Value>) {
    let mut doc = null_mut();
    let mut e = null_mut();
    let st = robota_session_wait_result(s, turn, timeout_ms, &mut doc, &mut e);
    let doc = take_string(doc).map(|d| serde_json::from_str(&d).unwrap());
    match st {
        ROBOTA_OK => (Ok(()), doc),
        st => (Err(failure(st, e)), doc),
    }
}

/// `robota_session_wait`: `Err` with the status and message on failure.
fn wait(s: *mut robota_session, turn: u64) -> Result<(), Failure> {
    let mut e = null_mut();
    match robota_session_wait(s, turn, 30_000, &mut e) {
        ROBOTA_OK => Ok(()),
        st => Err(failure(st, e)),
    }
}
