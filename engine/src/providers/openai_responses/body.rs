//! The Responses API request body: the system messages as `instructions`, the history as
//! `input` items (user and assistant messages, `function_call` and `function_call_output`
//! items, and the reasoning items an earlier answer returned, sent back verbatim with their
//! `encrypted_content`), `store: false` with `include: ["reasoning.encrypted_content"]` (the
//! conversation lives in the history, not on OpenAI's servers), function tools
//! (`strict: false`: the tools' schemas are not written for strict mode), `tool_choice`, and
//! the structured-output schema as `text.format`, and `prompt_cache_key` as on Chat Completions.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::NATIVE_FORMAT;
use crate::core::message::{Message, Part, Role, ToolCall};
use crate::core::provider::{ChatRequest, ToolSchema};
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::HttpProviderConfig;
use crate::providers::convert::{data_url, system_text};
use crate::providers::openai::prompt_cache_key;
use crate::providers::openai::reasoning_effort;
use crate::providers::output_format::ResponsesTextFormat;

/// The body of one streamed `POST /responses`.
pub fn request_body(cfg: &HttpProviderConfig, request: &ChatRequest<'_>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    if let Some(instructions) = system_text(request.messages) {
        body.insert("instructions".into(), json!(instructions));
    }
    body.insert("input".into(), Value::Array(input_items(request.messages)));
    body.insert("stream".into(), json!(true));
    body.insert("store".into(), json!(false));
    body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    if let Some(n) = request.max_tokens.or(cfg.max_tokens) {
        body.insert("max_output_tokens".into(), json!(n));
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), json!(f64::from(t)));
    }
    if let Some(effort) = request
        .thinking_budget
        .and_then(|b| reasoning_effort(request.model, b))
    {
        body.insert(
            "reasoning".into(),
            json!({"effort": effort, "summary": "auto"}),
        );
    }
    if let Some(schema) = request.output_schema {
        body.insert("text".into(), json!(ResponsesTextFormat::of(schema)));
    }
    if let Some(key) = prompt_cache_key(cfg, request) {
        body.insert("prompt_cache_key".into(), json!(key));
    }
    if !request.tools.is_empty() {
        body.insert("tools".into(), tools(request.tools));
        if let Some(choice) = tool_choice(request.tool_choice) {
            body.insert("tool_choice".into(), choice);
        }
    }
    Value::Object(body)
}

fn tools(tools: &[Arc<ToolSchema>]) -> Value {
    tools
        .iter()
        .map(|t| {
            json!({"type": "function", "name": t.name, "description": t.description,
                   "parameters": t.parameters, "strict": false})
        })
        .collect()
}

/// `tool_choice`, `None` for `auto` (the API's default).
fn tool_choice(choice: &ToolChoice) -> Option<Value> {
    match choice {
        ToolChoice::Auto => None,
        ToolChoice::None => Some(json!("none")),
        ToolChoice::Required => Some(json!("required")),
        ToolChoice::Tool(name) => Some(json!({"type": "function", "name": name})),
    }
}

/// The history as input items (system messages travel as `instructions`).
pub fn input_items(messages: &[Arc<Message>]) -> Vec<Value> {
    let mut items = Vec::with_capacity(messages.len());
    for m in messages {
        match m.role {
            Role::System => {}
            Role::User => items.push(json!({"role": "user", "content": user_content(m)})),
            Role::Assistant => assistant_items(m, &mut items),
            Role::Tool => items.push(json!({
                "type": "function_call_output",
                "call_id": m.tool_call_id.as_deref().unwrap_or_default(),
                "output": tool_output(m),
            })),
        }
    }
    items
}

fn user_content(m: &Message) -> Value {
    match &m.parts {
        Some(parts) => parts.iter().map(input_part).collect(),
        None => json!(m.content),
    }
}

/// A tool result: its text, or text and images as input parts when the tool attached images.
fn tool_output(m: &Message) -> Value {
    match &m.parts {
        Some(parts) if parts.iter().any(|p| !matches!(p, Part::Text { .. })) => {
            parts.iter().map(input_part).collect()
        }
        _ => json!(m.content),
    }
}

fn input_part(p: &Part) -> Value {
    match p {
        Part::Text { text } => json!({"type": "input_text", "text": text}),
        Part::ImageInline { mime_type, data } => {
            json!({"type": "input_image", "image_url": data_url(mime_type, data), "detail": "auto"})
        }
        Part::ImageUri { uri, .. } => {
            json!({"type": "input_image", "image_url": uri, "detail": "auto"})
        }
    }
}

fn call_item(c: &ToolCall) -> Value {
    json!({"type": "function_call", "call_id": c.id, "name": c.function.name,
           "arguments": c.function.arguments})
}

/// An assistant message as the items the API returned: in the order the answer's native
/// record keeps (reasoning items verbatim, then the text and the calls where they stood), the
/// text and calls taken from the message itself; without a record, text then calls.
fn assistant_items(m: &Message, items: &mut Vec<Value>) {
    let content = m.content_for_api();
    let mut text_sent = content.is_empty();
    let mut calls_sent = vec![false; m.tool_calls.len()];
    let native = m.native.as_deref().filter(|n| n.format == NATIVE_FORMAT);
    for block in native.map(|n| n.blocks.as_slice()).unwrap_or_default() {
        match block.get("type").and_then(Value::as_str) {
            Some("reasoning") => items.push(block.clone()),
            Some("message") if !text_sent => {
                items.push(json!({"role": "assistant", "content": content}));
                text_sent = true;
            }
            Some("function_call") => {
                let id = block.get("call_id").and_then(Value::as_str);
                if let Some(i) = m.tool_calls.iter().position(|c| Some(c.id.as_str()) == id) {
                    if !calls_sent[i] {
                        items.push(call_item(&m.tool_calls[i]));
                        calls_sent[i] = true;
                    }
                }
            }
            _ => {}
        }
    }
    if !text_sent {
        items.push(json!({"role": "assistant", "content": content}));
    }
    for (c, sent) in m.tool_calls.iter().zip(calls_sent) {
        if !sent {
            items.push(call_item(c));
        }
    }
}
