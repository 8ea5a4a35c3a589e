//! `"delivery": "thread"` (the default) through the exported C functions, called as a C host
//! would: callbacks run on library dispatcher threads (never an async worker), and a callback
//! that blocks holds up no other session: another session's whole turn is delivered meanwhile,
//! and the blocked session's turn completes once its callback returns.

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;
use std::time::Duration;

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};

use crate::support_ffi::{
    answer_add, callback_args, messages, runtime_with_add_for, session_with_events, submit,
    watched_ptr, AddHost, Watched,
};

/// What the callbacks saw, and a gate that holds the tool callback (after it answered).
type Seen = Watched<SeenState>;

#[derive(Default)]
struct SeenState {
    text: String,
    /// `(thread name, thread id)` of every event and tool callback, in order.
    threads: Vec<(String, std::thread::ThreadId)>,
    /// While true, the tool callback blocks once it has answered (entered = it is blocked).
    hold_tool: bool,
    entered_tool: bool,
    rt: usize,
}

fn note_thread(st: &mut SeenState) {
    let t = std::thread::current();
    st.threads
        .push((t.name().unwrap_or("").to_string(), t.id()));
}

unsafe extern "C" fn on_event(
    ud: *mut c_void,
    _s: *mut robota_session,
    kind: u32,
    _turn: u64,
    p: *const c_char,
    n: usize,
) {
    // SAFETY: `ud` is the `Seen` the test passed and keeps alive past the session; the payload
    // is `n` readable bytes for the duration of the callback.
    let (seen, payload) = unsafe { callback_args::<Seen>(ud, p, n) };
    let mut st = seen.state.lock().unwrap();
    note_thread(&mut st);
    if kind == ROBOTA_EVENT_TEXT_DELTA {
        st.text.push_str(std::str::from_utf8(payload).unwrap());
    }
}

/// `s`: one round of the host tool `add`, then a two-delta answer; `t`: a plain answer.
const CONFIG: &str = r#"{"v":1,"providers":{
  "s":{"kind":"scripted","turns":[
    {"text":"Adding.","tool_calls":[{"id":"c1","name":"add","arguments":{"a":1,"b":2}}]},
    {"deltas":["it is ","3"]}]},
  "t":{"kind":"scripted","turns":[{"deltas":["other ","session"]}]}}}"#;

/// A runtime for [`CONFIG`] with the host tool `add` (its callback gets `seen`).
fn runtime(seen: &Seen) -> *mut robota_runtime {
    runtime_with_add_for(CONFIG, Some(answer_add::<SeenState>), seen)
}

impl AddHost for SeenState {
    fn runtime(&mut self) -> &mut usize {
        &mut self.rt
    }

    fn on_call(&mut self) {
        note_thread(self);
    }

    /// Blocks while `hold_tool` (entered = it is blocked).
    fn answered(seen: &Seen) {
        let mut st = seen.state.lock().unwrap();
        st.entered_tool = true;
        seen.cond.notify_all();
        while st.hold_tool {
            st = seen.cond.wait(st).unwrap();
        }
    }
}

/// A `thread`-delivery session (the default: no `"delivery"` field) on `provider`.
fn session(rt: *mut robota_runtime, seen: &Seen, provider: &str) -> *mut robota_session {
    let json = format!(
        r#"{{"v":1,"provider":"{provider}","model":"m","tools":["add"],"permission_mode":"bypassPermissions"}}"#
    );
    session_with_events(rt, &json, Some(on_event), watched_ptr(seen))
}

/// Roles of the session's history, in order.
fn roles(s: *mut robota_session) -> Vec<String> {
    messages(s)["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_blocking_callback_holds_up_no_other_session() {
    let (seen, other) = (Seen::default(), Seen::default());
    let rt = runtime(&seen);
    seen.state.lock().unwrap().hold_tool = true;
    let s = session(rt, &seen, "s");
    let turn = submit(s, "add please");
    {
        let st = seen.state.lock().unwrap();
        let (st, waited) = seen
            .cond
            .wait_timeout_while(st, Duration::from_secs(10), |st| !st.entered_tool)
            .unwrap();
        assert!(
            !waited.timed_out(),
            "the tool was never called: {:?}",
            st.text
        );
    }
    // The tool was answered inside its callback, which still runs: another session's whole
    // turn is delivered meanwhile, and this session's turn is not.
    let o = session(rt, &other, "t");
    let other_turn = submit(o, "hello");
    assert_eq!(
        robota_session_wait(o, other_turn, 10_000, null_mut()),
        ROBOTA_OK
    );
    assert_eq!(other.state.lock().unwrap().text, "other session");
    assert_eq!(
        robota_session_wait(s, turn, 0, null_mut()),
        ROBOTA_E_TIMEOUT
    );
    seen.state.lock().unwrap().hold_tool = false;
    seen.cond.notify_all();
    assert_eq!(robota_session_wait(s, turn, 10_000, null_mut()), ROBOTA_OK);
    assert_eq!(roles(s), ["user", "assistant", "tool", "assistant"]);
    let st = seen.state.lock().unwrap();
    assert_eq!(st.text, "Adding.\n\nit is 3");
    // Every callback ran on a library dispatcher thread, never on the test's or a worker.
    for t in [&st.threads, &other.state.lock().unwrap().threads] {
        assert!(
            t.iter().all(|t| t.0 == "robota-dispatch"),
            "callbacks ran on {t:?}"
        );
    }
    drop(st);
    robota_session_free(o);
    robota_session_free(s);
    robota_runtime_free(rt);
}
