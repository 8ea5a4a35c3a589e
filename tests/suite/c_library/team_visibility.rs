//! `assignTask` children are visible like `Agent` children: their events reach the C host as
//! `ROBOTA_EVENT_SUBAGENT` (the template id as `agent_type`, the `assignTask` call as
//! `parent_tool_call_id`), and they keep a transcript under the parent's.

use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{events_until, runtime, session_new, submit};
use robota::ffi::*;

#[test]
fn an_assigned_child_reports_as_a_subagent_and_keeps_a_transcript() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(Vec::<String>::new()).tool(
        "a1",
        "assignTask",
        r#"{"templateId":"general","jobDescription":"Add 2 and 2"}"#,
    )));
    server.enqueue(Reply::openai(&Turn::text(["4"])));
    server.enqueue(Reply::openai(&Turn::text(["The child says 4."])));
    let mut profile = server.provider_config("openai");
    profile["max_retries"] = json!(0);
    let rt = runtime(&json!({"v":1,"providers":{"p": profile}}).to_string());
    let dir = tempfile::tempdir().unwrap();
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"p","model":"test-model","delivery":"pull","tools":[],"team":true,
                "permission_mode":"bypassPermissions",
                "cwd": dir.path(), "transcript":"logs"})
        .to_string(),
    )
    .unwrap();
    let turn = submit(s, "delegate");
    let events = events_until(s, "turn_completed");
    let last = events.last().unwrap();
    assert_eq!(last["turn_id"], turn);
    assert_eq!(last["response"], "The child says 4.");
    let wrapped: Vec<&Value> = events.iter().filter(|e| e["type"] == "subagent").collect();
    assert!(!wrapped.is_empty(), "{events:?}");
    let agent_id = wrapped[0]["agent_id"].as_str().unwrap().to_string();
    assert!(agent_id.starts_with("agent_"), "{agent_id}");
    for w in &wrapped {
        assert_eq!(w["kind"], ROBOTA_EVENT_SUBAGENT);
        assert_eq!(w["turn_id"], turn);
        assert_eq!(w["agent_id"], agent_id.as_str());
        assert_eq!(w["agent_type"], "general");
        assert_eq!(w["parent_tool_call_id"], "a1");
    }
    let inner: Vec<&str> = wrapped
        .iter()
        .map(|w| w["event"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(inner.first(), Some(&"turn_started"));
    assert_eq!(inner.last(), Some(&"turn_completed"));
    assert!(inner.contains(&"text_delta"), "{inner:?}");
    let child_done = &wrapped.last().unwrap()["event"];
    assert_eq!(child_done["response"], "4");
    assert_eq!(child_done["stop_reason"], "complete");
    // All of the child's events come between the parent's assignTask start and end.
    let pos = |pred: &dyn Fn(&Value) -> bool| events.iter().position(pred).unwrap();
    let start = pos(&|e| e["type"] == "tool_start" && e["tool_call_id"] == "a1");
    let end = pos(&|e| e["type"] == "tool_end" && e["tool_call_id"] == "a1");
    let first = pos(&|e| e["type"] == "subagent");
    let last_sub = events
        .iter()
        .rposition(|e| e["type"] == "subagent")
        .unwrap();
    assert!(start < first && last_sub < end, "{events:?}");
    // The child's transcript sits under the parent's.
    let sid = crate::support_ffi::state(s)["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Freeing the runtime waits for the transcripts' writer (freeing a session does not).
    robota_session_free(s);
    robota_runtime_free(rt);
    let file = dir
        .path()
        .join("logs")
        .join(&sid)
        .join("subagents")
        .join(format!("{agent_id}.jsonl"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert!(text.contains("Add 2 and 2"), "{text}");
    assert!(text.contains("\"turn_completed\""), "{text}");
}
