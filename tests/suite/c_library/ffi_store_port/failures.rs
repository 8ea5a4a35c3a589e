//! A store that does not answer, answers an error or answers in the wrong shape: clear errors,
//! nothing saved is lost.

use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::json;

use super::{persisted, runtime_with, turn, Answering, MemStore};
use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi as ffi;

fn failure(status: robota_status, message: &str) -> ffi::Failure {
    ffi::Failure {
        status,
        message: message.into(),
    }
}

#[test]
fn a_store_that_never_answers_times_out_and_a_late_answer_is_stale() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["hi"])));
    let dir = tempfile::tempdir().unwrap();
    let store = MemStore::new();
    let saved = (1, json!({"kind":"robota.session"}));
    store
        .records
        .lock()
        .unwrap()
        .insert("s".into(), saved.clone());
    *store.answering.lock().unwrap() = Answering::Never;
    let rt = runtime_with(
        &server,
        &store,
        dir.path(),
        json!({"request_timeout_ms": 50}),
    );
    let err = ffi::session_resume(rt, r#"{"v":1,"session_id":"s"}"#).unwrap_err();
    assert_eq!(
        err,
        failure(
            ROBOTA_E_TIMEOUT,
            "session store: load request 1: the host did not answer within 50 ms"
        )
    );
    assert_eq!(
        store.complete(1, r#"{"found":false}"#).unwrap_err().status,
        ROBOTA_E_STALE
    );
    // A turn whose save is not answered ends normally with a warning; nothing was replaced.
    let s = ffi::session_new(rt, &persisted("s", dir.path())).unwrap();
    let (evs, outcome) = turn(s, "hello");
    outcome.unwrap();
    let warnings: Vec<&serde_json::Value> = evs
        .iter()
        .filter(|e| e["type"] == "warning")
        .map(|e| &e["message"])
        .collect();
    assert_eq!(
        warnings.last().unwrap().as_str().unwrap(),
        "could not persist the session: session store: save request 2: the host did not answer within 50 ms"
    );
    assert_eq!(store.records.lock().unwrap()["s"], saved);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn error_answers_and_wrong_shapes_name_what_is_wrong() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let store = MemStore::new();
    let rt = runtime_with(&server, &store, dir.path(), json!({}));
    let answer = |op: &str, a: &str| {
        store.overrides.lock().unwrap().insert(op.into(), a.into());
    };
    let resume = || ffi::session_resume(rt, r#"{"v":1,"session_id":"s"}"#).unwrap_err();
    answer("load", r#"{"error":"database is down"}"#);
    assert_eq!(
        resume(),
        failure(ROBOTA_E_IO, "session store: load failed: database is down")
    );
    answer("load", r#"{"found":false}"#);
    assert_eq!(
        resume(),
        failure(
            ROBOTA_E_NOT_FOUND,
            "no saved session \"s\" in the session store"
        )
    );
    answer("load", r#"{"version":"2","snapshot":{}}"#);
    assert_eq!(
        resume(),
        failure(
            ROBOTA_E_INVALID_CONFIG,
            "session store: the answer to load needs \"version\" (an integer ≥ 1) or \"found\": false"
        )
    );
    answer("load", r#"{"version":2}"#);
    assert_eq!(
        resume(),
        failure(
            ROBOTA_E_INVALID_CONFIG,
            "session store: the answer to load needs \"snapshot\" (the saved session object)"
        )
    );
    answer("list", r#"{"sessions":[{"name":"x"}]}"#);
    assert_eq!(
        ffi::store_list(rt, None).unwrap_err(),
        failure(
            ROBOTA_E_INVALID_CONFIG,
            "session store: the answer to list has sessions[0] without a string \"id\""
        )
    );
    answer("delete", r#"{}"#);
    assert_eq!(
        ffi::store_delete(rt, "s").unwrap_err(),
        failure(
            ROBOTA_E_INVALID_CONFIG,
            "session store: the answer to delete needs \"deleted\": true or false"
        )
    );
    robota_runtime_free(rt);
}

#[test]
fn a_wrong_answer_keeps_the_request_waiting_for_a_right_one() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let store = MemStore::new();
    store
        .records
        .lock()
        .unwrap()
        .insert("gone".into(), (1, json!({})));
    *store.answering.lock().unwrap() = Answering::Never;
    let rt = runtime_with(&server, &store, dir.path(), json!({}));
    let rt_addr = rt as usize;
    let deleting =
        std::thread::spawn(move || ffi::store_delete(rt_addr as *mut robota_runtime, "gone"));
    let id = store.wait_requests(1)[0];
    assert_eq!(
        store.complete(id, "[1]").unwrap_err().status,
        ROBOTA_E_INVALID_CONFIG
    );
    assert_eq!(
        store.complete(id, "{nope").unwrap_err().status,
        ROBOTA_E_INVALID_JSON
    );
    assert_eq!(
        store.complete(id + 1, "{}").unwrap_err().status,
        ROBOTA_E_NOT_FOUND
    );
    store.complete(id, r#"{"deleted":true}"#).unwrap();
    deleting.join().unwrap().unwrap();
    assert_eq!(
        store
            .complete(id, r#"{"deleted":true}"#)
            .unwrap_err()
            .status,
        ROBOTA_E_STALE
    );
    // NULL arguments are refused.
    let mut e = null_mut();
    assert_eq!(
        robota_store_complete(rt, id, std::ptr::null(), &mut e),
        ROBOTA_E_NULL_ARG
    );
    robota_error_free(e);
    robota_runtime_free(rt);
}
