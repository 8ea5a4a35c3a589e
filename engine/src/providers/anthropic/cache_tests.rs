//! The exact request bodies with prompt-cache breakpoints: where they go each round, their TTL,
//! none when caching is off, and never more than four.

use std::sync::Arc;

use serde_json::{json, Value};

use super::body::RequestBody;
use crate::core::message::{Message, NativeContent, ToolCall};
use crate::core::prompt_cache::PromptCache;
use crate::core::provider::{ChatRequest, NativeWebToolRequest, ToolSchema};
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::{HttpProviderConfig, ProviderKind};

fn tools(n: usize) -> Vec<Arc<ToolSchema>> {
    (0..n)
        .map(|i| {
            Arc::new(ToolSchema {
                name: format!("t{i}"),
                description: format!("tool {i}"),
                parameters: json!({"type": "object"}),
            })
        })
        .collect()
}

fn call(id: &str) -> Message {
    let mut m = Message::assistant("");
    m.tool_calls = vec![ToolCall::new(id, "t0", "{}")];
    m
}

/// The body for `messages` and `tools` under `cache`, as JSON.
fn body_with(
    messages: Vec<Message>,
    tools: &[Arc<ToolSchema>],
    cache: PromptCache,
    web_search: bool,
) -> Value {
    let cfg = HttpProviderConfig::parse(
        "a",
        ProviderKind::Anthropic,
        &json!({"kind": "anthropic", "web_search": web_search}),
    )
    .unwrap();
    let messages: Vec<Arc<Message>> = messages.into_iter().map(Arc::new).collect();
    let request = ChatRequest {
        messages: &messages,
        tools,
        model: "claude-x",
        max_tokens: Some(100),
        temperature: None,
        native_web_tools: NativeWebToolRequest {
            web_search,
            web_fetch: false,
        },
        thinking_budget: None,
        tool_choice: &ToolChoice::Auto,
        prompt_cache: cache,
        cache_key: Some("conv_1"),
        output_schema: None,
    };
    serde_json::to_value(RequestBody::new(&cfg, &request)).unwrap()
}

fn body(messages: Vec<Message>, tools: &[Arc<ToolSchema>], cache: PromptCache) -> Value {
    body_with(messages, tools, cache, false)
}

fn breakpoints(body: &Value) -> usize {
    body.to_string().matches("\"cache_control\"").count()
}

const EPHEMERAL: &str = r#"{"type":"ephemeral"}"#;

fn eph() -> Value {
    serde_json::from_str(EPHEMERAL).unwrap()
}

#[test]
fn round_one_marks_the_tools_the_system_and_the_prompt() {
    let b = body(
        vec![Message::system("Be brief."), Message::user("hi")],
        &tools(2),
        PromptCache::FiveMinutes,
    );
    assert_eq!(
        b,
        json!({
            "model": "claude-x", "max_tokens": 100,
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "hi", "cache_control": eph()}]}],
            "stream": true,
            "system": [{"type": "text", "text": "Be brief.", "cache_control": eph()}],
            "tools": [
                {"name": "t0", "description": "tool 0", "input_schema": {"type": "object"}},
                {"name": "t1", "description": "tool 1", "input_schema": {"type": "object"},
                 "cache_control": eph()}]
        })
    );
    let bytes = serde_json::to_string(&b).unwrap();
    assert!(bytes.contains(r#""text":"hi","cache_control":{"type":"ephemeral"}"#));
}

#[test]
fn round_three_marks_the_newest_result_and_the_one_the_last_request_ended_with() {
    let b = body(
        vec![
            Message::system("S"),
            Message::user("go"),
            call("c1"),
            Message::tool("r1", "c1", "t0"),
            call("c2"),
            Message::tool("r2", "c2", "t0"),
        ],
        &tools(1),
        PromptCache::FiveMinutes,
    );
    assert_eq!(
        b["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "t0", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "r1",
                                          "cache_control": eph()}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c2", "name": "t0", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2", "content": "r2",
                                          "cache_control": eph()}]}
        ])
    );
    assert_eq!(b["system"][0]["cache_control"], eph());
    assert_eq!(b["tools"][0]["cache_control"], eph());
    assert_eq!(breakpoints(&b), 4);
}

