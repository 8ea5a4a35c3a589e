//! Transcripts: one redacted line per event, all on disk once the session is freed (written
//! and fsync'd by the background writer), validated after a run with tools and an abort; an
//! unwritable directory or a failing write is a warning and the session goes on; the validator
//! reports broken invariants by code and line.

use robota::ffi::*;
use robota_engine::session::transcript::check::{load, validate};
use robota_engine::session::transcript::{hold_writes, is_secret_key, Redacted};
use serde_json::{json, Value};

use crate::support_ffi as ffi;

fn codes(entries: &[Value]) -> Vec<&'static str> {
    validate(entries).iter().map(|i| i.code).collect()
}

#[test]
fn transcript_of_a_run_with_tools_and_an_abort_is_valid_and_redacted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"text":"Looking.","tool_calls":[{"id":"call_1","name":"Glob",
                "arguments":{"pattern":"*.txt","api_key":"sk-live-123"}}]},
            {"deltas":["Found ","a.txt"]},
            {"tool_calls":[{"id":"call_2","name":"Bash","arguments":{"command":"sleep 30"}}]},
            {"text":"never"}]}}})
        .to_string(),
    );
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","cwd":dir.path(),"delivery":"pull",
                "permission_mode":"bypassPermissions","transcript":true,"session_id":"t-1"})
        .to_string(),
    )
    .unwrap();
    let t1 = ffi::submit(s, "find files");
    ffi::events_until(s, "turn_completed");
    assert_eq!(
        robota_session_wait(s, t1, 30_000, std::ptr::null_mut()),
        ROBOTA_OK
    );
    let path = dir.path().join(".robota/logs/t-1.jsonl");
    let t2 = ffi::submit(s, "run it");
    ffi::events_until(s, "tool_start");
    assert_eq!(robota_session_abort(s, t2), ROBOTA_OK);
    let evs = ffi::events_until(s, "turn_completed");
    assert_eq!(evs.last().unwrap()["stop_reason"], "aborted");
    assert_eq!(
        robota_session_wait(s, t2, 30_000, std::ptr::null_mut()),
        ROBOTA_E_ABORTED
    );
    // The lines are written in the background; freeing the session does not wait for them,
    // the end of the runtime does (every line, `session_closed` included).
    robota_session_free(s);
    robota_runtime_free(rt);
    let entries = load(&path).unwrap();

    assert_eq!(validate(&entries), vec![]);
    let events: Vec<&str> = entries
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(events[0], "session_init");
    assert_eq!(*events.last().unwrap(), "session_closed");
    assert_eq!(events.iter().filter(|e| **e == "tool_start").count(), 2);
    assert_eq!(events.iter().filter(|e| **e == "tool_end").count(), 2);
    assert_eq!(entries[0]["sessionId"], "t-1");
    assert_eq!(entries[0]["cwd"], dir.path().to_str().unwrap());
    let start = entries.iter().find(|e| e["event"] == "tool_start").unwrap();
    assert_eq!(start["arguments"]["api_key"], "[REDACTED]");
    assert_eq!(start["arguments"]["pattern"], "*.txt");
    assert_eq!(start["turn_id"], 1);
    let deltas: Vec<&str> = entries
        .iter()
        .filter(|e| e["event"] == "text_delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(deltas.ends_with(&["Found ", "a.txt"]), "{deltas:?}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("sk-live-123"));
    assert!(text.contains(r#"\"api_key\":\"[REDACTED]\""#), "{text}");
    assert_eq!(text.lines().count(), entries.len());
}

/// A runtime with a scripted provider and a session of it (pull delivery) whose transcript
/// goes to `dir`, with id `id` (resumed when `resume`).
fn transcript_session(
    rt: *mut robota_runtime,
    dir: &std::path::Path,
    id: &str,
    resume: bool,
) -> *mut robota_session {
    let doc = json!({"v":1,"provider":"s","model":"m","cwd":dir,"delivery":"pull",
                     "persist":true,"transcript":dir.join("logs"),"session_id":id});
    if resume {
        ffi::session_resume(
            rt,
            &json!({"v":1,"session_id":id,"delivery":"pull"}).to_string(),
        )
    } else {
        ffi::session_new(rt, &doc.to_string())
    }
    .unwrap()
}

fn scripted_runtime(dir: &std::path::Path) -> *mut robota_runtime {
    ffi::runtime(
        &json!({"v":1,"providers":{"s":{"kind":"scripted","turns":[{"deltas":["a","b"]}],
                "fallback":"repeat_last"}},"session_dir":dir.join("sessions")})
        .to_string(),
    )
}

#[test]
fn freeing_a_session_does_not_wait_for_its_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let rt = scripted_runtime(dir.path());
    let s = transcript_session(rt, dir.path(), "free-1", false);
    let turn = ffi::submit(s, "go");
    assert_eq!(
        robota_session_wait(s, turn, 30_000, std::ptr::null_mut()),
        ROBOTA_OK
    );
    // The writer is stopped: a free that waited for the lines would never return.
    let hold = hold_writes();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let handle = s as usize;
    std::thread::spawn(move || {
        robota_session_free(handle as *mut robota_session);
        let _ = done_tx.send(());
    });
    let returned = done_rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .is_ok();
    drop(hold);
    assert!(
        returned,
        "robota_session_free waited for the transcript writer"
    );
    // The end of the runtime waits for them: every line is on disk after it.
    robota_runtime_free(rt);
    let entries = load(&dir.path().join("logs/free-1.jsonl")).unwrap();
    assert_eq!(validate(&entries), vec![]);
    let last = entries.last().unwrap();
    assert_eq!(last["event"], "session_closed");
}

