//! Automatic compaction between the rounds of a turn: the history before the running turn is
//! summarized, the turn's own messages stay verbatim after the summary and the next round
//! goes on from there; the kept messages lose their stale usage so it does not repeat.

use robota_engine::core::message::{Message, Role};
use robota_engine::core::permissions::PermissionMode;
use robota_engine::session::{Session, SessionRunOptions};
use serde_json::json;

use crate::support::session::*;
use crate::support::session::{PROMPT_HEAD, PROMPT_TAIL};

fn roles<'a>(msgs: impl IntoIterator<Item = &'a Message>) -> Vec<(Role, String)> {
    msgs.into_iter()
        .map(|m| (m.role, m.content.clone()))
        .collect()
}

#[test]
fn auto_compaction_between_rounds_keeps_the_running_turn() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([
        {"text": "hi there", "usage": {"input_tokens": 100, "output_tokens": 10}},
        {"tool_calls": [{"id": "call_1", "name": "Probe", "arguments": {}}],
         "usage": {"input_tokens": 900, "output_tokens": 10}},
        {"text": "SUM"},
        {"tool_calls": [{"id": "call_2", "name": "Probe", "arguments": {}}]},
        {"text": "done"}
    ]));
    let tool = RecTool::new("Probe");
    let mut o = options(provider.clone(), dir.path(), vec![tool.clone()]);
    o.context_max_tokens = Some(1000);
    o.permission_mode = PermissionMode::BypassPermissions;
    let session = Session::new(o).unwrap();
    let go = |text: &str| {
        rt().block_on(session.run(Message::user(text), SessionRunOptions::default()))
            .unwrap()
    };
    go("hello");
    assert!(!session.auto_compact_due(), "11 % before the second turn");
    let r = go("next");
    assert_eq!(r.response, "done");
    assert_eq!(tool.count(), 2);
    let reqs = provider.requests();
    assert_eq!(reqs.len(), 5, "one summary request, not one per round");
    // The summary covers what came before the running turn only.
    assert_eq!(
        roles(&reqs[2].messages),
        vec![(Role::User, format!("{PROMPT_HEAD}\n{PROMPT_TAIL}"))]
    );
    let result = reqs[3].messages[4].content.clone();
    assert_eq!(
        roles(&reqs[3].messages),
        vec![
            (Role::System, "You are a test assistant.".to_string()),
            (Role::Assistant, "[Context Summary]\nSUM".to_string()),
            (Role::User, "next".to_string()),
            (Role::Assistant, String::new()),
            (Role::Tool, result.clone()),
        ]
    );
    assert_eq!(reqs[3].messages[3].tool_calls[0].id, "call_1");
    assert_eq!(reqs[3].messages[4].tool_call_id.as_deref(), Some("call_1"));
    let history = roles(session.messages().iter().map(|m| m.as_ref()));
    assert_eq!(history.len(), 8, "{history:?}");
    assert_eq!(history[7], (Role::Assistant, "done".to_string()));
    assert!(!session.auto_compact_due());
}

#[test]
fn between_rounds_compaction_through_the_c_abi_fires_hooks_and_events_once() {
    use crate::support_ffi as ffi;
    use robota::ffi::{robota_runtime_free, robota_session_free};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "note").unwrap();
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"text":"one","usage":{"input_tokens":100,"output_tokens":10}},
            {"tool_calls":[{"id":"c1","name":"Read","arguments":{"file_path":file}}],
             "usage":{"input_tokens":900,"output_tokens":10}},
            {"text":"SUM"},
            {"text":"two"}]}}})
        .to_string(),
    );
    let pre = dir.path().join("pre.json");
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","cwd":dir.path(),"delivery":"pull",
                "tools":["Read"],"permission_mode":"bypassPermissions","context_window":1000,
                "hooks":{"PreCompact":[{"matcher":"","hooks":[{"type":"command",
                         "command":format!("cat > '{}'", pre.display())}]}]}})
        .to_string(),
    )
    .unwrap();
    ffi::submit(s, "first");
    ffi::events_until(s, "turn_completed");
    ffi::submit(s, "second");
    let evs = ffi::events_until(s, "turn_completed");
    let types: Vec<&str> = evs.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let end = types
        .iter()
        .position(|t| *t == "tool_end")
        .expect("tool_end");
    let c = types
        .iter()
        .position(|t| *t == "compacted")
        .expect("compacted");
    assert!(end < c, "{types:?}");
    assert_eq!(types[c + 1], "context_update");
    assert_eq!(
        (&evs[c]["trigger"], &evs[c]["summary"]),
        (&json!("auto"), &json!("SUM"))
    );
    assert_eq!(evs.last().unwrap()["response"], "two");
    let messages: Vec<(String, String)> = evs
        .iter()
        .filter(|e| e["type"] == "message")
        .map(|e| {
            (
                e["role"].as_str().unwrap().into(),
                e["content"].as_str().unwrap().into(),
            )
        })
        .collect();
    let roles: Vec<&str> = messages.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        roles,
        ["user", "assistant", "tool", "assistant"],
        "{messages:?}"
    );
    assert_eq!(messages[0].1, "second");
    assert_eq!(messages[3].1, "two");
    let hook_input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pre).unwrap()).unwrap();
    assert_eq!(hook_input["hook_event_name"], "PreCompact");
    assert_eq!(hook_input["trigger"], "auto");
    robota_session_free(s);
    robota_runtime_free(rt);
}
