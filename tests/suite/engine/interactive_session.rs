//! `InteractiveSession` from Rust (no C layer): the prompt queue of one, abort (partial text
//! kept, queued prompt dropped), the UI history entries of a turn with a tool call, and the
//! system commands. Every wait is on an event or on `wait`, never a sleep.

use std::sync::Arc;
use std::time::Duration;

use robota_engine::core::history::HistoryEntry;
use robota_engine::sdk::commands::builtin;
use robota_engine::sdk::error::ErrorCode;
use robota_engine::sdk::events::{self, Event};
use robota_engine::sdk::interactive::{InteractiveSession, TurnInput};
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

use crate::support::host_session::{
    recorded_session, scripted_runtime, text_input as input, Recorder,
};

/// Waits (30 s at most) until an event satisfies `pred`.
fn wait_for(seen: &Recorder, what: &str, pred: impl Fn(&Event) -> bool) {
    let msg = format!("no {what} event within 30 s");
    seen.wait_until(Duration::from_secs(30), &msg, |evs| {
        evs.iter().any(&pred).then_some(())
    });
}

/// Payloads of the events of `kind` so far.
fn of_kind(seen: &Recorder, kind: u32) -> Vec<Value> {
    seen.of_kind(kind)
        .iter()
        .map(|e| serde_json::from_str(&e.payload_text()).unwrap())
        .collect()
}

struct Fixture {
    _rt: Runtime,
    session: InteractiveSession,
    seen: Arc<Recorder>,
    _dir: tempfile::TempDir,
}

/// A session on a scripted provider playing `turns`, with `tools` and its cwd in a temp dir.
fn session(turns: Value, tools: Value) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\n").unwrap();
    let rt = scripted_runtime(json!({ "turns": turns }), json!({}));
    let (session, seen) = recorded_session(
        &rt,
        &json!({"v":1,"provider":"s","model":"m","tools":tools,
                "cwd": dir.path().to_str().unwrap()}),
    )
    .unwrap();
    Fixture {
        _rt: rt,
        session,
        seen,
        _dir: dir,
    }
}

const WAIT: Option<Duration> = Some(Duration::from_secs(30));

#[test]
fn a_submit_while_running_is_queued_once_and_abort_drops_it_keeping_the_partial_text() {
    let f = session(json!([{"deltas":["partial"],"hang":true}]), json!([]));
    let s = &f.session;
    assert_eq!(s.submit(input("first")).unwrap(), 1);
    assert_eq!(s.submit(input("second")).unwrap(), 2);
    assert_eq!(s.pending_prompt().as_deref(), Some("second"));
    let busy = s.submit(input("third")).unwrap_err();
    assert_eq!(busy.code, ErrorCode::Busy);
    assert_eq!(s.pending_prompt().as_deref(), Some("second"));
    wait_for(&f.seen, "text delta", |e| e.kind == events::TEXT_DELTA);
    assert!(s.is_executing());
    assert_eq!(s.streaming_text(), "partial");
    s.abort(0).unwrap();
    assert_eq!(s.wait(1, WAIT).unwrap_err().code, ErrorCode::Aborted);
    assert_eq!(s.wait(2, WAIT).unwrap_err().code, ErrorCode::Aborted);
    assert_eq!(s.wait(0, WAIT), Ok(()));
    assert!(!s.is_executing());
    assert_eq!(s.pending_prompt(), None);
    let mut done: Vec<(u64, String, bool)> = of_kind(&f.seen, events::TURN_COMPLETED)
        .iter()
        .map(|v| {
            (
                v["turn_id"].as_u64().unwrap(),
                v["stop_reason"].as_str().unwrap().to_string(),
                v.get("started") != Some(&json!(false)),
            )
        })
        .collect();
    done.sort();
    assert_eq!(
        done,
        vec![(1, "aborted".into(), true), (2, "aborted".into(), false)]
    );
    // The interrupted answer is committed: the model sees its partial text next time.
    let conv = s.conversation();
    let last = conv.last().unwrap();
    assert_eq!(last.content, "partial");
    assert_eq!(s.abort(7).unwrap_err().code, ErrorCode::NotFound);
    assert_eq!(s.abort(1), Ok(()), "aborting a finished turn does nothing");
}