#[test]
fn a_session_resumed_right_after_it_was_freed_appends_after_its_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let rt = scripted_runtime(dir.path());
    for round in 0..8 {
        let s = transcript_session(rt, dir.path(), "again", round > 0);
        let turn = ffi::submit(s, "go");
        assert_eq!(
            robota_session_wait(s, turn, 30_000, std::ptr::null_mut()),
            ROBOTA_OK
        );
        // The next round opens the file again at once, while these lines may still be on
        // their way to it.
        robota_session_free(s);
    }
    robota_runtime_free(rt);
    let entries = load(&dir.path().join("logs/again.jsonl")).unwrap();
    let ends: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["event"].as_str())
        .filter(|e| *e == "session_init" || *e == "session_closed")
        .collect();
    assert_eq!(ends, ["session_init", "session_closed"].repeat(8));
    // The file is one valid transcript (a resumed session's lines follow its close), and each
    // session's lines form a valid transcript of their own.
    assert_eq!(validate(&entries), vec![]);
    let mut start = 0;
    for (i, e) in entries.iter().enumerate() {
        if e["event"] == "session_closed" {
            assert_eq!(
                validate(&entries[start..=i]),
                vec![],
                "session ending at line {i}"
            );
            start = i + 1;
        }
    }
}

#[test]
fn an_unwritable_transcript_is_a_warning_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let rt = ffi::runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#);
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","cwd":dir.path(),"delivery":"pull",
                "transcript": "file/logs"})
        .to_string(),
    )
    .unwrap();
    let w = ffi::next_event(s);
    assert_eq!(w["type"], "warning");
    assert_eq!(w["code"], "TRANSCRIPT_FAILED");
    assert!(w["message"].as_str().unwrap().contains("file/logs"), "{w}");
    let t = ffi::submit(s, "hi");
    let evs = ffi::events_until(s, "turn_completed");
    assert_eq!(evs.last().unwrap()["response"], "offline:hi");
    assert_eq!(
        robota_session_wait(s, t, 30_000, std::ptr::null_mut()),
        ROBOTA_OK
    );
    let e =
        ffi::session_new(rt, r#"{"v":1,"provider":"s","model":"m","transcript":3}"#).unwrap_err();
    assert_eq!(e.status, ROBOTA_E_INVALID_CONFIG);
    assert!(e.message.contains("\"transcript\""), "{}", e.message);
    robota_session_free(s);
    robota_runtime_free(rt);
}

/// A transcript whose writes fail after it opened (its file is `/dev/full`): the writer
/// thread's failure reaches the host as one `WARNING` before `session_closed`, and the
/// session goes on.
#[test]
fn a_transcript_write_failure_is_one_warning_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    std::os::unix::fs::symlink("/dev/full", dir.path().join("logs/full-1.jsonl")).unwrap();
    let rt = ffi::runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#);
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","cwd":dir.path(),"delivery":"pull",
                "transcript": "logs", "session_id": "full-1"})
        .to_string(),
    )
    .unwrap();
    let mut evs = Vec::new();
    for text in ["one", "two"] {
        let t = ffi::submit(s, text);
        evs.extend(ffi::events_until(s, "turn_completed"));
        assert_eq!(evs.last().unwrap()["response"], format!("offline:{text}"));
        assert_eq!(
            robota_session_wait(s, t, 30_000, std::ptr::null_mut()),
            ROBOTA_OK
        );
    }
    assert_eq!(robota_session_close(s), ROBOTA_OK);
    evs.extend(ffi::events_until(s, "session_closed"));
    let warnings: Vec<&Value> = evs
        .iter()
        .filter(|e| e["type"] == "warning" && e["code"] != "CONTEXT_WINDOW_ASSUMED")
        .collect();
    assert_eq!(warnings.len(), 1, "{evs:?}");
    assert_eq!(warnings[0]["code"], "TRANSCRIPT_FAILED");
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(message.contains("full-1.jsonl"), "{message}");
    assert_eq!(evs.last().unwrap()["type"], "session_closed");
    robota_session_free(s);
    robota_runtime_free(rt);
}

