//! `robota_session_run` through the exported C functions, called as a C host would: the turn is
//! driven by the calling thread (with `inline` delivery every callback runs there), its events
//! are those of submit + wait, every event is delivered when it returns (also in `thread`
//! delivery), model streams come over HTTP on the caller's own kept connection, and the
//! refusals, aborts, queueing and provider failures report the documented statuses.

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;
use std::sync::Arc;
use std::thread::ThreadId;

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};
use serde_json::Value;

use crate::support::fake_server::{FakeServer, Reply};
use crate::support::fake_wire::Turn;
use crate::support_ffi::{
    answer_add, callback_args, comparable, messages, run_turn, runtime_with_add_for,
    session_with_events, submit, watched_ptr, AddHost, Watched,
};

type Seen = Watched<SeenState>;

#[derive(Default)]
struct SeenState {
    /// `(kind, payload)` of every event, in order.
    events: Vec<(u32, String)>,
    /// The threads the event and tool callbacks ran on.
    threads: Vec<ThreadId>,
    /// Tool calls the test answers itself (when `answer_later`).
    later: Vec<u64>,
    answer_later: bool,
    /// Status of `robota_session_run` called inside the next callback, when asked for.
    probe_run: bool,
    run_inside: Option<i32>,
    /// Free the session inside the first text delta's callback.
    free_on_delta: bool,
    rt: usize,
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
    st.threads.push(std::thread::current().id());
    if std::mem::take(&mut st.probe_run) {
        let input = c"{\"text\":\"nested\"}";
        st.run_inside = Some(robota_session_run(
            s,
            input.as_ptr(),
            null_mut(),
            null_mut(),
        ));
    }
    if kind == ROBOTA_EVENT_TEXT_DELTA && std::mem::take(&mut st.free_on_delta) {
        robota_session_free(s);
    }
    seen.cond.notify_all();
}

impl AddHost for SeenState {
    fn runtime(&mut self) -> &mut usize {
        &mut self.rt
    }

    fn on_call(&mut self) {
        self.threads.push(std::thread::current().id());
    }

    fn defer(&mut self, call_id: u64) -> bool {
        if self.answer_later {
            self.later.push(call_id);
        }
        self.answer_later
    }
}

/// Two tool rounds of `add`, then a three-delta answer; later turns echo the prompt.
const ADD_TWICE: &str = r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
  {"text":"Adding.","tool_calls":[{"id":"c1","name":"add","arguments":{"a":1,"b":2}}]},
  {"tool_calls":[{"id":"c2","name":"add","arguments":{"a":3,"b":4}}]},
  {"deltas":["3 ","and ","7"]}],"fallback":"echo"}}}"#;

/// A runtime for `config` with the host tool `add` answered by [`answer_add`].
fn runtime_for(config: &str, seen: &Seen) -> *mut robota_runtime {
    runtime_with_add_for(config, Some(answer_add::<SeenState>), seen)
}

fn session(
    rt: *mut robota_runtime,
    seen: &Seen,
    provider: &str,
    delivery: &str,
) -> *mut robota_session {
    let json = format!(
        r#"{{"v":1,"provider":"{provider}","model":"m","tools":["add"],"delivery":"{delivery}","permission_mode":"bypassPermissions"}}"#
    );
    session_with_events(rt, &json, Some(on_event), watched_ptr(seen))
}

fn text_of(events: &[(u32, String)]) -> String {
    events
        .iter()
        .filter(|e| e.0 == ROBOTA_EVENT_TEXT_DELTA)
        .map(|e| e.1.as_str())
        .collect()
}

fn kinds(events: &[(u32, String)]) -> Vec<u32> {
    events.iter().map(|e| e.0).collect()
}

/// What the callbacks saw so far (the runtime they answer on is kept).
fn take(seen: &Seen) -> SeenState {
    let mut st = seen.state.lock().unwrap();
    let rt = st.rt;
    let seen_so_far = std::mem::take(&mut *st);
    st.rt = rt;
    seen_so_far
}

/// A raw pointer that a test thread may carry (the ABI's handles are usable from any thread).
#[derive(Clone, Copy)]
struct Handle<T>(*mut T);
// SAFETY: robota's runtime and session handles may be used from any thread (ABI contract).
unsafe impl<T> Send for Handle<T> {}

