//! The request body as a `serde_json::Value` tree, as it was built before [`super::body`]
//! wrote it straight to bytes: kept for tests only, which check that both give the same bytes.

use std::sync::Arc;

use serde_json::{json, Value};

use super::reasoning_effort;
use crate::core::message::{Message, Part, Role};
use crate::core::provider::ChatRequest;
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::{HttpProviderConfig, ProviderKind};
use crate::providers::convert::data_url;

fn user_content(m: &Message) -> Value {
    match &m.parts {
        Some(parts) => Value::Array(
            parts
                .iter()
                .map(|p| match p {
                    Part::Text { text } => json!({"type": "text", "text": text}),
                    Part::ImageInline { mime_type, data } => json!({
                        "type": "image_url", "image_url": {"url": data_url(mime_type, data)}
                    }),
                    Part::ImageUri { uri, .. } => {
                        json!({"type": "image_url", "image_url": {"url": uri}})
                    }
                })
                .collect(),
        ),
        None => Value::String(m.content.clone()),
    }
}

/// Converts the universal history to Chat Completions messages (tool-call ids kept as given:
/// the server that issued them, e.g. a reused `call_0`, expects them back).
pub(super) fn convert_messages(messages: &[Arc<Message>]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| match m.role {
            Role::System => json!({"role": "system", "content": m.content}),
            Role::User => {
                let mut v = json!({"role": "user", "content": null});
                v["content"] = user_content(m);
                v
            }
            Role::Assistant => {
                let text = m.content_for_api();
                // Tool calls without text: `"content": ""`. OpenAI, vLLM, llama.cpp and Ollama
                // accept it; llama-cpp-python rejects `null` (a validation error) and its chat
                // templates fail on a missing key ("'dict object' has no attribute 'content'").
                let mut v = json!({"role": "assistant", "content": text});
                if !m.tool_calls.is_empty() {
                    v["tool_calls"] = m
                        .tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.function.name, "arguments": c.function.arguments},
                            })
                        })
                        .collect();
                }
                v
            }
            Role::Tool => json!({
                "role": "tool",
                "tool_call_id": m.tool_call_id.as_deref().unwrap_or_default(),
                "content": m.content,
            }),
        })
        .collect()
}

/// Builds the request body.
pub(super) fn request_body(cfg: &HttpProviderConfig, request: &ChatRequest<'_>) -> Value {
    let mut body = json!({
        "model": request.model,
        "messages": null,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    // Moved in, not through `json!` (which would copy the whole converted history again).
    body["messages"] = Value::Array(convert_messages(request.messages));
    if let Some(n) = request.max_tokens.or(cfg.max_tokens) {
        let field = if matches!(cfg.kind, ProviderKind::OpenAi | ProviderKind::AzureOpenAi) {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body[field] = json!(n);
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(e) = request
        .thinking_budget
        .and_then(|b| reasoning_effort(request.model, b))
    {
        body["reasoning_effort"] = json!(e);
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters
                }})
            })
            .collect();
        match request.tool_choice {
            ToolChoice::Auto => {}
            ToolChoice::None => body["tool_choice"] = json!("none"),
            ToolChoice::Required => body["tool_choice"] = json!("required"),
            ToolChoice::Tool(n) => {
                body["tool_choice"] = json!({"type": "function", "function": {"name": n}})
            }
        }
    }
    body
}
