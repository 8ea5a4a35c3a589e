//! The result documents of `robota_session_run_result` and `robota_session_wait_result` (a
//! completed, failed and aborted turn, the 64 kept, bad arguments) and the status of
//! `robota_session_wait(s, 0, …)` after a failed turn.

use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use super::{pull_session, scripted_runtime, take_string, wait, wait_result, write_call};
use crate::support::fake_server::{FakeServer, Reply};
use crate::support_ffi::{c, events_until, failure, runtime, session_new, submit, Failure};

/// `robota_session_run_result`: the turn id, the status and the document.
fn run_result(s: *mut robota_session, text: &str) -> (u64, Result<(), Failure>, Option<Value>) {
    let input = json!({ "text": text }).to_string();
    let (mut turn, mut doc, mut e) = (0, null_mut(), null_mut());
    let st = robota_session_run_result(s, c(&input).as_ptr(), &mut turn, &mut doc, &mut e);
    let doc = take_string(doc).map(|d| serde_json::from_str(&d).unwrap());
    let outcome = match st {
        ROBOTA_OK => Ok(()),
        st => Err(failure(st, e)),
    };
    (turn, outcome, doc)
}

fn offline() -> (*mut robota_runtime, *mut robota_session) {
    let rt = runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#);
    let s = session_new(
        rt,
        r#"{"v":1,"provider":"s","model":"m","delivery":"pull"}"#,
    )
    .unwrap();
    (rt, s)
}

