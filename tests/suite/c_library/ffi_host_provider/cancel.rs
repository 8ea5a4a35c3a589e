//! Cancellation reaching the host: a subagent's call when its parent's turn is aborted, a call
//! of a session closed mid-call, and an abort while a retry waits (the failed call is not
//! cancelled again: it had ended).

use robota::ffi::*;
use serde_json::{json, Value};

use super::{last_text, register};
use crate::support_ffi::{events_until, runtime, session_new, submit};

fn pull_session(rt: *mut robota_runtime, tools: Value) -> *mut robota_session {
    let cfg = json!({"v":1,"provider":"local","model":"tiny","session_id":"parent","tools":tools,
                     "permission_mode":"bypassPermissions","delivery":"pull"});
    session_new(rt, &cfg.to_string()).unwrap()
}

/// The cancel documents the host got, with their call ids.
fn cancels(host: &super::Host) -> Vec<(u64, Value)> {
    host.docs()
        .into_iter()
        .filter(|(_, d)| d["type"] == "cancel")
        .collect()
}

#[test]
fn aborting_a_parent_cancels_its_subagents_call() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let host = register(rt, "local", None, |d| {
        if d["session_id"] != "parent" {
            return Vec::new(); // the child's call stays open
        }
        vec![
            json!({"type":"tool_call","id":"a1","name":"Agent",
                   "arguments":{"prompt":"sub-task","subagent_type":"Explore"}}),
            json!({"type":"done"}),
        ]
    });
    let s = pull_session(rt, json!(["Read", "Agent"]));
    submit(s, "delegate");
    host.wait_for(|d| d["type"] == "call" && d["session_id"] != "parent");
    assert_eq!(robota_session_abort(s, 1), ROBOTA_OK);
    let done = events_until(s, "turn_completed").pop().unwrap();
    assert_eq!(done["stop_reason"], "aborted");
    host.wait_for(|d| d["type"] == "cancel");
    let child = host
        .docs()
        .into_iter()
        .find(|(_, d)| d["type"] == "call" && last_text(d) == "sub-task");
    let (child_id, _) = child.unwrap();
    assert_eq!(
        cancels(&host),
        [(child_id, json!({"v":1,"type":"cancel","reason":"aborted"}))]
    );
    robota_session_free(s);
    robota_runtime_free(rt);
    assert_eq!(cancels(&host).len(), 1);
}

#[test]
fn closing_a_session_mid_call_cancels_it_as_session_closed() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let host = register(rt, "local", None, |_| Vec::new());
    let s = pull_session(rt, json!([]));
    submit(s, "hello");
    host.wait_for(|d| d["type"] == "call");
    assert_eq!(robota_session_close(s), ROBOTA_OK);
    let done = events_until(s, "turn_completed").pop().unwrap();
    assert_eq!(done["stop_reason"], "aborted");
    host.wait_for(|d| d["type"] == "cancel");
    assert_eq!(
        cancels(&host),
        [(1, json!({"v":1,"type":"cancel","reason":"session_closed"}))]
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn an_abort_during_a_retry_wait_ends_the_turn_without_another_call() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let host = register(rt, "local", None, |_| {
        vec![json!({"type":"error","class":"rate_limit","message":"slow","retry_after_ms":30000})]
    });
    let s = pull_session(rt, json!([]));
    submit(s, "hello");
    host.wait_for(|d| d["type"] == "call");
    let started = std::time::Instant::now();
    assert_eq!(robota_session_abort(s, 1), ROBOTA_OK);
    let done = events_until(s, "turn_completed").pop().unwrap();
    assert_eq!(done["stop_reason"], "aborted");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    robota_session_free(s);
    robota_runtime_free(rt);
    assert_eq!(host.calls().len(), 1);
    assert!(cancels(&host).is_empty());
}
