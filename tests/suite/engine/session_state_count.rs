//! `message_count` of the session state (and of snapshots and store listings): the number of
//! turns that completed with an answer, not a number of messages. A tool round adds messages
//! to every view but one to the count; a failed turn adds none; fork carries it.

use std::time::Duration;

use robota_engine::sdk::persistence::snapshot::parse_fork;
use serde_json::{json, Value};

use crate::support::host_session::{recorded_session, scripted_runtime, text_input as input};

const WAIT: Option<Duration> = Some(Duration::from_secs(30));

fn view_len(s: &robota_engine::sdk::interactive::InteractiveSession, name: &str) -> usize {
    let doc: Value = serde_json::from_str(
        &s.messages_json(Some(&json!({"view": name}).to_string()))
            .unwrap(),
    )
    .unwrap();
    doc["messages"].as_array().unwrap().len()
}

#[test]
fn message_count_counts_turns_that_completed_with_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\n").unwrap();
    let rt = scripted_runtime(
        json!({"turns":[
            {"tool_calls":[{"id":"call_1","name":"Read","arguments":{"filePath":"notes.txt"}}]},
            {"text":"it says alpha"},
            {"error":{"kind":"provider","message":"boom"}},
            {"text":"second answer"}
        ]}),
        json!({}),
    );
    let (s, _seen) = recorded_session(
        &rt,
        &json!({"v":1,"provider":"s","model":"m","tools":["Read"],"delivery":"pull",
                "permission_mode":"bypassPermissions","cwd": dir.path()}),
    )
    .unwrap();
    assert_eq!(s.state_json()["message_count"], 0);
    // A tool round: user, assistant call, tool result, answer; the count is one turn.
    let t = s.submit(input("read it")).unwrap();
    s.wait(t, WAIT).unwrap();
    assert_eq!(view_len(&s, "conversation"), 4);
    assert_eq!(view_len(&s, "messages"), 2);
    assert_eq!(s.state_json()["message_count"], 1);
    // A failed turn is not counted.
    let t = s.submit(input("again")).unwrap();
    assert!(s.wait(t, WAIT).is_err());
    assert_eq!(s.state_json()["message_count"], 1);
    let t = s.submit(input("third")).unwrap();
    s.wait(t, WAIT).unwrap();
    assert_eq!(s.state_json()["message_count"], 2);
    // The snapshot and a fork carry it.
    assert_eq!(
        robota_engine::sdk::persistence::snapshot::snapshot(&s)["message_count"],
        2
    );
    let (_cfg, restore) = parse_fork(&s, None).unwrap();
    assert_eq!(restore.message_count, 2);
}
