//! The enforcer's result handling and the session's bookkeeping: truncation (UTF-8 safe, JSON
//! kept valid), observer events, tool errors and panics, context tracking, model/history ops.

use crate::support::session as session_support;

use std::sync::Arc;

use async_trait::async_trait;
use robota_engine::core::message::{Message, Role};
use robota_engine::core::permissions::PermissionMode;
use robota_engine::core::tool::{Tool, ToolContext, ToolResult};
use robota_engine::core::truncation::{truncate_output, truncation_marker, MAX_TOOL_OUTPUT_CHARS};
use robota_engine::session::{Session, SessionRunOptions};
use serde_json::{json, Value};
use session_support::*;

fn run_with_tool(tool: Arc<dyn Tool>, obs: Option<Arc<RecObserver>>) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let name = tool.name().to_string();
    let mut o = options(
        scripted(call_then_answer(&name, json!({}), "done")),
        dir.path(),
        vec![tool],
    );
    o.permission_mode = PermissionMode::BypassPermissions;
    o.observer = obs.map(|x| x as _);
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    s
}

#[test]
fn plain_text_over_30000_chars_keeps_15000_at_each_end() {
    let text = format!(
        "{}{}{}",
        "a".repeat(15_000),
        "M".repeat(10_000),
        "z".repeat(15_000)
    );
    let s = run_with_tool(RecTool::answering("Big", Ok(Value::String(text))), None);
    let msg = tool_message(&s);
    let expected = format!(
        "{}\n\n[... output truncated: 40,000 chars total, showing first and last 15,000 chars ...]\n\n{}",
        "a".repeat(15_000),
        "z".repeat(15_000)
    );
    assert_eq!(msg, expected);
}

#[test]
fn exactly_30000_chars_is_not_truncated() {
    let text = "x".repeat(MAX_TOOL_OUTPUT_CHARS);
    assert_eq!(truncate_output(&text, MAX_TOOL_OUTPUT_CHARS), None);
    let s = run_with_tool(
        RecTool::answering("Big", Ok(Value::String(text.clone()))),
        None,
    );
    assert_eq!(tool_message(&s), text);
}

#[test]
fn truncation_never_splits_multibyte_characters() {
    let text = "한글🙂".repeat(12_000); // 36,000 chars, many bytes each
    let out = truncate_output(&text, MAX_TOOL_OUTPUT_CHARS).unwrap();
    let marker = truncation_marker(36_000, 15_000);
    let (head, tail) = out.split_once(&marker).unwrap();
    assert_eq!(head.chars().count(), 15_000);
    assert_eq!(tail.chars().count(), 15_000);
    assert!(head.starts_with("한글🙂"));
    assert!(tail.ends_with("한글🙂"));
}

#[test]
fn json_results_stay_valid_json_when_truncated() {
    let result = json!({"success": true, "output": "line\n".repeat(12_000), "exitCode": 0});
    let text = result.to_string();
    assert!(text.chars().count() > MAX_TOOL_OUTPUT_CHARS);
    let out = truncate_output(&text, MAX_TOOL_OUTPUT_CHARS).unwrap();
    assert!(
        out.chars().count() <= MAX_TOOL_OUTPUT_CHARS,
        "{}",
        out.chars().count()
    );
    let parsed: Value = serde_json::from_str(&out).expect("still JSON");
    assert_eq!(parsed["success"], true);
    assert_eq!(parsed["exitCode"], 0);
    let output = parsed["output"].as_str().unwrap();
    assert!(output.starts_with("line\nline\n"));
    assert!(output.ends_with("line\n"));
    assert!(output.contains("[... output truncated: 60,000 chars total, showing first and last"));

    // Through a session: a non-string result is encoded, truncated, and still parses.
    let s = run_with_tool(RecTool::answering("J", Ok(result)), None);
    let parsed: Value = serde_json::from_str(&tool_message(&s)).unwrap();
    assert_eq!(parsed["success"], true);
}

