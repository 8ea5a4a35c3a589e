//! Sessions saved, resumed, listed and deleted through the host's store.

use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use super::{persisted, runtime_with, turn, Answering, MemStore};
use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi as ffi;

/// The roles and texts of a snapshot's messages.
fn contents(snapshot: &Value) -> Vec<(String, String)> {
    snapshot["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn each_turn_saves_through_the_store_and_any_runtime_resumes_it() {
    let server = FakeServer::start();
    for t in ["one", "two", "three"] {
        server.enqueue(Reply::openai(&Turn::text([t])));
    }
    let dir = tempfile::tempdir().unwrap();
    let store = MemStore::new();
    let rt = runtime_with(&server, &store, dir.path(), json!({}));
    let s = ffi::session_new(rt, &persisted("s1", dir.path())).unwrap();
    turn(s, "hello").1.unwrap();
    // One save, of a new session (version 0), with the summary a listing shows.
    assert_eq!(store.ops(), ["save"]);
    let save = store.requests.lock().unwrap()[0].1.clone();
    assert_eq!(save["v"], 1);
    assert_eq!(save["session_id"], "s1");
    assert_eq!(save["expected_version"], 0);
    let snap = &save["snapshot"];
    assert_eq!(snap["kind"], "robota.session");
    assert_eq!(
        save["summary"],
        json!({"name": null, "cwd": dir.path(), "created_at": snap["created_at"],
               "updated_at": snap["updated_at"], "message_count": 1})
    );
    assert_eq!(
        contents(snap),
        pairs(&[("user", "hello"), ("assistant", "one")])
    );
    assert_eq!(store.records.lock().unwrap()["s1"].0, 1);
    turn(s, "again").1.unwrap();
    let second = store.requests.lock().unwrap()[1].1.clone();
    assert_eq!(
        (second["op"].clone(), second["expected_version"].clone()),
        (json!("save"), json!(1))
    );
    assert_eq!(store.records.lock().unwrap()["s1"].0, 2);
    robota_session_free(s);

    // Another runtime (another node) with the same store, answering from its own thread.
    let store2 = MemStore::sharing(&store);
    *store2.answering.lock().unwrap() = Answering::Later;
    let rt2 = runtime_with(&server, &store2, dir.path(), json!({}));
    let r = ffi::session_resume(rt2, r#"{"v":1,"session_id":"s1"}"#).unwrap();
    assert_eq!(store2.ops(), ["load"]);
    turn(r, "and now").1.unwrap();
    // The model saw the whole history; the save replaced version 2.
    let sent: Vec<String> = server.requests()[2].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sent, ["hello", "one", "again", "two", "and now"]);
    assert_eq!(store2.ops(), ["load", "save"]);
    let third = store2.requests.lock().unwrap()[1].1.clone();
    assert_eq!(third["expected_version"], 2);
    let (version, snap) = store.records.lock().unwrap()["s1"].clone();
    assert_eq!(version, 3);
    assert_eq!(snap["message_count"], 3);
    // Nothing reached the session directory.
    assert!(!dir.path().join("sessions").exists());
    robota_session_free(r);
    robota_runtime_free(rt2);
    robota_runtime_free(rt);
}

#[test]
fn list_and_delete_go_through_the_store() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let store = MemStore::new();
    let rt = runtime_with(&server, &store, dir.path(), json!({}));
    let summary = |cwd: &str, at: &str| {
        json!({"kind":"robota.session","name":"n","cwd":cwd,"created_at":at,"updated_at":at,
               "message_count":2})
    };
    {
        let mut r = store.records.lock().unwrap();
        r.insert("old".into(), (1, summary("/a", "2026-01-01T00:00:00.000Z")));
        r.insert("new".into(), (4, summary("/a", "2026-02-01T00:00:00.000Z")));
        r.insert(
            "other".into(),
            (1, summary("/b", "2026-03-01T00:00:00.000Z")),
        );
    }
    let listed = ffi::store_list(rt, Some(r#"{"cwd":"/a","limit":5}"#)).unwrap();
    let entry = |id: &str, at: &str| json!({"id":id,"name":"n","cwd":"/a","created_at":at,"updated_at":at,"message_count":2});
    assert_eq!(
        listed,
        json!({"v":1,"sessions":[entry("new","2026-02-01T00:00:00.000Z"),
                                 entry("old","2026-01-01T00:00:00.000Z")],"skipped":[]})
    );
    let req = store.requests.lock().unwrap()[0].1.clone();
    assert_eq!(req, json!({"v":1,"op":"list","cwd":"/a","limit":5}));
    // The limit holds even when the store sends more.
    let one = ffi::store_list(rt, Some(r#"{"limit":1}"#)).unwrap();
    assert_eq!(one["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(store.requests.lock().unwrap()[1].1["cwd"], Value::Null);

    ffi::store_delete(rt, "old").unwrap();
    assert!(!store.records.lock().unwrap().contains_key("old"));
    let again = ffi::store_delete(rt, "old").unwrap_err();
    assert_eq!(
        again,
        ffi::Failure {
            status: ROBOTA_E_NOT_FOUND,
            message: "no saved session \"old\" in the session store".into()
        }
    );
    // An id that could not name a session is refused before the host is asked.
    let n = store.requests.lock().unwrap().len();
    assert_eq!(
        ffi::store_delete(rt, "../x").unwrap_err().status,
        ROBOTA_E_INVALID_CONFIG
    );
    assert_eq!(store.requests.lock().unwrap().len(), n);
    robota_runtime_free(rt);
}

#[test]
fn removing_the_store_saves_in_the_session_directory_again() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["hi"])));
    let dir = tempfile::tempdir().unwrap();
    let store = MemStore::new();
    let rt = runtime_with(&server, &store, dir.path(), json!({}));
    let mut e = null_mut();
    assert_eq!(
        robota_runtime_set_store(rt, None, null_mut(), None, &mut e),
        ROBOTA_OK
    );
    let s = ffi::session_new(rt, &persisted("d1", dir.path())).unwrap();
    turn(s, "hello").1.unwrap();
    assert!(store.ops().is_empty());
    assert!(dir.path().join("sessions/d1.json").is_file());
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn transcripts_are_appended_through_the_store() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["hi ", "there"])));
    let dir = tempfile::tempdir().unwrap();
    let store = MemStore::new();
    *store.answering.lock().unwrap() = Answering::Later;
    let rt = runtime_with(&server, &store, dir.path(), json!({}));
    let cfg = json!({"v":1,"provider":"p","model":"m","cwd":dir.path(),"delivery":"pull",
                     "session_id":"t1","transcript":true});
    let s = ffi::session_new(rt, &cfg.to_string()).unwrap();
    turn(s, "hello").1.unwrap();
    assert_eq!(robota_session_close(s), ROBOTA_OK);
    ffi::events_until(s, "session_closed");
    // Closing waited for the last lines: every event of the session, in order, as JSONL.
    let text = store.transcripts.lock().unwrap()["t1"].clone();
    assert!(text.ends_with('\n'));
    let events: Vec<String> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["sessionId"], "t1");
            v["event"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(events.first().map(String::as_str), Some("session_init"));
    assert_eq!(events.last().map(String::as_str), Some("session_closed"));
    assert!(events.iter().any(|e| e == "turn_completed"), "{events:?}");
    let deltas: String = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["event"] == "text_delta")
        .map(|v| v["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(deltas, "hi there");
    assert!(
        store.ops().iter().all(|op| op == "append"),
        "{:?}",
        store.ops()
    );
    // No local transcript file.
    assert!(!dir.path().join(".robota").exists());
    robota_session_free(s);
    // A runtime freed with a session's lines still on their way ends at once.
    let s2 = ffi::session_new(rt, &cfg.to_string().replace("t1", "t2")).unwrap();
    robota_session_free(s2);
    robota_runtime_free(rt);
}
