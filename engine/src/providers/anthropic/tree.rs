//! The request body as a `serde_json::Value` tree, as it was built before [`super::body`]
//! wrote it straight to bytes: kept for tests only, which check that both give the same bytes.

use std::sync::Arc;

use serde_json::{json, Value};

use super::{API_SURFACE, WEB_SEARCH_TOOL};
use crate::core::message::{Message, MessageState, Part, Role, ToolCall};
use crate::core::provider::ChatRequest;
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::{HttpProviderConfig, DEFAULT_ANTHROPIC_MAX_TOKENS};
use crate::providers::convert::{args_object, system_text, ToolIdMap};

fn user_blocks(m: &Message) -> Vec<Value> {
    match &m.parts {
        Some(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } if text.is_empty() => None,
                Part::Text { text } => Some(json!({"type": "text", "text": text})),
                Part::ImageInline { mime_type, data } => Some(json!({
                    "type": "image",
                    "source": {"type": "base64", "media_type": mime_type, "data": data}
                })),
                Part::ImageUri { uri, .. } => Some(json!({
                    "type": "image", "source": {"type": "url", "url": uri}
                })),
            })
            .collect(),
        None if m.content.is_empty() => Vec::new(),
        None => vec![json!({"type": "text", "text": m.content})],
    }
}

fn tool_use_block(c: &ToolCall, ids: &mut ToolIdMap) -> Value {
    let mut block = json!({
        "type": "tool_use",
        "id": ids.call(&c.id),
        "name": c.function.name,
        "input": null,
    });
    // Moved in (`json!` would copy the parsed arguments once more).
    block["input"] = args_object(&c.function.arguments);
    block
}

/// An assistant message's blocks: its kept vendor blocks in their order (tool-use blocks
/// rendered from `toolCalls`, so ids and arguments stay consistent with the results), else
/// its text and tool calls.
fn assistant_blocks(m: &Message, ids: &mut ToolIdMap) -> Vec<Value> {
    let native = m
        .native
        .as_ref()
        .filter(|n| n.format == API_SURFACE && m.state == MessageState::Complete);
    let Some(native) = native else {
        let mut blocks = Vec::with_capacity(1 + m.tool_calls.len());
        let text = m.content_for_api();
        if !text.is_empty() {
            blocks.push(json!({"type": "text", "text": text}));
        }
        blocks.extend(m.tool_calls.iter().map(|c| tool_use_block(c, ids)));
        return blocks;
    };
    let mut sent = vec![false; m.tool_calls.len()];
    let mut blocks = Vec::with_capacity(native.blocks.len() + m.tool_calls.len());
    for b in &native.blocks {
        if b.get("type").and_then(Value::as_str) != Some("tool_use") {
            blocks.push(b.clone());
            continue;
        }
        let id = b.get("id").and_then(Value::as_str);
        if let Some(i) = m.tool_calls.iter().position(|c| Some(c.id.as_str()) == id) {
            if !sent[i] {
                sent[i] = true;
                blocks.push(tool_use_block(&m.tool_calls[i], ids));
            }
        }
    }
    for (c, done) in m.tool_calls.iter().zip(sent) {
        if !done {
            blocks.push(tool_use_block(c, ids));
        }
    }
    blocks
}

/// Converts the universal history to Anthropic `(system, messages)`.
pub(super) fn convert_messages(messages: &[Arc<Message>]) -> (Option<String>, Vec<Value>) {
    let mut ids = ToolIdMap::default();
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in messages {
        let (role, blocks) = match m.role {
            Role::System => continue,
            Role::User => ("user", user_blocks(m)),
            Role::Assistant => ("assistant", assistant_blocks(m, &mut ids)),
            Role::Tool => {
                let id = ids.result(m.tool_call_id.as_deref().unwrap_or_default());
                (
                    "user",
                    vec![if m.is_tool_error() {
                        json!({"type": "tool_result", "tool_use_id": id, "content": m.content,
                               "is_error": true})
                    } else {
                        json!({"type": "tool_result", "tool_use_id": id, "content": m.content})
                    }],
                )
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((r, b)) if *r == role => b.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    let msgs = out
        .into_iter()
        .map(|(role, content)| {
            let mut m = json!({"role": role, "content": null});
            m["content"] = Value::Array(content);
            m
        })
        .collect();
    (system_text(messages), msgs)
}

/// Builds the request body.
pub(super) fn request_body(cfg: &HttpProviderConfig, request: &ChatRequest<'_>) -> Value {
    let (system, messages) = convert_messages(request.messages);
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_tokens.or(cfg.max_tokens).unwrap_or(DEFAULT_ANTHROPIC_MAX_TOKENS),
        "messages": null,
        "stream": true,
    });
    // Moved in, not through `json!` (which would copy the whole converted history again).
    body["messages"] = Value::Array(messages);
    if let Some(s) = system {
        body["system"] = Value::String(s);
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(b) = request.thinking_budget {
        // Extended thinking: `max_tokens` must exceed the budget.
        let max = body["max_tokens"].as_u64().unwrap_or(0);
        if max <= u64::from(b) {
            body["max_tokens"] = json!(u64::from(b) + u64::from(DEFAULT_ANTHROPIC_MAX_TOKENS));
        }
        body["thinking"] = json!({"type": "enabled", "budget_tokens": b});
    }
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    if request.native_web_tools.web_search && cfg.web_search {
        tools.push(json!({"type": WEB_SEARCH_TOOL, "name": "web_search"}));
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
        match request.tool_choice {
            ToolChoice::Auto => {}
            ToolChoice::None => body["tool_choice"] = json!({"type": "none"}),
            ToolChoice::Required => body["tool_choice"] = json!({"type": "any"}),
            ToolChoice::Tool(n) => body["tool_choice"] = json!({"type": "tool", "name": n}),
        }
    }
    body
}
