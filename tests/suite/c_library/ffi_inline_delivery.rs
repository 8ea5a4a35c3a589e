//! `"delivery": "inline"` through the exported C functions, called as a C host would: the
//! callbacks run on the async worker that produced the events (not a dispatcher thread), a
//! host tool answered inside its callback needs no other thread, the events are exactly those
//! of `thread` delivery in the same order, wait means delivered, blocking calls inside a
//! callback are refused, and free inside a callback stops delivery.

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};

use crate::support_ffi::{
    answer_add, callback_args, comparable, runtime_with_add_for, session_new, session_with_events,
    submit, watched_ptr, AddHost, Watched,
};

/// What the callbacks saw.
type Seen = Watched<SeenState>;

#[derive(Default)]
struct SeenState {
    /// `(kind, payload)` of every event, in order.
    events: Vec<(u32, String)>,
    /// Names of the threads the event and tool callbacks ran on.
    threads: Vec<String>,
    /// Status of `robota_session_wait` called inside the first callback, when asked for.
    wait_inside: Option<i32>,
    probe_wait: bool,
    /// Free the session inside the first text delta's callback.
    free_on_delta: bool,
    /// While true, a `TURN_COMPLETED` callback blocks (entered = it is blocked now).
    hold_completed: bool,
    entered_completed: bool,
    /// Host tool calls not answered inside the callback (answered later by the test).
    later: Vec<u64>,
    answer_later: bool,
    rt: usize,
}

fn thread_name() -> String {
    std::thread::current().name().unwrap_or("").to_string()
}

unsafe extern "C" fn on_event(
    ud: *mut c_void,
    s: *mut robota_session,
    kind: u32,
    _turn: u64,
    p: *const c_char,
    n: usize,
) {
    // SAFETY: `ud` is the `Seen` the test passed and keeps alive past the session; the payload
    // is `n` readable bytes for the duration of the callback.
    let (seen, payload) = unsafe { callback_args::<Seen>(ud, p, n) };
    let mut st = seen.state.lock().unwrap();
    st.events
        .push((kind, String::from_utf8_lossy(payload).into_owned()));
    st.threads.push(thread_name());
    if std::mem::take(&mut st.probe_wait) {
        st.wait_inside = Some(robota_session_wait(s, 0, -1, null_mut()));
    }
    if kind == ROBOTA_EVENT_PERMISSION_REQUEST {
        // Approved inside the callback, as a host with a policy would.
        let req: serde_json::Value = serde_json::from_slice(payload).unwrap();
        let id = req["request_id"].as_u64().unwrap();
        let answer = cr#"{"decision":"allow","remember":false}"#;
        let rt = st.rt as *mut robota_runtime;
        assert_eq!(
            robota_request_respond(rt, id, answer.as_ptr(), null_mut()),
            ROBOTA_OK
        );
    }
    if kind == ROBOTA_EVENT_TEXT_DELTA && std::mem::take(&mut st.free_on_delta) {
        robota_session_free(s);
    }
    if kind == ROBOTA_EVENT_TURN_COMPLETED {
        st.entered_completed = true;
        seen.cond.notify_all();
        while st.hold_completed {
            st = seen.cond.wait(st).unwrap();
        }
    }
    seen.cond.notify_all();
}

impl AddHost for SeenState {
    fn runtime(&mut self) -> &mut usize {
        &mut self.rt
    }

    fn on_call(&mut self) {
        self.threads.push(thread_name());
    }

    fn defer(&mut self, call_id: u64) -> bool {
        if self.answer_later {
            self.later.push(call_id);
        }
        self.answer_later
    }
}

/// Two tool rounds of `add`, then a three-delta answer.
const ADD_TWICE: &str = r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
  {"text":"Adding.","tool_calls":[{"id":"c1","name":"add","arguments":{"a":1,"b":2}}]},
  {"tool_calls":[{"id":"c2","name":"add","arguments":{"a":3,"b":4}}]},
  {"deltas":["3 ","and ","7"]}]}}}"#;