fn line(event: &str, turn: u64, extra: Value) -> Value {
    let mut v = json!({"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"x","event":event});
    if turn != 0 {
        v["turn_id"] = json!(turn);
    }
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

#[test]
fn the_validator_names_broken_invariants() {
    let init = line("session_init", 0, json!({}));
    let ok = vec![
        init.clone(),
        line("turn_started", 1, json!({})),
        line("tool_start", 1, json!({"tool_call_id":"a"})),
        line("tool_end", 1, json!({"tool_call_id":"a"})),
        line(
            "message",
            1,
            json!({"role":"assistant","toolCalls":[{"id":"a"}]}),
        ),
        line("message", 1, json!({"role":"tool","toolCallId":"a"})),
        line("turn_completed", 1, json!({})),
        line("turn_completed", 2, json!({"started": false})),
        line("session_closed", 0, json!({})),
    ];
    assert_eq!(codes(&ok), Vec::<&str>::new());
    let mut bad = ok.clone();
    bad.remove(3); // tool_end
    bad.remove(4); // tool message
    assert_eq!(
        codes(&bad),
        vec!["TOOL_RESULT_MISSING", "TOOL_ANSWER_MISSING"]
    );
    let issues = validate(&bad);
    assert_eq!(issues[0].line, Some(3));
    assert_eq!(
        issues[0].message,
        "Tool call a has no tool_end before its turn ended."
    );
    let mut dup = ok.clone();
    dup.insert(4, line("tool_end", 1, json!({"tool_call_id":"a"})));
    dup.push(line("text_delta", 0, json!({"text":"late"})));
    assert_eq!(
        codes(&dup),
        vec![
            "TOOL_RESULT_DUPLICATE",
            "EVENT_AFTER_CLOSE",
            "EVENT_OUTSIDE_TURN"
        ]
    );
    // Resumed: the same session's session_init after its close starts it again; anything
    // else after the close does not, nor does a session_init after it.
    let mut resumed = ok.clone();
    resumed.extend([
        init.clone(),
        line("turn_started", 1, json!({})),
        line("turn_completed", 1, json!({})),
        line("session_closed", 0, json!({})),
    ]);
    assert_eq!(codes(&resumed), Vec::<&str>::new());
    resumed.push(line("turn_started", 2, json!({})));
    assert_eq!(
        codes(&resumed),
        vec!["EVENT_AFTER_CLOSE", "TURN_NOT_COMPLETED"]
    );
    // Killed mid-tool, then resumed: the turn left open is not reported (as at the end of a
    // killed session's file), the resumed session's turns are checked.
    let mut killed = ok[..3].to_vec();
    killed.extend([
        init.clone(),
        line("turn_started", 1, json!({})),
        line("turn_completed", 1, json!({})),
    ]);
    assert_eq!(codes(&killed), Vec::<&str>::new());
    killed.push(line("turn_completed", 3, json!({})));
    assert_eq!(codes(&killed), vec!["TURN_NOT_STARTED"]);
    let mut other = ok.clone();
    other[2]["sessionId"] = json!("y");
    other.remove(0);
    other.insert(1, line("turn_started", 2, json!({})));
    let c = codes(&other);
    assert_eq!(c[0], "SESSION_INIT_MISSING");
    assert!(c.contains(&"TURN_OVERLAP"), "{c:?}");
    assert!(c.contains(&"SESSION_ID_MISMATCH"), "{c:?}");
    assert!(load(std::path::Path::new("/nonexistent/x.jsonl"))
        .unwrap()
        .is_empty());
    // Redaction: whole keys, any case, at any depth; other keys untouched.
    for k in [
        "api_key",
        "API-KEY",
        "apikey",
        "Authorization",
        "access_token",
        "refresh-token",
        "secret",
        "PASSWORD",
        "x-api-key",
        "x_api_key",
        "xapikey",
    ] {
        assert!(is_secret_key(k), "{k}");
    }
    for k in ["api__key", "secrets", "my_password", "token", "key"] {
        assert!(!is_secret_key(k), "{k}");
    }
    let v = json!({"a":[{"Password":"p","ok":1}],"headers":{"authorization":"Bearer t"}});
    assert_eq!(
        serde_json::to_value(Redacted(&v)).unwrap(),
        json!({"a":[{"Password":"[REDACTED]","ok":1}],"headers":{"authorization":"[REDACTED]"}})
    );
}
