//! Automatic compaction between the rounds of a turn: the history before the running turn is
//! summarized, the turn's own messages stay verbatim after the summary and the next round
//! goes on from there; the kept messages lose their stale usage so it does not repeat.

use robota::core::message::{Message, Role};
use robota::core::permissions::PermissionMode;
use robota::session::{Session, SessionRunOptions};
use serde_json::json;

use super::session_compaction::{PROMPT_HEAD, PROMPT_TAIL};
use crate::support::session::*;

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