fn runtime(seen: &Seen) -> *mut robota_runtime {
    runtime_with(ADD_TWICE, seen)
}

/// A runtime for `config` with the host tool `add` (its callback gets `seen`).
fn runtime_with(config: &str, seen: &Seen) -> *mut robota_runtime {
    runtime_with_add_for(config, Some(answer_add::<SeenState>), seen)
}

fn session(rt: *mut robota_runtime, seen: &Seen, delivery: &str) -> *mut robota_session {
    let json =
        format!(r#"{{"v":1,"provider":"s","model":"m","tools":["add"],"delivery":"{delivery}"}}"#);
    session_with_events(rt, &json, Some(on_event), watched_ptr(seen))
}

/// The text of the `TEXT_DELTA` events, in order.
fn text_of(events: &[(u32, String)]) -> String {
    events
        .iter()
        .filter(|e| e.0 == ROBOTA_EVENT_TEXT_DELTA)
        .map(|e| e.1.as_str())
        .collect()
}

/// Runs the two-round scenario with `delivery` (submit → wait → free) and returns what the
/// callbacks saw.
fn run(delivery: &str) -> SeenState {
    let seen = Seen::default();
    let rt = runtime(&seen);
    let s = session(rt, &seen, delivery);
    let turn = submit(s, "add please");
    assert_eq!(robota_session_wait(s, turn, 10_000, null_mut()), ROBOTA_OK);
    robota_session_free(s);
    robota_runtime_free(rt);
    let st = std::mem::take(&mut *seen.state.lock().unwrap());
    st
}

#[test]
fn inline_callbacks_run_on_the_worker_and_see_what_thread_delivery_sees() {
    let inline = run("inline");
    let thread = run("thread");
    assert!(
        inline.threads.iter().all(|t| t == "robota-worker"),
        "inline callbacks ran on {:?}",
        inline.threads
    );
    assert!(
        thread.threads.iter().all(|t| t == "robota-dispatch"),
        "thread callbacks ran on {:?}",
        thread.threads
    );
    let kinds: Vec<u32> = inline.events.iter().map(|e| e.0).collect();
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == ROBOTA_EVENT_PERMISSION_REQUEST)
            .count(),
        2,
        "each call was approved inside its callback"
    );
    // Two tool callbacks plus one per event.
    assert_eq!(inline.threads.len(), inline.events.len() + 2);
    assert_eq!(comparable(&inline.events), comparable(&thread.events));
    assert_eq!(kinds.first(), Some(&ROBOTA_EVENT_TURN_STARTED));
    assert_eq!(kinds.last(), Some(&ROBOTA_EVENT_TURN_COMPLETED));
    assert_eq!(text_of(&inline.events), "Adding.\n\n3 and 7");
    let tool_ends: Vec<serde_json::Value> = inline
        .events
        .iter()
        .filter(|e| e.0 == ROBOTA_EVENT_TOOL_END)
        .map(|e| serde_json::from_str(&e.1).unwrap())
        .collect();
    assert_eq!(tool_ends.len(), 2);
    assert_eq!(tool_ends[0]["output"], "3", "{}", tool_ends[0]);
    assert_eq!(tool_ends[1]["output"], "7", "{}", tool_ends[1]);
}

