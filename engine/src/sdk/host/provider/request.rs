//! The request document a host provider receives for one call, and the cancel document.

use serde_json::{json, Map, Value};

use super::caps::HostCaps;
use crate::core::errors::RobotaError;
use crate::core::message::{Message, Part, Role};
use crate::core::provider::ChatRequest;
use crate::providers::convert::args_object;

/// What identifies a call beside the chat request.
pub(crate) struct CallContext<'a> {
    /// The provider's name.
    pub provider: &'a str,
    /// The session asking, when there is one.
    pub session_id: Option<&'a str>,
    /// 1 for the first attempt, +1 for each retry.
    pub attempt: u32,
}

/// `{"v":1,"type":"call",…}` for `request`; an image for a provider without vision fails.
pub(crate) fn call_document(
    ctx: &CallContext<'_>,
    request: &ChatRequest<'_>,
    caps: &HostCaps,
) -> Result<String, RobotaError> {
    let mut messages = Vec::with_capacity(request.messages.len());
    for m in request.messages.iter().filter(|m| m.is_sent_to_model()) {
        messages.push(message(m, ctx.provider, caps)?);
    }
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    let doc = json!({
        "v": 1,
        "type": "call",
        "provider": ctx.provider,
        "model": request.model,
        "session_id": ctx.session_id,
        "messages": messages,
        "tools": tools,
        "tool_choice": serde_json::to_value(request.tool_choice).unwrap_or(Value::Null),
        "max_tokens": request.max_tokens.or(caps.max_output_tokens),
        "temperature": request.temperature.map(short_float),
        "thinking_budget": request.thinking_budget.filter(|_| caps.thinking),
        "attempt": ctx.attempt,
    });
    Ok(doc.to_string())
}

/// `{"v":1,"type":"cancel","reason":…}`.
pub(crate) fn cancel_document(reason: &str) -> String {
    json!({"v": 1, "type": "cancel", "reason": reason}).to_string()
}

/// A temperature as the shortest decimal that reads back as the same `f32` (0.2, not
/// 0.20000000298023224).
fn short_float(t: f32) -> Value {
    t.to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

fn message(m: &Message, provider: &str, caps: &HostCaps) -> Result<Value, RobotaError> {
    Ok(match m.role {
        Role::System => json!({"role": "system", "content": m.content}),
        Role::User => json!({"role": "user", "content": user_parts(m, provider, caps)?}),
        Role::Assistant => {
            let mut o = Map::new();
            o.insert("role".into(), json!("assistant"));
            o.insert("content".into(), json!(m.content_for_api()));
            if !m.tool_calls.is_empty() {
                let calls: Vec<Value> = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "name": c.function.name,
                               "arguments": args_object(&c.function.arguments)})
                    })
                    .collect();
                o.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(o)
        }
        Role::Tool => json!({
            "role": "tool",
            "tool_call_id": m.tool_call_id.as_deref().unwrap_or_default(),
            "name": m.name.as_deref().unwrap_or_default(),
            "content": m.content,
            "is_error": m.is_tool_error(),
        }),
    })
}

fn user_parts(m: &Message, provider: &str, caps: &HostCaps) -> Result<Vec<Value>, RobotaError> {
    let Some(parts) = &m.parts else {
        return Ok(vec![json!({"type": "text", "text": m.content})]);
    };
    let no_vision = || {
        RobotaError::Provider {
        provider: provider.to_string(),
        message: format!(
            "host provider \"{provider}\" does not take images (its capabilities say \"vision\": false)"
        ),
        status: None,
        recoverable: false,
    }
    };
    parts
        .iter()
        .map(|p| match p {
            Part::Text { text } => Ok(json!({"type": "text", "text": text})),
            Part::ImageInline { .. } | Part::ImageUri { .. } if !caps.vision => Err(no_vision()),
            Part::ImageInline { mime_type, data } => {
                Ok(json!({"type": "image", "media_type": mime_type, "data": data}))
            }
            Part::ImageUri { uri, .. } => Ok(json!({"type": "image", "url": uri})),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::core::message::ToolCall;
    use crate::core::provider::{NativeWebToolRequest, ToolSchema};
    use crate::core::tool_choice::ToolChoice;

    #[test]
    fn normalizes_every_role_and_the_parameters() {
        let mut asst = Message::assistant("let me add");
        asst.tool_calls
            .push(ToolCall::new("c1", "add", r#"{"a":2}"#));
        let mut user = Message::user("see");
        user.parts = Some(vec![
            Part::Text { text: "see".into() },
            Part::ImageInline {
                mime_type: "image/png".into(),
                data: "AAAA".into(),
            },
            Part::ImageUri {
                uri: "https://x/y.png".into(),
                mime_type: None,
            },
        ]);
        let messages = [
            Arc::new(Message::system("be brief")),
            Arc::new(user),
            Arc::new(asst),
            Arc::new(Message::tool("4", "c1", "add")),
        ];
        let tools = [Arc::new(ToolSchema {
            name: "add".into(),
            description: "adds".into(),
            parameters: json!({"type": "object"}),
        })];
        let choice = ToolChoice::Tool("add".into());
        let request = ChatRequest {
            messages: &messages,
            tools: &tools,
            model: "m",
            max_tokens: None,
            temperature: Some(0.2),
            native_web_tools: NativeWebToolRequest::default(),
            thinking_budget: Some(100),
            tool_choice: &choice,
            output_schema: None,
            prompt_cache: crate::core::prompt_cache::PromptCache::Off,
            cache_key: None,
        };
        let caps = HostCaps {
            vision: true,
            max_output_tokens: Some(64),
            ..HostCaps::default()
        };
        let ctx = CallContext {
            provider: "local",
            session_id: Some("s1"),
            attempt: 2,
        };
        let doc = call_document(&ctx, &request, &caps).unwrap_or_default();
        assert_eq!(
            doc,
            json!({"v":1,"type":"call","provider":"local","model":"m","session_id":"s1",
                "messages":[
                    {"role":"system","content":"be brief"},
                    {"role":"user","content":[{"type":"text","text":"see"},
                        {"type":"image","media_type":"image/png","data":"AAAA"},
                        {"type":"image","url":"https://x/y.png"}]},
                    {"role":"assistant","content":"let me add",
                     "tool_calls":[{"id":"c1","name":"add","arguments":{"a":2}}]},
                    {"role":"tool","tool_call_id":"c1","name":"add","content":"4","is_error":false}],
                "tools":[{"name":"add","description":"adds","input_schema":{"type":"object"}}],
                "tool_choice":{"name":"add"},"max_tokens":64,"temperature":0.2,
                "thinking_budget":null,"attempt":2})
            .to_string()
        );
        let thinking = HostCaps {
            thinking: true,
            ..caps.clone()
        };
        let doc = call_document(&ctx, &request, &thinking).unwrap_or_default();
        assert!(
            doc.ends_with(r#""thinking_budget":100,"attempt":2}"#),
            "{doc}"
        );
        let e = call_document(&ctx, &request, &HostCaps::default()).err();
        assert_eq!(
            e.map(|e| e.to_string()).as_deref(),
            Some("Provider Error (local): host provider \"local\" does not take images (its capabilities say \"vision\": false)")
        );
    }
}
