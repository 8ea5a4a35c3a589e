//! `robota_session_run` refused inside a callback and on an async runtime, aborted from another
//! thread, queued behind a running turn, and failing with bad arguments or provider.

use std::ptr::null_mut;
use std::sync::Arc;

use robota::ffi::*;
use serde_json::Value;

use super::{runtime_for, session, take, text_of, Handle, Seen, ADD_TWICE};
use crate::support::fake_server::{FakeServer, Reply};
use crate::support::fake_wire::Turn;
use crate::support_ffi::{messages, run_turn, submit};

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
