//! `robota_session_abort(s, turn_id)` aborts that turn only: the queued turn alone (the
//! running one finishes with its exact result), the running turn alone (the queued one runs
//! next), both with 0; a finished turn is left alone and an id never issued is NOT_FOUND.

use robota::ffi::*;
use serde_json::{json, Value};

use super::{pull_session, scripted_runtime, types, wait, wait_result, write_call};
use crate::support_ffi::{events_until, respond, state, submit};

/// A session whose turn 1 waits on a permission request and whose turn 2 is queued behind it;
/// the request id.
fn running_and_queued(dir: &std::path::Path) -> (*mut robota_runtime, *mut robota_session, u64) {
    let rt = scripted_runtime(write_call());
    let s = pull_session(rt, dir, json!({}));
    assert_eq!(submit(s, "write it"), 1);
    let asked = events_until(s, "permission_request");
    let id = asked.last().unwrap()["request_id"].as_u64().unwrap();
    assert_eq!(submit(s, "second"), 2);
    (rt, s, id)
}

#[test]
fn aborting_the_queued_turn_drops_it_alone_and_the_running_one_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, s, id) = running_and_queued(dir.path());
    assert_eq!(robota_session_abort(s, 2), ROBOTA_OK);
    let dropped = events_until(s, "turn_completed");
    assert_eq!(types(&dropped), ["turn_completed"]);
    assert_eq!(dropped[0]["turn_id"], 2);
    assert_eq!(dropped[0]["stop_reason"], "aborted");
    assert_eq!(dropped[0]["started"], false);
    let st = state(s);
    assert_eq!(
        (st["current_turn"].clone(), st["queued_turn"].clone()),
        (json!(1), Value::Null)
    );
    respond(rt, id, r#"{"decision":"allow"}"#);
    let (outcome, doc) = wait_result(s, 1, 30_000);
    outcome.unwrap();
    let doc = doc.unwrap();
    assert_eq!(
        (doc["turn_id"].clone(), doc["stop_reason"].clone()),
        (json!(1), json!("complete"))
    );
    assert_eq!(doc["response"], "done");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "hi"
    );
    let failure = wait(s, 2).unwrap_err();
    assert_eq!(
        (failure.status, failure.message.as_str()),
        (ROBOTA_E_ABORTED, "turn 2 was aborted")
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn aborting_the_running_turn_keeps_the_queued_one_which_runs_next() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, s, _id) = running_and_queued(dir.path());
    assert_eq!(robota_session_abort(s, 1), ROBOTA_OK);
    let first = events_until(s, "turn_completed");
    assert_eq!(first.last().unwrap()["turn_id"], 1);
    assert_eq!(first.last().unwrap()["stop_reason"], "aborted");
    let (outcome, doc) = wait_result(s, 2, 30_000);
    outcome.unwrap();
    let doc = doc.unwrap();
    assert_eq!(
        (doc["turn_id"].clone(), doc["stop_reason"].clone()),
        (json!(2), json!("complete"))
    );
    assert_eq!(doc["response"], "done");
    let second = events_until(s, "turn_completed");
    assert_eq!(second[0]["type"], "turn_started");
    assert_eq!(second[0]["turn_id"], 2);
    assert_eq!(*second.last().unwrap(), doc);
    assert_eq!(wait(s, 1).unwrap_err().status, ROBOTA_E_ABORTED);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn abort_zero_stops_the_running_turn_and_drops_the_queued_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, s, _id) = running_and_queued(dir.path());
    assert_eq!(robota_session_abort(s, 0), ROBOTA_OK);
    for turn in [1, 2] {
        let (outcome, doc) = wait_result(s, turn, 30_000);
        assert_eq!(outcome.unwrap_err().status, ROBOTA_E_ABORTED);
        assert_eq!(doc.unwrap()["stop_reason"], "aborted");
    }
    let st = state(s);
    assert_eq!(
        (st["current_turn"].clone(), st["queued_turn"].clone()),
        (Value::Null, Value::Null)
    );
    // A finished turn: nothing happens; an id never issued: NOT_FOUND.
    assert_eq!(robota_session_abort(s, 1), ROBOTA_OK);
    assert_eq!(robota_session_abort(s, 3), ROBOTA_E_NOT_FOUND);
    robota_session_free(s);
    robota_runtime_free(rt);
}