#[test]
fn observer_sees_start_and_end_with_the_text_the_model_sees() {
    let obs = Arc::new(RecObserver::default());
    let s = run_with_tool(
        RecTool::answering("Calc", Ok(json!({"sum": 3}))),
        Some(obs.clone()),
    );
    assert_eq!(
        obs.lines.lock().unwrap().clone(),
        vec!["start call_1 Calc", "end call_1 Calc Success"]
    );
    assert_eq!(
        obs.outputs.lock().unwrap().clone(),
        vec![r#"{"sum":3}"#.to_string()]
    );
    assert_eq!(tool_message(&s), r#"{"sum":3}"#);
}

#[test]
fn tool_errors_are_reported_as_errors_and_the_loop_continues() {
    let obs = Arc::new(RecObserver::default());
    let s = run_with_tool(
        RecTool::answering("Fail", Err("disk on fire".into())),
        Some(obs.clone()),
    );
    assert_eq!(tool_message(&s), "Error: disk on fire");
    assert_eq!(obs.lines.lock().unwrap()[1], "end call_1 Fail Error");
    assert_eq!(s.messages().last().unwrap().content, "done");
}

struct Panicky;

#[async_trait]
impl Tool for Panicky {
    fn name(&self) -> &str {
        "Panicky"
    }
    fn description(&self) -> &str {
        "panics"
    }
    fn parameters(&self) -> &Value {
        static P: once_cell::sync::Lazy<Value> =
            once_cell::sync::Lazy::new(|| json!({"type":"object"}));
        &P
    }
    async fn execute(&self, _args: Value, _ctx: &ToolContext) -> ToolResult {
        panic!("tool bug")
    }
}

#[test]
fn a_panicking_tool_becomes_an_error_result() {
    let obs = Arc::new(RecObserver::default());
    let s = run_with_tool(Arc::new(Panicky), Some(obs.clone()));
    assert_eq!(tool_message(&s), "Error: Tool \"Panicky\" panicked");
    assert_eq!(obs.lines.lock().unwrap()[1], "end call_1 Panicky Error");
}

#[test]
fn context_state_follows_provider_usage_and_the_configured_window() {
    let dir = tempfile::tempdir().unwrap();
    let obs = Arc::new(RecObserver::default());
    let mut o = options(
        scripted(json!([{"text":"hi","usage":{"input_tokens":60,"output_tokens":15}}])),
        dir.path(),
        vec![],
    );
    o.context_max_tokens = Some(200);
    o.observer = Some(obs.clone());
    let s = Session::new(o).unwrap();
    let initial = s.context_state();
    assert_eq!(initial.max_tokens, 200);
    assert!(initial.used_tokens > 0, "the system message counts");
    rt().block_on(s.run(Message::user("hello"), SessionRunOptions::default()))
        .unwrap();
    let st = s.context_state();
    assert_eq!(st.used_tokens, 75);
    assert_eq!(st.used_percentage, 37.5);
    assert_eq!(st.remaining_percentage, 62.5);
    let seen = obs.contexts.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "pre-send and post-run updates");
    assert!(
        seen[0].used_tokens > initial.used_tokens,
        "pre-send includes the prompt"
    );
    assert_eq!(seen[1], st);
    s.clear_history();
    assert_eq!(s.context_state().used_tokens, 0);
    assert_eq!(
        s.messages().iter().map(|m| m.role).collect::<Vec<_>>(),
        vec![Role::System]
    );
}

#[test]
fn percentages_cap_at_100() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(
        scripted(json!([{"text":"hi","usage":{"input_tokens":90,"output_tokens":30}}])),
        dir.path(),
        vec![],
    );
    o.context_max_tokens = Some(100);
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("x"), SessionRunOptions::default()))
        .unwrap();
    let st = s.context_state();
    assert_eq!(
        (st.used_tokens, st.used_percentage, st.remaining_percentage),
        (120, 100.0, 0.0)
    );
}

#[test]
fn set_model_switches_the_model_and_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([]));
    let s = Session::new(options(provider.clone(), dir.path(), vec![])).unwrap();
    assert_eq!(s.context_state().max_tokens, 200_000);
    s.set_model("claude-opus-4-6").unwrap();
    assert_eq!(s.model(), "claude-opus-4-6");
    assert_eq!(s.context_state().max_tokens, 1_000_000);
    rt().block_on(s.run(Message::user("x"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(provider.requests()[0].model, "claude-opus-4-6");
    assert!(s.set_model("").is_err());
}

#[test]
fn max_turns_none_is_unlimited_and_some_caps_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let t = RecTool::new("Read");
    let turns: Vec<Value> = (0..12)
        .map(|i| json!({"tool_calls":[{"id":format!("c{i}"),"name":"Read","arguments":{}}]}))
        .chain(std::iter::once(json!({"text":"finally"})))
        .collect();
    let s = Session::new(options(
        scripted(Value::Array(turns.clone())),
        dir.path(),
        vec![t.clone() as Arc<dyn Tool>],
    ))
    .unwrap();
    let r = rt()
        .block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(r.response, "finally");
    assert_eq!(t.count(), 12, "more than the engine's default of 10 rounds");

    let t = RecTool::new("Read");
    let mut o = options(
        scripted(Value::Array(turns)),
        dir.path(),
        vec![t.clone() as Arc<dyn Tool>],
    );
    o.max_turns = Some(3);
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(t.count(), 3);
}

#[test]
fn history_option_resumes_a_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let first = Session::new(options(scripted(json!([])), dir.path(), vec![])).unwrap();
    rt().block_on(first.run(Message::user("one"), SessionRunOptions::default()))
        .unwrap();
    let store = first.agent().store().lock().unwrap().clone();
    let provider = scripted(json!([]));
    let mut o = options(provider.clone(), dir.path(), vec![]);
    o.history = Some(store);
    let resumed = Session::new(o).unwrap();
    assert_eq!(resumed.messages().len(), 3);
    rt().block_on(resumed.run(Message::user("two"), SessionRunOptions::default()))
        .unwrap();
    let sent: Vec<String> = provider.requests()[0]
        .messages
        .iter()
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(
        sent,
        vec!["You are a test assistant.", "one", "offline:one", "two"]
    );
}
