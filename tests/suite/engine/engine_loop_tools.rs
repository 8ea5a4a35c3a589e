//! Tool rounds of the execution loop on the scripted provider: unknown tools and their streak,
//! reused call ids, the round separator, invalid arguments and failing tools.

use std::sync::Arc;

use common::*;
use robota_engine::core::agent::RunOptions;
use robota_engine::core::message::Role;
use robota_engine::core::tool::Tool;
use serde_json::{json, Value};

use crate::support::engine as common;

#[tokio::test]
async fn unknown_tools_are_not_executed_and_streak_forces_summary() {
    let p = scripted(json!([
        {"tool_calls":[{"id":"c1","name":"ghost","arguments":{}}]},
        {"tool_calls":[{"id":"c2","name":"ghost","arguments":{}}]},
        {"text":"I could not use ghost."}
    ]));
    let known = TestTool::new("known", Ok(json!("ok")));
    let cap = Capture::default();
    let a = agent(p.clone(), vec![known.clone() as Arc<dyn Tool>], |_| {});
    let r = a.run("go", cap.options()).await.unwrap();
    assert_eq!(p.call_count(), 3);
    assert_eq!(cap.of("tool_batch_started").len(), 2);
    assert!(r.tools_executed.is_empty());
    assert_eq!(known.call_count(), 0);
    assert_eq!(r.response, "I could not use ghost.");
    let forced = p
        .requests()
        .last()
        .unwrap()
        .messages
        .last()
        .unwrap()
        .content
        .clone();
    assert_eq!(
        forced,
        "The model repeatedly requested unavailable tool(s): ghost. Those tool calls were not executed because they are not registered tools. Respond to the user now with that reason and use the available tool results already in the conversation history."
    );
    let tool_msg = a
        .messages()
        .iter()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .clone();
    assert_eq!(
        tool_msg.content,
        "Error: Tool \"ghost\" is not registered, so the tool call was not executed. Available tools: known."
    );
    assert_eq!(tool_msg.meta("errorCode"), Some(&json!("unknown_tool")));
    assert_eq!(tool_msg.meta("requestedTool"), Some(&json!("ghost")));
    assert_eq!(tool_msg.meta("availableTools"), Some(&json!(["known"])));
    let results = cap.of("tool_execution_result");
    assert_eq!(results[0]["metadata"]["errorCode"], "unknown_tool");
}

#[tokio::test]
async fn unknown_tool_with_no_tools_registered() {
    let p = scripted(json!([{"tool_calls":[{"id":"c1","name":"ghost"}]}, {"text":"ok"}]));
    let a = agent(p, vec![], |_| {});
    a.run("go", RunOptions::default()).await.unwrap();
    let tool_msg = a
        .messages()
        .iter()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .clone();
    assert!(
        tool_msg
            .content
            .ends_with("Available tools: no registered tools are available."),
        "{}",
        tool_msg.content
    );
}

#[tokio::test]
async fn a_known_tool_round_resets_the_unknown_streak() {
    let p = scripted(json!([
        {"tool_calls":[{"id":"c1","name":"ghost"}]},
        {"tool_calls":[{"id":"c2","name":"t"}]},
        {"tool_calls":[{"id":"c3","name":"ghost"}]},
        {"text":"end"}
    ]));
    let t = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p.clone(), vec![t as Arc<dyn Tool>], |_| {});
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(p.call_count(), 4);
    assert_eq!(r.response, "end");
    assert_eq!(r.tools_executed, vec!["t".to_string()]);
}

#[tokio::test]
async fn reused_provider_call_ids_are_kept() {
    let p = scripted(json!([
        {"tool_calls":[{"id":"call_0","name":"t","arguments":{"n":1}}]},
        {"tool_calls":[{"id":"call_0","name":"t","arguments":{"n":2}}]},
        {"text":"done"}
    ]));
    let t = TestTool::new("t", Ok(json!("$echo")));
    let a = agent(p, vec![t as Arc<dyn Tool>], |_| {});
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(r.response, "done");
    let msgs = a.messages();
    let calls: Vec<&str> = msgs
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str()))
        .collect();
    assert_eq!(calls, vec!["call_0", "call_0"]);
    let tools: Vec<(&str, &str)> = msgs
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| (m.tool_call_id.as_deref().unwrap(), m.content.as_str()))
        .collect();
    assert_eq!(
        tools,
        vec![("call_0", "echo:{\"n\":1}"), ("call_0", "echo:{\"n\":2}")]
    );
}

#[tokio::test]
async fn round_separator_goes_to_the_run_callback_only() {
    let p = scripted(json!([
        {"deltas":["Looking"],"tool_calls":[{"id":"a","name":"t"}]},
        {"deltas":["Found ","it"]}
    ]));
    let t = TestTool::new("t", Ok(json!("ok")));
    let cap = Capture::default();
    let a = agent(p, vec![t as Arc<dyn Tool>], |_| {});
    let r = a.run("go", cap.options()).await.unwrap();
    assert_eq!(cap.text(), "Looking\n\nFound it");
    assert_eq!(r.response, "Found it");
    let assistants: Vec<String> = a
        .messages()
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(
        assistants,
        vec!["Looking".to_string(), "Found it".to_string()]
    );
    // The separator is not a stream delta event.
    let deltas: Vec<Value> = cap
        .of("provider_stream_raw_delta")
        .iter()
        .map(|d| d["delta"].clone())
        .collect();
    assert_eq!(deltas, vec![json!("Looking"), json!("Found "), json!("it")]);
}

#[tokio::test]
async fn invalid_tool_arguments_become_a_failed_result() {
    let p = scripted(
        json!([{"tool_calls":[{"id":"c","name":"t","arguments":"{not json"}]}, {"text":"sorry"}]),
    );
    let t = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p, vec![t.clone() as Arc<dyn Tool>], |_| {});
    a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(t.call_count(), 0);
    let tool_msg = a
        .messages()
        .iter()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .clone();
    assert_eq!(
        tool_msg.content,
        "Error: Validation Error: Failed to parse arguments for tool \"t\" (call c): invalid JSON"
    );
}

#[tokio::test]
async fn tool_failure_is_recorded_as_error_text() {
    let p = scripted(json!([{"tool_calls":[{"id":"c","name":"t"}]}, {"text":"handled"}]));
    let t = TestTool::new("t", Err("disk full".into()));
    let a = agent(p, vec![t as Arc<dyn Tool>], |_| {});
    let r = a.run("go", RunOptions::default()).await.unwrap();
    let tool_msg = a
        .messages()
        .iter()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .clone();
    assert_eq!(tool_msg.content, "Error: disk full");
    assert_eq!(tool_msg.meta("success"), Some(&json!(false)));
    assert_eq!(tool_msg.meta("error"), Some(&json!("disk full")));
    assert_eq!(tool_msg.meta("toolName"), Some(&json!("t")));
    assert_eq!(r.tools_executed, vec!["t".to_string()]);
}