#[test]
fn run_drives_the_turn_on_the_calling_thread_and_reports_what_submit_and_wait_report() {
    let by_run = {
        let seen = Seen::default();
        let rt = runtime_for(ADD_TWICE, &seen);
        let s = session(rt, &seen, "s", "inline");
        let (turn, outcome) = run_turn(s, "add please");
        outcome.unwrap();
        assert_eq!(turn, 1);
        robota_session_free(s);
        robota_runtime_free(rt);
        take(&seen)
    };
    let me = std::thread::current().id();
    // Every event and both tool calls, all on this thread.
    assert_eq!(by_run.threads.len(), by_run.events.len() + 2);
    assert!(
        by_run.threads.iter().all(|t| *t == me),
        "{:?}",
        by_run.threads
    );
    assert_eq!(text_of(&by_run.events), "Adding.\n\n3 and 7");
    assert_eq!(
        kinds(&by_run.events).first(),
        Some(&ROBOTA_EVENT_TURN_STARTED)
    );
    assert_eq!(
        kinds(&by_run.events).last(),
        Some(&ROBOTA_EVENT_TURN_COMPLETED)
    );

    let by_submit = {
        let seen = Seen::default();
        let rt = runtime_for(ADD_TWICE, &seen);
        let s = session(rt, &seen, "s", "inline");
        let turn = submit(s, "add please");
        assert_eq!(robota_session_wait(s, turn, -1, null_mut()), ROBOTA_OK);
        robota_session_free(s);
        robota_runtime_free(rt);
        take(&seen)
    };
    assert!(by_submit.threads.iter().all(|t| *t != me));
    assert_eq!(comparable(&by_run.events), comparable(&by_submit.events));
}

