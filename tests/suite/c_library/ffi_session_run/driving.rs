//! `robota_session_run` driving the turn: on the calling thread, with thread delivery, over
//! HTTP on a kept connection, with a real process, and ended by freeing the session.

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use robota::ffi::*;
use serde_json::Value;

use super::{kinds, on_event, runtime_for, session, take, text_of, Handle, Seen, ADD_TWICE};
use crate::support::fake_server::{FakeServer, Reply};
use crate::support::fake_wire::Turn;
use crate::support_ffi::{comparable, run_turn, session_with_events, submit};

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