#[test]
fn a_turn_with_a_tool_call_leaves_the_reference_history_entries() {
    let f = session(
        json!([
            {"text":"Reading.","tool_calls":[{"id":"call_0","name":"Read","arguments":{"filePath":"notes.txt"}}]},
            {"text":"It says alpha."}
        ]),
        json!(["Read"]),
    );
    let s = &f.session;
    let id = s
        .submit(TurnInput {
            text: "read notes".into(),
            display_input: Some("/read notes".into()),
            raw_input: None,
            tool_choice: None,
            output_schema: None,
            host_command: None,
            images: Vec::new(),
            skill: None,
        })
        .unwrap();
    s.wait(id, WAIT).unwrap();
    let kinds: Vec<String> = s
        .full_history()
        .iter()
        .map(|e| match e {
            HistoryEntry::Chat(m) => format!("{:?}:{}", m.role, m.content),
            HistoryEntry::Event(ev) => ev.kind.clone(),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "User:/read notes",
            "tool-start",
            "tool-end",
            "tool-summary",
            "Assistant:It says alpha.",
        ],
        "{:?}",
        s.full_history()
    );
    // The entries' data, exactly (kept as made, JSON when read), and equal to itself after a
    // trip through a file's JSON.
    let history = s.full_history();
    let data: Vec<Value> = history
        .iter()
        .filter_map(|e| match e {
            HistoryEntry::Event(ev) => Some(serde_json::to_value(&ev.data).unwrap()),
            HistoryEntry::Chat(_) => None,
        })
        .collect();
    assert_eq!(
        data,
        vec![
            json!({"toolName":"Read","firstArg":"notes.txt","isRunning":true}),
            json!({"toolName":"Read","firstArg":"notes.txt","isRunning":false,"result":"success"}),
            json!({"tools":[{"toolName":"Read","firstArg":"notes.txt","isRunning":false,"result":"success"}],
                   "summary":"✓ Read(notes.txt)"}),
        ]
    );
    let text = serde_json::to_string(&history).unwrap();
    let back: Vec<HistoryEntry> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, history);
    assert_eq!(serde_json::to_string(&back).unwrap(), text);
    assert_eq!(s.message_count(), 1);
    // Each `message` event is the conversation's message, exactly as the message serialises
    // (the event reuses the text the history wrote when it appended the message).
    let conversation = s.conversation();
    assert_eq!(conversation.len(), 4, "{conversation:?}");
    let message_docs: Vec<String> = f
        .seen
        .events()
        .iter()
        .filter(|e| e.kind == events::MESSAGE)
        .map(Event::payload_text)
        .collect();
    let expected: Vec<String> = conversation
        .iter()
        .map(|m| {
            let own = serde_json::to_string(m.as_ref()).unwrap();
            format!("{{\"v\":1,\"type\":\"message\",{}", &own[1..])
        })
        .collect();
    assert_eq!(message_docs, expected);
    let ends = of_kind(&f.seen, events::TOOL_END);
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0]["tool_name"], "Read");
    assert_eq!(ends[0]["result"], "success");
    assert!(
        ends[0]["output"].as_str().unwrap().contains("alpha"),
        "{}",
        ends[0]
    );
}

#[test]
fn system_commands_change_and_report_the_session() {
    let f = session(json!([{"deltas":["x"],"hang":true}]), json!([]));
    let s = &f.session;
    let run = |name: &str, args: &str| builtin::execute(s, name, args).unwrap();
    assert_eq!(
        run("mode", "plan"),
        json!({"v":1,"message":"Permission mode set to: plan","success":true,"data":{"mode":"plan"}})
    );
    assert_eq!(s.permission_state().mode.as_str(), "plan");
    assert_eq!(run("mode", "sideways")["success"], false);
    assert_eq!(run("model", "other-model")["success"], true);
    assert_eq!(s.config().model, "other-model");
    assert_eq!(run("cancel_queue", "")["message"], "No queued prompt.");
    s.submit(input("one")).unwrap();
    s.submit(input("two")).unwrap();
    assert_eq!(
        run("cancel_queue", ""),
        json!({"v":1,"message":"Queued prompt cancelled (turn 2).","success":true,"data":{"turn_id":2}})
    );
    assert_eq!(s.wait(2, WAIT).unwrap_err().code, ErrorCode::Aborted);
    let busy = builtin::execute(s, "clear", "").unwrap_err();
    assert_eq!(busy.code, ErrorCode::Busy);
    s.abort(0).unwrap();
    assert_eq!(s.wait(1, WAIT).unwrap_err().code, ErrorCode::Aborted);
    assert_eq!(run("clear", "")["message"], "Conversation cleared.");
    assert!(s.full_history().is_empty());
    let unknown = builtin::execute(s, "teleport", "").unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
    assert!(unknown
        .message
        .starts_with("unknown command \"teleport\" (available: help, clear"));
}