#[test]
fn with_thread_delivery_every_event_was_delivered_when_run_returns() {
    let seen = Seen::default();
    let rt = runtime_for(ADD_TWICE, &seen);
    let s = session(rt, &seen, "s", "thread");
    for (n, prompt, text) in [
        (1, "go", "Adding.\n\n3 and 7"),
        (2, "echo me", "offline:echo me"),
    ] {
        let (turn, outcome) = run_turn(s, prompt);
        outcome.unwrap();
        assert_eq!(turn, n);
        // No wait: what run returned after is already with the host.
        let st = take(&seen);
        assert_eq!(kinds(&st.events).last(), Some(&ROBOTA_EVENT_TURN_COMPLETED));
        assert_eq!(text_of(&st.events), text);
        let me = std::thread::current().id();
        assert!(
            st.threads.iter().all(|t| *t != me),
            "thread delivery keeps its threads"
        );
    }
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn run_streams_over_http_on_the_calling_thread_and_keeps_its_connection() {
    for kind in ["anthropic", "openai"] {
        let server = FakeServer::start();
        for _ in 0..2 {
            server.enqueue(Reply::for_kind(
                kind,
                &Turn::text(["Adding."]).tool("t1", "add", r#"{"a":2,"b":5}"#),
            ));
            server.enqueue(Reply::for_kind(kind, &Turn::text(["It ", "is ", "7."])));
        }
        let mut profile = server.provider_config(kind);
        profile["max_retries"] = 0.into();
        let config = serde_json::json!({"v":1,"providers":{"p":profile}}).to_string();
        let seen = Seen::default();
        let rt = runtime_for(&config, &seen);
        for round in 0..2 {
            let s = session(rt, &seen, "p", "inline");
            let (_, outcome) = run_turn(s, "add 2 and 5");
            outcome.unwrap_or_else(|f| panic!("{kind}: {f:?}"));
            robota_session_free(s);
            let st = take(&seen);
            assert_eq!(
                text_of(&st.events),
                "Adding.\n\nIt is 7.",
                "{kind} round {round}"
            );
            let me = std::thread::current().id();
            assert!(
                st.threads.iter().all(|t| *t == me),
                "{kind}: {:?}",
                st.threads
            );
            let done: Value = serde_json::from_str(&st.events.last().unwrap().1).unwrap();
            assert_eq!(done["stop_reason"], "complete", "{kind}: {done}");
        }
        let requests = server.requests();
        assert_eq!(requests.len(), 4, "{kind}");
        // The tool's answer went back to the model.
        assert!(
            requests[1].raw_body.contains('7'),
            "{kind}: {}",
            requests[1].raw_body
        );
        assert_eq!(
            server.connections(),
            1,
            "{kind}: one kept connection for both runs"
        );
        robota_runtime_free(rt);
    }
}

#[test]
fn run_is_refused_inside_a_callback_and_on_an_async_runtime() {
    let seen = Seen::default();
    let rt = runtime_for(ADD_TWICE, &seen);
    let s = session(rt, &seen, "s", "inline");
    seen.state.lock().unwrap().probe_run = true;
    run_turn(s, "add please").1.unwrap();
    assert_eq!(take(&seen).run_inside, Some(ROBOTA_E_REENTRANT));

    let tokio = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let h = Handle(s);
    let refused = tokio.block_on(async move {
        let h = h;
        run_turn(h.0, "from a task").1
    });
    let failure = refused.unwrap_err();
    assert_eq!(failure.status, ROBOTA_E_REENTRANT);
    assert!(
        failure.message.contains("robota_session_submit"),
        "{}",
        failure.message
    );
    // Nothing was submitted; the session still runs turns.
    let (turn, outcome) = run_turn(s, "again");
    outcome.unwrap();
    assert_eq!(turn, 2);
    let st = take(&seen);
    assert_eq!(text_of(&st.events), "offline:again", "{:?}", st.events);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn an_abort_from_another_thread_ends_run_with_aborted() {
    let seen = Arc::new(Seen::default());
    let rt = runtime_for(ADD_TWICE, &seen);
    let s = session(rt, &seen, "s", "inline");
    seen.state.lock().unwrap().answer_later = true;
    let (h, watcher) = (Handle(s), seen.clone());
    let aborter = std::thread::spawn(move || {
        let h = h;
        let mut st = watcher.state.lock().unwrap();
        while st.later.is_empty() {
            st = watcher.cond.wait(st).unwrap();
        }
        drop(st);
        assert_eq!(robota_session_abort(h.0, 0), ROBOTA_OK);
    });
    let (turn, outcome) = run_turn(s, "add please");
    aborter.join().unwrap();
    assert_eq!(turn, 1);
    assert_eq!(outcome.unwrap_err().status, ROBOTA_E_ABORTED);
    let st = take(&seen);
    let done: Value = serde_json::from_str(&st.events.last().unwrap().1).unwrap();
    assert_eq!(st.events.last().unwrap().0, ROBOTA_EVENT_TURN_COMPLETED);
    assert_eq!(done["stop_reason"], "aborted");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn a_prompt_run_while_a_turn_runs_is_queued_and_run_returns_after_its_own_turn() {
    let seen = Arc::new(Seen::default());
    let rt = runtime_for(ADD_TWICE, &seen);
    let s = session(rt, &seen, "s", "inline");
    seen.state.lock().unwrap().answer_later = true;
    let first = submit(s, "add please");
    let id = {
        let mut st = seen.state.lock().unwrap();
        while st.later.is_empty() {
            st = seen.cond.wait(st).unwrap();
        }
        st.later[0]
    };
    let h = Handle(s);
    let runner = std::thread::spawn(move || {
        let h = h;
        run_turn(h.0, "then this")
    });
    // The queued prompt shows in the state while the first turn waits for its tool.
    let queued = loop {
        let mut out = null_mut();
        assert_eq!(robota_session_state(s, &mut out, null_mut()), ROBOTA_OK);
        // SAFETY: a NUL-terminated string the library allocated; freed below.
        let state: Value =
            serde_json::from_str(unsafe { std::ffi::CStr::from_ptr(out) }.to_str().unwrap())
                .unwrap();
        robota_string_free(out);
        if !state["queued_turn"].is_null() {
            break state["queued_turn"].clone();
        }
        std::thread::yield_now();
    };
    assert_eq!(queued, 2);
    seen.state.lock().unwrap().answer_later = false;
    assert_eq!(
        robota_tool_call_complete(rt, id, c"3".as_ptr(), 0, null_mut()),
        ROBOTA_OK
    );
    let (turn, outcome) = runner.join().unwrap();
    outcome.unwrap();
    assert_eq!((first, turn), (1, 2));
    let st = take(&seen);
    let completed: Vec<Value> = st
        .events
        .iter()
        .filter(|e| e.0 == ROBOTA_EVENT_TURN_COMPLETED)
        .map(|e| serde_json::from_str(&e.1).unwrap())
        .collect();
    assert_eq!(
        completed.len(),
        2,
        "both turns were delivered when run returned"
    );
    assert_eq!(completed[0]["turn_id"], 1);
    assert_eq!(completed[1]["turn_id"], 2);
    assert_eq!(completed[1]["response"], "offline:then this");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn bad_arguments_and_a_failing_provider_report_their_status_and_keep_the_history() {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind("anthropic", &Turn::text(["first"])));
    server.enqueue(Reply::error(
        500,
        r#"{"type":"error","error":{"type":"api_error","message":"overloaded here"}}"#,
    ));
    server.enqueue(Reply::for_kind("anthropic", &Turn::text(["third"])));
    let mut profile = server.provider_config("anthropic");
    profile["max_retries"] = 0.into();
    let config = serde_json::json!({"v":1,"providers":{"p":profile}}).to_string();
    let seen = Seen::default();
    let rt = runtime_for(&config, &seen);
    let s = session(rt, &seen, "p", "inline");

    assert_eq!(
        robota_session_run(null_mut(), c"{}".as_ptr(), null_mut(), null_mut()),
        ROBOTA_E_NULL_ARG
    );
    let gone = session(rt, &seen, "p", "inline");
    robota_session_free(gone);
    assert_eq!(
        robota_session_run(gone, c"{}".as_ptr(), null_mut(), null_mut()),
        ROBOTA_E_INVALID_HANDLE
    );
    assert_eq!(
        robota_session_run(s, std::ptr::null(), null_mut(), null_mut()),
        ROBOTA_E_NULL_ARG
    );
    let mut e = null_mut();
    assert_eq!(
        robota_session_run(s, c"{\"text\":".as_ptr(), null_mut(), &mut e),
        ROBOTA_E_INVALID_JSON
    );
    robota_error_free(e);

    run_turn(s, "one").1.unwrap();
    let (turn, outcome) = run_turn(s, "two");
    assert_eq!(turn, 2, "the id is written on failure too");
    let failure = outcome.unwrap_err();
    assert_eq!(failure.status, ROBOTA_E_PROVIDER);
    assert!(
        failure.message.contains("overloaded here"),
        "{}",
        failure.message
    );
    run_turn(s, "three").1.unwrap();
    let texts: Vec<String> = messages(s)["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["content"].to_string())
        .collect();
    assert!(
        texts.first().is_some_and(|t| t.contains("first")),
        "{texts:?}"
    );
    assert!(
        texts.last().is_some_and(|t| t.contains("third")),
        "{texts:?}"
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn a_driven_turn_runs_a_real_process_and_takes_a_tool_answer_from_another_thread() {
    let config = r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
      {"tool_calls":[{"id":"b1","name":"Bash","arguments":{"command":"echo driven; echo on >&2"}}]},
      {"tool_calls":[{"id":"c1","name":"add","arguments":{"a":20,"b":22}}]},
      {"text":"done"}]}}}"#;
    let seen = Arc::new(Seen::default());
    let rt = runtime_for(config, &seen);
    let dir = tempfile::tempdir().unwrap();
    let json = format!(
        r#"{{"v":1,"provider":"s","model":"m","tools":["Bash","add"],"delivery":"inline","permission_mode":"bypassPermissions","cwd":{}}}"#,
        serde_json::to_string(dir.path().to_str().unwrap()).unwrap()
    );
    let s = session_with_events(
        rt,
        &json,
        Some(on_event),
        &*seen as *const Seen as *mut c_void,
    );
    seen.state.lock().unwrap().answer_later = true;
    let watcher = seen.clone();
    let rt_h = Handle(rt);
    let answerer = std::thread::spawn(move || {
        let rt_h = rt_h;
        let mut st = watcher.state.lock().unwrap();
        while st.later.is_empty() {
            st = watcher.cond.wait(st).unwrap();
        }
        let id = st.later[0];
        drop(st);
        assert_eq!(
            robota_tool_call_complete(rt_h.0, id, c"42".as_ptr(), 0, null_mut()),
            ROBOTA_OK
        );
    });
    let (_, outcome) = run_turn(s, "go");
    answerer.join().unwrap();
    outcome.unwrap();
    let st = take(&seen);
    let outputs: Vec<Value> = st
        .events
        .iter()
        .filter(|e| e.0 == ROBOTA_EVENT_TOOL_END)
        .map(|e| serde_json::from_str::<Value>(&e.1).unwrap()["output"].clone())
        .collect();
    assert_eq!(outputs.len(), 2, "{:?}", st.events);
    let bash = outputs[0].as_str().unwrap();
    assert!(bash.contains("driven") && bash.contains("on"), "{bash}");
    assert_eq!(outputs[1], "42");
    assert_eq!(text_of(&st.events), "done");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn freeing_the_session_inside_a_driven_callback_ends_run() {
    let seen = Seen::default();
    let rt = runtime_for(ADD_TWICE, &seen);
    let s = session(rt, &seen, "s", "inline");
    seen.state.lock().unwrap().free_on_delta = true;
    let (turn, outcome) = run_turn(s, "add please");
    assert_eq!(turn, 1);
    // The turn stopped with the session: run returned (no hang) with the abort's status.
    assert_eq!(outcome.unwrap_err().status, ROBOTA_E_ABORTED);
    let st = take(&seen);
    assert_eq!(text_of(&st.events), "Adding.", "no callback after the free");
    robota_runtime_free(rt);
}
