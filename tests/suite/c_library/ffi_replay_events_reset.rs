//! Through the C ABI: `"replay_events": true` adds `ROBOTA_EVENT_EXECUTION` replay boundary
//! events (and a session without it gets none), and the `reset` command answers
//! `{"resetRequested":true}` and leaves the session as it was.

use robota::ffi::{robota_runtime_free, robota_session_free, ROBOTA_EVENT_EXECUTION};
use serde_json::json;

use crate::support_ffi::{command, events_until, messages, runtime, session_new, submit};

const SCRIPT: &str = r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
    {"tool_calls":[{"id":"call_0","name":"Glob","arguments":{"pattern":"*.none"}}]},
    {"text":"done"}]}}}"#;

/// The `execution` events' names of one turn of a session with `replay_events` set as given.
fn execution_names(replay: bool) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime(SCRIPT);
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","delivery":"pull","cwd": dir.path(),"tools":["Glob"],
                "replay_events": replay})
        .to_string(),
    )
    .unwrap();
    submit(s, "go");
    let events = events_until(s, "turn_completed");
    robota_session_free(s);
    robota_runtime_free(rt);
    for e in events.iter().filter(|e| e["type"] == "execution") {
        assert_eq!(e["kind"], json!(ROBOTA_EVENT_EXECUTION));
        assert!(e["data"]["executionId"].is_string(), "{e}");
    }
    events
        .iter()
        .filter(|e| e["type"] == "execution")
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn replay_events_adds_the_execution_boundary_events_in_order() {
    assert!(execution_names(false).is_empty());
    let names = execution_names(true);
    assert_eq!(
        names,
        [
            "history_mutation",
            "provider_request",
            "provider_response_raw",
            "provider_response_normalized",
            "assistant_message_committed",
            "history_mutation",
            "tool_batch_started",
            "tool_execution_request",
            "tool_execution_result",
            "tool_message_committed",
            "history_mutation",
            "provider_request",
            "provider_stream_raw_delta",
            "provider_response_raw",
            "provider_response_normalized",
            "assistant_message_committed",
            "history_mutation",
        ]
    );
}

#[test]
fn reset_answers_reset_requested_and_changes_nothing() {
    let rt = runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[{"text":"hi"}]}}}"#);
    let s = session_new(
        rt,
        r#"{"v":1,"provider":"s","model":"m","delivery":"pull"}"#,
    )
    .unwrap();
    submit(s, "hello");
    events_until(s, "turn_completed");
    let before = messages(s);
    let out = command(s, r#"{"name":"reset"}"#).unwrap();
    assert_eq!(
        out,
        json!({"v":1,"message":"Reset requested.","success":true,"data":{"resetRequested":true}})
    );
    assert_eq!(messages(s), before);
    assert_eq!(
        before["messages"].as_array().map(Vec::len),
        Some(2),
        "{before}"
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}
