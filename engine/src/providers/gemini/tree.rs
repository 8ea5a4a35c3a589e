//! The request body as a `serde_json::Value` tree, as it was built before [`super::body`]
//! wrote it straight to bytes: kept for tests only, which check that both give the same bytes.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::GENERATED_ID_PREFIX;
use crate::core::message::{Message, Part, Role};
use crate::core::provider::ChatRequest;
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::HttpProviderConfig;
use crate::providers::convert::{args_object, system_text};

fn user_parts(m: &Message) -> Vec<Value> {
    match &m.parts {
        Some(parts) => parts
            .iter()
            .map(|p| match p {
                Part::Text { text } => json!({"text": text}),
                Part::ImageInline { mime_type, data } => {
                    json!({"inlineData": {"mimeType": mime_type, "data": data}})
                }
                Part::ImageUri { uri, mime_type } => {
                    let mut f = json!({"fileUri": uri});
                    if let Some(mt) = mime_type {
                        f["mimeType"] = json!(mt);
                    }
                    json!({ "fileData": f })
                }
            })
            .collect(),
        None if m.content.is_empty() => Vec::new(),
        None => vec![json!({"text": m.content})],
    }
}

/// Converts the universal history to Gemini `contents` (system messages are left out: they go
/// to `systemInstruction`). `signature` looks up a saved `thoughtSignature` by call id.
pub(super) fn convert_messages(
    messages: &[Arc<Message>],
    signature: &dyn Fn(&str) -> Option<String>,
) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    // call id → tool name, for results whose message lacks a name.
    let mut names: HashMap<&str, &str> = HashMap::new();
    for m in messages {
        let (role, parts) = match m.role {
            Role::System => continue,
            Role::User => ("user", user_parts(m)),
            Role::Assistant => {
                let mut parts = Vec::new();
                let text = m.content_for_api();
                if !text.is_empty() {
                    parts.push(json!({"text": text}));
                }
                for c in &m.tool_calls {
                    names.insert(c.id.as_str(), c.function.name.as_str());
                    let mut call = json!({
                        "name": c.function.name,
                        "args": args_object(&c.function.arguments),
                    });
                    if !c.id.starts_with(GENERATED_ID_PREFIX) {
                        call["id"] = json!(c.id);
                    }
                    let mut part = json!({ "functionCall": call });
                    if let Some(sig) = signature(&c.id) {
                        part["thoughtSignature"] = json!(sig);
                    }
                    parts.push(part);
                }
                ("model", parts)
            }
            Role::Tool => {
                let id = m.tool_call_id.as_deref().unwrap_or_default();
                let name = m
                    .name
                    .as_deref()
                    .or_else(|| names.get(id).copied())
                    .unwrap_or_default();
                let mut resp = json!({
                    "name": name,
                    "response": if m.is_tool_error() {
                        json!({"error": m.content})
                    } else {
                        json!({"content": m.content})
                    },
                });
                if !id.is_empty() && !id.starts_with(GENERATED_ID_PREFIX) {
                    resp["id"] = json!(id);
                }
                ("user", vec![json!({ "functionResponse": resp })])
            }
        };
        if parts.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((r, p)) if *r == role => p.extend(parts),
            _ => out.push((role, parts)),
        }
    }
    out.into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect()
}

/// Builds the request body.
pub(super) fn request_body(
    cfg: &HttpProviderConfig,
    request: &ChatRequest<'_>,
    signature: &dyn Fn(&str) -> Option<String>,
) -> Value {
    // Moved in, not through `json!` (which would copy the whole converted history again).
    let mut body = json!({ "contents": null });
    body["contents"] = Value::from(convert_messages(request.messages, signature));
    if let Some(s) = system_text(request.messages) {
        body["systemInstruction"] = json!({"parts": [{"text": s}]});
    }
    if !request.tools.is_empty() {
        let decls: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters})
            })
            .collect();
        body["tools"] = json!([{ "functionDeclarations": decls }]);
        let config = match request.tool_choice {
            ToolChoice::Auto => None,
            ToolChoice::None => Some(json!({"mode": "NONE"})),
            ToolChoice::Required => Some(json!({"mode": "ANY"})),
            ToolChoice::Tool(n) => Some(json!({"mode": "ANY", "allowedFunctionNames": [n]})),
        };
        if let Some(c) = config {
            body["toolConfig"] = json!({ "functionCallingConfig": c });
        }
    }
    let mut gen = serde_json::Map::new();
    if let Some(n) = request.max_tokens.or(cfg.max_tokens) {
        gen.insert("maxOutputTokens".into(), json!(n));
    }
    if let Some(t) = request.temperature {
        gen.insert("temperature".into(), json!(t));
    }
    if let Some(b) = request.thinking_budget {
        gen.insert(
            "thinkingConfig".into(),
            json!({"thinkingBudget": b, "includeThoughts": true}),
        );
    }
    if !gen.is_empty() {
        body["generationConfig"] = Value::Object(gen);
    }
    body
}
