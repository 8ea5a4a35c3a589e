//! Hook lifecycle through the C ABI (hooks before permissions): `SessionEnd` exactly once on close
//! and/or free, PreToolUse before the permission prompt, and `first_arg` in the tool
//! schema's property order.

use std::path::Path;
use std::time::{Duration, Instant};

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};
use serde_json::{json, Value};

use crate::support_ffi as ffi;

const SCRIPTED: &str = r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#;

/// A session (pull delivery) whose `SessionEnd` hook appends its stdin JSON to `log`.
fn session_with_end_hook(rt: *mut robota_runtime, log: &Path) -> *mut robota_session {
    let cmd = format!("cat >> '{0}'; echo >> '{0}'", log.display());
    let hooks =
        json!({"SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": cmd}]}]});
    let cfg = json!({"v":1,"provider":"s","model":"m","session_id":"end-1","delivery":"pull",
                     "hooks": hooks});
    let s = ffi::session_new(rt, &cfg.to_string()).unwrap();
    ffi::submit(s, "hello");
    ffi::events_until(s, "turn_completed");
    s
}

fn log_entries(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The hook log once it has at least one entry (20 s at most).
fn first_entries(log: &Path) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let e = log_entries(log);
        if !e.is_empty() || Instant::now() > deadline {
            return e;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn assert_one_session_end(entries: &[Value]) {
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["hook_event_name"], "SessionEnd");
    assert_eq!(entries[0]["session_id"], "end-1");
    assert_eq!(entries[0]["reason"], "other");
}

#[test]
fn session_end_fires_on_close_before_session_closed_and_not_again_on_free() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let rt = ffi::runtime(SCRIPTED);
    let s = session_with_end_hook(rt, &log);
    assert!(log_entries(&log).is_empty(), "no SessionEnd during a turn");
    assert_eq!(robota_session_close(s), ROBOTA_OK);
    ffi::events_until(s, "session_closed");
    // The hook had finished when `session_closed` (the last event) was delivered.
    assert_one_session_end(&log_entries(&log));
    assert_eq!(robota_session_close(s), ROBOTA_OK);
    robota_session_free(s);
    // The runtime goes with its last handle and joins the library's threads: a second
    // SessionEnd, had one started, has finished writing by now.
    robota_runtime_free(rt);
    assert_one_session_end(&log_entries(&log));
}

#[test]
fn session_end_fires_once_on_free() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let rt = ffi::runtime(SCRIPTED);
    let s = session_with_end_hook(rt, &log);
    robota_session_free(s);
    assert_one_session_end(&first_entries(&log));
    robota_runtime_free(rt);
    assert_one_session_end(&log_entries(&log));
}

#[test]
fn session_end_fires_once_when_free_follows_close_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let rt = ffi::runtime(SCRIPTED);
    let s = session_with_end_hook(rt, &log);
    assert_eq!(robota_session_close(s), ROBOTA_OK);
    robota_session_free(s);
    assert_one_session_end(&first_entries(&log));
    robota_runtime_free(rt);
    assert_one_session_end(&log_entries(&log));
}

/// A runtime whose scripted model calls Write once, then answers "done".
fn write_once_runtime() -> *mut robota_runtime {
    ffi::runtime(
        r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"tool_calls":[{"name":"Write","arguments":{"filePath":"out.txt","content":"hi"}}]},
            {"text":"done"}]}}}"#,
    )
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["type"].as_str()).collect()
}