#[test]
fn a_tool_answered_after_its_inline_callback_returned_still_completes_the_turn() {
    let seen = Seen::default();
    seen.state.lock().unwrap().answer_later = true;
    let rt = runtime(&seen);
    let s = session(rt, &seen, "inline");
    let turn = submit(s, "add please");
    for (call, result) in [(0, c"3"), (1, c"7")] {
        let id = {
            let mut st = seen.state.lock().unwrap();
            while st.later.len() <= call {
                st = seen.cond.wait(st).unwrap();
            }
            st.later[call]
        };
        // From the test's own thread, after the callback returned.
        assert_eq!(
            robota_tool_call_complete(rt, id, result.as_ptr(), 0, null_mut()),
            ROBOTA_OK
        );
    }
    assert_eq!(robota_session_wait(s, turn, 10_000, null_mut()), ROBOTA_OK);
    let st = std::mem::take(&mut *seen.state.lock().unwrap());
    assert_eq!(text_of(&st.events), "Adding.\n\n3 and 7");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn wait_inside_an_inline_callback_is_refused_and_wait_means_delivered() {
    let seen = Seen::default();
    {
        let mut st = seen.state.lock().unwrap();
        st.probe_wait = true;
        st.hold_completed = true;
    }
    let rt = runtime(&seen);
    let s = session(rt, &seen, "inline");
    let turn = submit(s, "add please");
    {
        let mut st = seen.state.lock().unwrap();
        while !st.entered_completed {
            st = seen.cond.wait(st).unwrap();
        }
        assert_eq!(st.wait_inside, Some(ROBOTA_E_REENTRANT));
    }
    // TURN_COMPLETED's callback is still running on the worker: not delivered yet.
    assert_eq!(
        robota_session_wait(s, turn, 0, null_mut()),
        ROBOTA_E_TIMEOUT
    );
    seen.state.lock().unwrap().hold_completed = false;
    seen.cond.notify_all();
    assert_eq!(robota_session_wait(s, turn, -1, null_mut()), ROBOTA_OK);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn freeing_the_session_inside_an_inline_callback_stops_its_callbacks() {
    // One worker, and a second provider for a second session: once that session's turn was
    // delivered (inline, on the same worker), the first session's delivery on that worker has
    // ended, so every callback it would make has been made.
    let seen = Seen::default();
    let config = ADD_TWICE.replacen(
        r#"{"v":1,"providers":{"#,
        r#"{"v":1,"worker_threads":1,"providers":{"other":{"kind":"scripted","turns":[{"text":"x"}]},"#,
        1,
    );
    let rt = runtime_with(&config, &seen);
    seen.state.lock().unwrap().free_on_delta = true;
    let s = session(rt, &seen, "inline");
    submit(s, "add please");
    let other_seen = Seen::default();
    let mut other = null_mut();
    let json = cr#"{"v":1,"provider":"other","model":"m","delivery":"inline"}"#;
    assert_eq!(
        robota_session_new(
            rt,
            json.as_ptr(),
            Some(on_event),
            watched_ptr(&other_seen),
            None,
            &mut other,
            null_mut()
        ),
        ROBOTA_OK
    );
    {
        // The first session's free happened (its first delta's callback).
        let mut st = seen.state.lock().unwrap();
        while !st.events.iter().any(|e| e.0 == ROBOTA_EVENT_TEXT_DELTA) {
            st = seen.cond.wait(st).unwrap();
        }
    }
    let turn = submit(other, "hi");
    assert_eq!(
        robota_session_wait(other, turn, 10_000, null_mut()),
        ROBOTA_OK
    );
    robota_session_free(other);
    let st = std::mem::take(&mut *seen.state.lock().unwrap());
    let first_delta = st
        .events
        .iter()
        .position(|e| e.0 == ROBOTA_EVENT_TEXT_DELTA)
        .expect("a text delta was delivered");
    assert_eq!(
        st.events.len(),
        first_delta + 1,
        "callbacks after free: {:?}",
        &st.events[first_delta..]
    );
    assert_eq!(st.events[first_delta].1, "Adding.");
    robota_runtime_free(rt);
}

#[test]
fn an_unknown_delivery_names_the_four_modes() {
    let rt =
        crate::support_ffi::runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[]}}}"#);
    let Err(failure) = session_new(
        rt,
        r#"{"v":1,"provider":"s","model":"m","delivery":"worker"}"#,
    ) else {
        panic!("an unknown delivery is refused");
    };
    assert_eq!(
        (failure.status, failure.message.as_str()),
        (
            ROBOTA_E_INVALID_CONFIG,
            r#"session config: field "delivery" must be "thread", "inline", "pump" or "pull", got "worker""#
        )
    );
    robota_runtime_free(rt);
}
