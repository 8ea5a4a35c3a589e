//! Events pushed from threads of the host's own: into a turn driven on the host's thread
//! (`robota_session_run`), and into many sessions at once while some of them are aborted
//! (each aborted call gets exactly one cancel document; each finished one its exact text).

use robota::ffi::*;
use serde_json::{json, Value};

use super::{last_text, register_deferred};
use crate::support_ffi::{events_until, run_turn, runtime, session_new, submit};

/// `n` text deltas `w0 w1 …`, then `done`.
fn words(n: usize) -> Vec<Value> {
    let mut evs: Vec<Value> = (0..n)
        .map(|i| json!({"type":"text","text":format!("w{i} ")}))
        .collect();
    evs.push(json!({"type":"done"}));
    evs
}

fn expected(n: usize) -> String {
    (0..n).map(|i| format!("w{i} ")).collect()
}

#[test]
fn a_turn_run_on_the_hosts_thread_takes_events_pushed_from_another_thread() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let host = register_deferred(rt, "local", |_| words(40));
    let s = session_new(
        rt,
        r#"{"v":1,"provider":"local","model":"m","tools":[],"delivery":"pull"}"#,
    )
    .unwrap();
    for turn in 1..=3u64 {
        let (id, outcome) = run_turn(s, "go");
        outcome.unwrap();
        assert_eq!(id, turn);
    }
    let messages = crate::support_ffi::messages(s);
    let last = messages["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], expected(40));
    assert_eq!(host.calls().len(), 3);
    robota_session_free(s);
    robota_runtime_free(rt);
    assert!(host.failed_pushes.lock().unwrap().is_empty());
    assert_eq!(host.wait_freed(), 1);
}

#[test]
fn many_sessions_stream_at_once_and_each_abort_cancels_its_call_once() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    // "stall" is never answered: those turns are aborted.
    let host = register_deferred(rt, "local", |d| match last_text(d).as_str() {
        "stall" => Vec::new(),
        _ => words(30),
    });
    let sessions: Vec<*mut robota_session> = (0..12)
        .map(|i| {
            let cfg = json!({"v":1,"provider":"local","model":"m","tools":[],
                             "session_id":format!("s{i}"),"delivery":"pull"});
            session_new(rt, &cfg.to_string()).unwrap()
        })
        .collect();
    for (i, s) in sessions.iter().enumerate() {
        submit(*s, if i % 3 == 0 { "stall" } else { "go" });
    }
    for (i, s) in sessions.iter().enumerate() {
        if i % 3 == 0 {
            // Its call reached the host before the abort.
            host.wait_for(|d| d["session_id"] == format!("s{i}"));
            assert_eq!(robota_session_abort(*s, 1), ROBOTA_OK);
        }
        let done = events_until(*s, "turn_completed").pop().unwrap();
        if i % 3 == 0 {
            assert_eq!(done["stop_reason"], "aborted");
        } else {
            assert_eq!(
                (done["stop_reason"].clone(), done["response"].clone()),
                (json!("complete"), json!(expected(30)))
            );
        }
    }
    for s in sessions {
        robota_session_free(s);
    }
    robota_runtime_free(rt);
    let docs = host.docs();
    let cancels: Vec<&(u64, Value)> = docs.iter().filter(|(_, d)| d["type"] == "cancel").collect();
    assert_eq!(cancels.len(), 4, "{docs:#?}");
    for (id, doc) in &cancels {
        assert_eq!(*doc, json!({"v":1,"type":"cancel","reason":"aborted"}));
        let call = docs
            .iter()
            .find(|(i, d)| i == id && d["type"] == "call")
            .unwrap();
        assert_eq!(last_text(&call.1), "stall");
    }
    assert_eq!(host.calls().len(), 12);
    assert!(host.failed_pushes.lock().unwrap().is_empty());
}