#[test]
fn a_pre_tool_use_block_means_no_permission_request_and_no_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let base = json!({"v":1,"provider":"s","model":"m","cwd": dir.path(),"tools":["Write"],
                      "permission_mode":"default","delivery":"pull"});
    // Control: without the hook the same call asks the host (denied here).
    let rt = write_once_runtime();
    let s = ffi::session_new(rt, &base.to_string()).unwrap();
    ffi::submit(s, "write it");
    let asked = ffi::events_until(s, "permission_request");
    let id = asked.last().unwrap()["request_id"].as_u64().unwrap();
    ffi::respond(rt, id, r#"{"decision":"deny"}"#);
    ffi::events_until(s, "turn_completed");
    assert!(!out.exists());
    robota_session_free(s);
    robota_runtime_free(rt);

    let rt = write_once_runtime();
    let mut cfg = base.clone();
    cfg["hooks"] = json!({"PreToolUse": [{"matcher": "Write", "hooks": [
        {"type": "command", "command": "echo no writes here >&2; exit 2"}]}]});
    let s = ffi::session_new(rt, &cfg.to_string()).unwrap();
    ffi::submit(s, "write it");
    let events = ffi::events_until_any(s, &["turn_completed", "permission_request"]);
    assert!(
        !types(&events).contains(&"permission_request"),
        "{:?}",
        types(&events)
    );
    let end = events.iter().find(|e| e["type"] == "tool_end").unwrap();
    assert_eq!(end["result"], "denied");
    assert!(
        end["output"]
            .as_str()
            .unwrap()
            .contains("Blocked by hook: no writes here"),
        "{end}"
    );
    assert!(!out.exists(), "the blocked Write ran");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn first_arg_is_the_first_argument_in_the_schema_order() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("w.txt"), "a needle").unwrap();
    // Arguments arrive in another order than the schemas declare them.
    let rt = ffi::runtime(
        r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"tool_calls":[
              {"name":"Write","arguments":{"content":"a needle","filePath":"w.txt"}},
              {"name":"Grep","arguments":{"glob":"*.txt","outputMode":"content","pattern":"needle"}},
              {"name":"Edit","arguments":{"newString":"b","oldString":"a","replaceAll":false,"filePath":"w.txt"}}]},
            {"text":"done"}]}}}"#,
    );
    let cfg = json!({"v":1,"provider":"s","model":"m","cwd": dir.path(),
                     "tools":["Write","Grep","Edit"],"permission_mode":"bypassPermissions",
                     "delivery":"pull"});
    let s = ffi::session_new(rt, &cfg.to_string()).unwrap();
    ffi::submit(s, "go");
    let events = ffi::events_until(s, "turn_completed");
    let mut starts: Vec<(String, String)> = events
        .iter()
        .filter(|e| e["type"] == "tool_start")
        .map(|e| {
            (
                e["tool_name"].as_str().unwrap().to_string(),
                e["first_arg"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    starts.sort();
    let expected = [("Edit", "w.txt"), ("Grep", "needle"), ("Write", "w.txt")];
    assert_eq!(
        starts,
        expected.map(|(a, b)| (a.to_string(), b.to_string()))
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn session_closed_is_last_even_when_close_drops_a_queued_prompt() {
    let rt = ffi::runtime(
        r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[{"deltas":["a","b"],"hang":true}]}}}"#,
    );
    for _ in 0..50 {
        let s = ffi::session_new(
            rt,
            r#"{"v":1,"provider":"s","model":"m","delivery":"pull"}"#,
        )
        .unwrap();
        let running = ffi::submit(s, "one");
        let queued = ffi::submit(s, "two");
        let mut seen = ffi::events_until(s, "text_delta");
        assert_eq!(robota_session_close(s), ROBOTA_OK);
        seen.extend(ffi::events_until(s, "session_closed"));
        let completed: Vec<u64> = seen
            .iter()
            .filter(|e| e["type"] == "turn_completed")
            .map(|e| e["turn_id"].as_u64().unwrap())
            .collect();
        let mut sorted = completed.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![running, queued], "{seen:?}");
        assert_eq!(seen.last().unwrap()["type"], "session_closed");
        // Nothing follows `session_closed`.
        let mut e = std::ptr::null_mut();
        assert_eq!(
            robota_session_next_event(s, 0, &mut e, std::ptr::null_mut()),
            ROBOTA_E_CLOSED
        );
        robota_session_free(s);
    }
    robota_runtime_free(rt);
}

#[test]
fn session_closed_is_reported_when_close_comes_during_a_compaction() {
    // Turn 1 answers at once; the compaction's summary call streams slowly, so the close below
    // lands while the compaction runs (the session is `executing` from its start to its end).
    let rt = ffi::runtime(
        r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"deltas":["hello"]},
            {"deltas":["the ","summary"],"delay_ms":400}]}}}"#,
    );
    let s = ffi::session_new(
        rt,
        r#"{"v":1,"provider":"s","model":"m","delivery":"pull"}"#,
    )
    .unwrap();
    ffi::submit(s, "hi");
    ffi::events_until(s, "turn_completed");
    let handle = s as usize;
    let compaction = std::thread::spawn(move || {
        ffi::command(handle as *mut robota_session, r#"{"name":"compact"}"#).map(|_| ())
    });
    while ffi::state(s)["executing"] != json!(true) {
        std::thread::yield_now();
    }
    assert_eq!(robota_session_close(s), ROBOTA_OK);
    let seen = ffi::events_until(s, "session_closed");
    assert_eq!(seen.last().unwrap()["type"], "session_closed", "{seen:?}");
    compaction.join().unwrap().ok();
    robota_session_free(s);
    robota_runtime_free(rt);
}
