//! Request shapes that keep the vendors' automatic prefix caching effective: two consecutive
//! rounds' bodies are byte-identical up to the first new message (no per-request noise in the
//! prefix), and OpenAI requests carry the session's `prompt_cache_key` while caching is on.

use std::sync::Arc;

use serde_json::json;

use crate::core::message::{Message, ToolCall};
use crate::core::prompt_cache::PromptCache;
use crate::core::provider::{ChatRequest, NativeWebToolRequest, ToolSchema};
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::{HttpProviderConfig, ProviderKind};

fn call(id: &str) -> Message {
    let mut m = Message::assistant("");
    m.tool_calls = vec![ToolCall::new(id, "read", r#"{"path":"a"}"#)];
    m
}

fn round(n: usize) -> Vec<Arc<Message>> {
    let mut h = vec![Message::system("You are terse."), Message::user("read a")];
    for i in 0..n {
        h.push(call(&format!("c{i}")));
        h.push(Message::tool(format!("file {i}"), format!("c{i}"), "read"));
    }
    h.into_iter().map(Arc::new).collect()
}

fn tools() -> Vec<Arc<ToolSchema>> {
    ["read", "write", "grep"]
        .iter()
        .map(|n| {
            Arc::new(ToolSchema {
                name: n.to_string(),
                description: format!("{n} a file"),
                parameters: json!({"type":"object","properties":{"path":{"type":"string"}}}),
            })
        })
        .collect()
}

fn request<'a>(
    messages: &'a [Arc<Message>],
    tools: &'a [Arc<ToolSchema>],
    cache: PromptCache,
) -> ChatRequest<'a> {
    ChatRequest {
        messages,
        tools,
        model: "m",
        max_tokens: Some(64),
        temperature: None,
        native_web_tools: NativeWebToolRequest::default(),
        thinking_budget: None,
        tool_choice: &ToolChoice::Auto,
        prompt_cache: cache,
        cache_key: Some("conv_42"),
        output_schema: None,
    }
}

fn cfg(kind: ProviderKind) -> HttpProviderConfig {
    HttpProviderConfig::parse("p", kind, &json!({})).unwrap()
}

fn body(kind: ProviderKind, messages: &[Arc<Message>], cache: PromptCache) -> String {
    let (cfg, tools) = (cfg(kind), tools());
    let req = request(messages, &tools, cache);
    let v = match kind {
        ProviderKind::Anthropic => {
            serde_json::to_string(&super::anthropic::RequestBody::new(&cfg, &req))
        }
        ProviderKind::Gemini => {
            serde_json::to_string(&super::gemini::RequestBody::new(&cfg, &req, &|_| None))
        }
        _ => serde_json::to_string(&super::openai::RequestBody::new(&cfg, &req)),
    };
    v.unwrap()
}

/// Round `n + 1`'s body starts with round `n`'s body up to where its message list ends.
fn assert_prefix_kept(kind: ProviderKind, list_end: &str) {
    for n in 1..4 {
        let before = body(kind, &round(n), PromptCache::FiveMinutes);
        let after = body(kind, &round(n + 1), PromptCache::FiveMinutes);
        let end = before.find(list_end).expect("the message list ends");
        assert!(
            after.starts_with(&before[..end]),
            "{kind:?} round {n}:\n{before}\n{after}"
        );
        // The same request twice is the same bytes (nothing per request in it).
        assert_eq!(before, body(kind, &round(n), PromptCache::FiveMinutes));
    }
}

#[test]
fn openai_rounds_share_their_byte_prefix() {
    assert_prefix_kept(ProviderKind::OpenAi, r#"],"stream""#);
    assert_prefix_kept(ProviderKind::OpenAiCompatible, r#"],"stream""#);
}

#[test]
fn gemini_rounds_share_their_byte_prefix() {
    assert_prefix_kept(ProviderKind::Gemini, r#"],"systemInstruction""#);
}

#[test]
fn anthropic_rounds_without_breakpoints_share_their_byte_prefix() {
    for n in 1..4 {
        let before = body(ProviderKind::Anthropic, &round(n), PromptCache::Off);
        let after = body(ProviderKind::Anthropic, &round(n + 1), PromptCache::Off);
        let end = before.find(r#"],"stream""#).unwrap();
        assert!(after.starts_with(&before[..end]));
    }
}

#[test]
fn openai_sends_the_sessions_prompt_cache_key_while_caching_is_on() {
    let msgs = round(1);
    let b: serde_json::Value =
        serde_json::from_str(&body(ProviderKind::OpenAi, &msgs, PromptCache::FiveMinutes)).unwrap();
    assert_eq!(b["prompt_cache_key"], "conv_42");
    let text = body(ProviderKind::OpenAi, &msgs, PromptCache::OneHour);
    assert!(
        text.ends_with(r#","prompt_cache_key":"conv_42"}"#),
        "{text}"
    );
    for (kind, cache) in [
        (ProviderKind::OpenAi, PromptCache::Off),
        (ProviderKind::OpenAiCompatible, PromptCache::FiveMinutes),
    ] {
        let text = body(kind, &msgs, cache);
        assert!(
            !text.contains("prompt_cache_key"),
            "{kind:?} {cache:?}: {text}"
        );
    }
}
