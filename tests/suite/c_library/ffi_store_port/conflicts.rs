//! Optimistic versions: a save that replaces a version the store no longer holds is a
//! conflict; nothing is overwritten.

use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::json;

use super::{persisted, runtime_with, turn, MemStore};
use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi as ffi;

fn types(evs: &[serde_json::Value]) -> Vec<&str> {
    evs.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[test]
fn two_runtimes_advancing_one_session_give_one_success_and_one_conflict() {
    let server = FakeServer::start();
    for t in ["first", "from a", "from b"] {
        server.enqueue(Reply::openai(&Turn::text([t])));
    }
    let dir = tempfile::tempdir().unwrap();
    let store = MemStore::new();
    let rt = runtime_with(&server, &store, dir.path(), json!({}));
    let s = ffi::session_new(rt, &persisted("shared", dir.path())).unwrap();
    turn(s, "start").1.unwrap();
    robota_session_free(s);
    // Two nodes load version 1.
    let store_b = MemStore::sharing(&store);
    let rt_b = runtime_with(&server, &store_b, dir.path(), json!({}));
    let a = ffi::session_resume(rt, r#"{"v":1,"session_id":"shared"}"#).unwrap();
    let b = ffi::session_resume(rt_b, r#"{"v":1,"session_id":"shared"}"#).unwrap();
    turn(a, "a").1.unwrap();
    let winner = store.records.lock().unwrap()["shared"].clone();
    assert_eq!(winner.0, 2);
    let (evs, outcome) = turn(b, "b");
    // The conflict is reported before the turn's end, and the wait returns it.
    let n = evs.len();
    assert_eq!(types(&evs[n - 2..]), ["error", "turn_completed"]);
    let message = "session \"shared\" was saved elsewhere: the store holds version 2, this session replaces version 1; nothing was overwritten (resume it from the store to go on)";
    let mut error = evs[n - 2].clone();
    error.as_object_mut().unwrap().remove("turn_id");
    assert_eq!(
        error,
        json!({"v":1,"kind":ROBOTA_EVENT_ERROR,"type":"error","code":"CONFLICT","category":"store",
               "recoverable":false,"message":message,"session_id":"shared","expected_version":1,
               "stored_version":2})
    );
    assert_eq!(
        outcome.unwrap_err(),
        ffi::Failure {
            status: ROBOTA_E_CONFLICT,
            message: format!("turn 1 could not be saved: {message}")
        }
    );
    // The store kept node A's turn.
    assert_eq!(store.records.lock().unwrap()["shared"], winner);
    // Node B resumes again from the store and goes on from there.
    robota_session_free(b);
    server.enqueue(Reply::openai(&Turn::text(["b again"])));
    let b = ffi::session_resume(rt_b, r#"{"v":1,"session_id":"shared"}"#).unwrap();
    turn(b, "b2").1.unwrap();
    let sent: Vec<String> = server.requests()[3].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sent, ["start", "first", "a", "from a", "b2"]);
    assert_eq!(store.records.lock().unwrap()["shared"].0, 3);
    for s in [a, b] {
        robota_session_free(s);
    }
    robota_runtime_free(rt_b);
    robota_runtime_free(rt);
}

#[test]
fn a_new_session_never_replaces_a_saved_one_with_its_id() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["hi"])));
    let dir = tempfile::tempdir().unwrap();
    let store = MemStore::new();
    let saved = (3, json!({"kind":"robota.session","keep":"me"}));
    store
        .records
        .lock()
        .unwrap()
        .insert("taken".into(), saved.clone());
    let rt = runtime_with(&server, &store, dir.path(), json!({}));
    let s = ffi::session_new(rt, &persisted("taken", dir.path())).unwrap();
    let (_, outcome) = turn(s, "hello");
    assert_eq!(outcome.unwrap_err().status, ROBOTA_E_CONFLICT);
    assert_eq!(store.records.lock().unwrap()["taken"], saved);
    // The turn's result document is still there: the turn ran.
    let mut doc = null_mut();
    let mut e = null_mut();
    let st = robota_session_wait_result(s, 1, 1000, &mut doc, &mut e);
    assert_eq!(st, ROBOTA_E_CONFLICT);
    assert!(!doc.is_null());
    robota_string_free(doc);
    robota_error_free(e);
    robota_session_free(s);
    robota_runtime_free(rt);
}