#[test]
fn the_one_hour_ttl_is_on_every_breakpoint() {
    let b = body(
        vec![Message::system("S"), Message::user("a")],
        &tools(1),
        PromptCache::OneHour,
    );
    let one_hour = json!({"type": "ephemeral", "ttl": "1h"});
    assert_eq!(b["tools"][0]["cache_control"], one_hour);
    assert_eq!(b["system"][0]["cache_control"], one_hour);
    assert_eq!(b["messages"][0]["content"][0]["cache_control"], one_hour);
    assert_eq!(breakpoints(&b), 3);
}

#[test]
fn off_sends_no_breakpoint_and_the_system_as_text() {
    let b = body(
        vec![Message::system("S"), Message::user("a"), call("c1")],
        &tools(3),
        PromptCache::Off,
    );
    assert_eq!(breakpoints(&b), 0);
    assert_eq!(b["system"], "S");
}

#[test]
fn many_tools_system_messages_and_turns_never_exceed_four() {
    let mut history = vec![Message::system("one"), Message::system("two")];
    for i in 0..10 {
        history.push(Message::user(format!("u{i}")));
        history.push(Message::assistant(format!("a{i}")));
    }
    history.push(Message::user("last"));
    let b = body(history, &tools(30), PromptCache::FiveMinutes);
    assert_eq!(breakpoints(&b), 4);
    // Both system messages are one block; only the last tool carries the breakpoint.
    assert_eq!(
        b["system"],
        json!([{"type": "text", "text": "one\n\ntwo", "cache_control": eph()}])
    );
    assert_eq!(b["tools"][29]["cache_control"], eph());
    assert!(b["tools"][28].get("cache_control").is_none());
    let msgs = b["messages"].as_array().unwrap();
    assert_eq!(msgs[20]["content"][0]["cache_control"], eph());
    assert_eq!(msgs[18]["content"][0]["cache_control"], eph());
    assert!(msgs[16]["content"][0].get("cache_control").is_none());
}

#[test]
fn breakpoints_kept_vendor_blocks_carry_count_toward_the_limit() {
    let mut kept = Message::assistant("x");
    kept.native = Some(Box::new(NativeContent {
        format: "anthropic-messages".into(),
        blocks: vec![
            json!({"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}),
            json!({"type": "text", "text": "y", "cache_control": {"type": "ephemeral"}}),
        ],
    }));
    let b = body(
        vec![
            Message::system("S"),
            Message::user("a"),
            kept,
            Message::user("b"),
        ],
        &tools(1),
        PromptCache::FiveMinutes,
    );
    // Two were there: the two newest user messages take the two left.
    assert_eq!(breakpoints(&b), 4);
    assert_eq!(b["system"], "S");
    assert!(b["tools"][0].get("cache_control").is_none());
    assert_eq!(b["messages"][2]["content"][0]["cache_control"], eph());
}

#[test]
fn the_web_search_tool_is_the_last_tool_and_carries_the_tools_breakpoint() {
    let b = body_with(
        vec![Message::user("a")],
        &tools(1),
        PromptCache::FiveMinutes,
        true,
    );
    assert!(b["tools"][0].get("cache_control").is_none());
    assert_eq!(
        b["tools"][1],
        json!({"type": "web_search_20250305", "name": "web_search", "cache_control": eph()})
    );
}

#[test]
fn a_conversation_without_tools_or_system_marks_only_its_messages() {
    let b = body(
        vec![
            Message::user("a"),
            Message::assistant("b"),
            Message::user("c"),
        ],
        &[],
        PromptCache::FiveMinutes,
    );
    assert_eq!(breakpoints(&b), 2);
    assert!(b.get("tools").is_none() && b.get("system").is_none());
}