#[test]
fn run_result_writes_the_turn_completed_document() {
    let (rt, s) = offline();
    let (turn, outcome, doc) = run_result(s, "hi");
    outcome.unwrap();
    assert_eq!(turn, 1);
    let doc = doc.unwrap();
    let events = events_until(s, "turn_completed");
    assert_eq!(doc, *events.last().unwrap());
    assert_eq!(
        (
            doc["v"].clone(),
            doc["kind"].clone(),
            doc["type"].clone(),
            doc["turn_id"].clone()
        ),
        (json!(1), json!(16), json!("turn_completed"), json!(1))
    );
    assert_eq!(
        (doc["stop_reason"].clone(), doc["response"].clone()),
        (json!("complete"), json!("offline:hi"))
    );
    let (outcome, again) = wait_result(s, 1, 0);
    outcome.unwrap();
    assert_eq!(again.unwrap(), doc);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn a_failed_turn_has_its_document_and_wait_zero_reports_the_failure_once() {
    let server = FakeServer::start();
    server.enqueue(Reply::error(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad model"}}"#,
    ));
    let rt =
        runtime(&json!({"v":1,"providers":{"p": server.provider_config("anthropic")}}).to_string());
    let s = session_new(
        rt,
        r#"{"v":1,"provider":"p","model":"m","delivery":"pull","tools":[]}"#,
    )
    .unwrap();
    let (turn, outcome, doc) = run_result(s, "hi");
    let failure = outcome.unwrap_err();
    assert_eq!(failure.status, ROBOTA_E_PROVIDER);
    let doc = doc.unwrap();
    assert_eq!(doc, *events_until(s, "turn_completed").last().unwrap());
    assert_eq!(
        (doc["turn_id"].clone(), doc["stop_reason"].clone()),
        (json!(turn), json!("error"))
    );
    assert_eq!(
        failure.message,
        format!("turn 1 failed: {}", doc["error"].as_str().unwrap())
    );
    assert_eq!(doc["error_details"]["code"], "PROVIDER_ERROR");
    // run_result waited for turn 1: wait(0) has nothing left to report.
    wait(s, 0).unwrap();

    // A failure nobody waited for: wait(0) returns it, once.
    server.enqueue(Reply::error(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad model"}}"#,
    ));
    assert_eq!(submit(s, "again"), 2);
    let failure = wait(s, 0).unwrap_err();
    assert_eq!(failure.status, ROBOTA_E_PROVIDER);
    assert!(
        failure.message.starts_with("turn 2 failed: "),
        "{}",
        failure.message
    );
    wait(s, 0).unwrap();
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn an_aborted_turn_has_its_document_and_wait_zero_returns_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let rt = scripted_runtime(write_call());
    let s = pull_session(rt, dir.path(), json!({}));
    let turn = submit(s, "write it");
    events_until(s, "permission_request");
    assert_eq!(robota_session_abort(s, turn), ROBOTA_OK);
    let failure = wait(s, 0).unwrap_err();
    assert_eq!(
        (failure.status, failure.message.as_str()),
        (ROBOTA_E_ABORTED, "turn 1 was aborted")
    );
    wait(s, 0).unwrap();
    let (outcome, doc) = wait_result(s, turn, 0);
    assert_eq!(outcome.unwrap_err().status, ROBOTA_E_ABORTED);
    let doc = doc.unwrap();
    assert_eq!(doc, *events_until(s, "turn_completed").last().unwrap());
    assert_eq!(doc["stop_reason"], "aborted");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn results_of_the_64_most_recent_turns_are_kept() {
    let (rt, s) = offline();
    for i in 1..=66u64 {
        let (turn, outcome, _) = run_result(s, &format!("t{i}"));
        outcome.unwrap();
        assert_eq!(turn, i);
    }
    for dropped in [1, 2] {
        let (outcome, doc) = wait_result(s, dropped, 0);
        let failure = outcome.unwrap_err();
        assert_eq!(failure.status, ROBOTA_E_NOT_FOUND);
        assert_eq!(
            failure.message,
            format!("the result of turn {dropped} was dropped: results are kept for the 64 most recent turns of a session")
        );
        assert!(doc.is_none());
    }
    let (outcome, doc) = wait_result(s, 3, 0);
    outcome.unwrap();
    assert_eq!(doc.unwrap()["response"], "offline:t3");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn bad_arguments_are_refused_with_no_document() {
    let (rt, s) = offline();
    let (outcome, doc) = wait_result(s, 0, 0);
    let refused = outcome.unwrap_err();
    assert_eq!(
        (refused.status, refused.message.as_str()),
        (
            ROBOTA_E_INVALID_CONFIG,
            "turn_id: robota_session_wait_result waits for one turn; 0 is not a turn id"
        )
    );
    assert!(doc.is_none());
    let (outcome, doc) = wait_result(s, 5, 0);
    let refused = outcome.unwrap_err();
    assert_eq!(
        (refused.status, refused.message.as_str()),
        (
            ROBOTA_E_NOT_FOUND,
            "turn 5 was never submitted on this session"
        )
    );
    assert!(doc.is_none());
    let mut e = null_mut();
    let st = robota_session_wait_result(s, 1, 0, null_mut(), &mut e);
    let f = failure(st, e);
    assert_eq!(
        (f.status, f.message.as_str()),
        (ROBOTA_E_NULL_ARG, "out_result_json is NULL")
    );
    let mut turn = 0;
    let st = robota_session_run_result(
        s,
        c(r#"{"text":"x"}"#).as_ptr(),
        &mut turn,
        null_mut(),
        &mut e,
    );
    let f = failure(st, e);
    assert_eq!(
        (f.status, f.message.as_str()),
        (ROBOTA_E_NULL_ARG, "out_result_json is NULL")
    );
    assert_eq!(turn, 0, "nothing was submitted");
    // A bad prompt: no turn, no document.
    let (mut turn, outcome, doc) = run_result(s, "ok");
    outcome.unwrap();
    assert_eq!((turn, doc.is_some()), (1, true));
    let mut doc = null_mut();
    let st =
        robota_session_run_result(s, c(r#"{"txt":"x"}"#).as_ptr(), &mut turn, &mut doc, &mut e);
    let f = failure(st, e);
    assert_eq!(f.status, ROBOTA_E_INVALID_CONFIG);
    assert!(doc.is_null());
    let mut doc = null_mut();
    let st = robota_session_wait_result(null_mut(), 1, 0, &mut doc, &mut e);
    assert_eq!(failure(st, e).status, ROBOTA_E_NULL_ARG);
    assert!(doc.is_null());
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn wait_result_on_a_running_turn_times_out_with_no_document() {
    let dir = tempfile::tempdir().unwrap();
    let rt = scripted_runtime(write_call());
    let s = pull_session(rt, dir.path(), json!({}));
    let turn = submit(s, "write it");
    events_until(s, "permission_request");
    let (outcome, doc) = wait_result(s, turn, 0);
    assert_eq!(outcome.unwrap_err().status, ROBOTA_E_TIMEOUT);
    assert!(doc.is_none());
    robota_session_free(s);
    robota_runtime_free(rt);
}
