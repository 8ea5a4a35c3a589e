//! The JSON stdout protocol (Claude-compatible; stdout that is not JSON stays raw text): an exit-0
//! hook whose stdout is a JSON object is read as structured output instead of raw text.
//! `continue:false` blocks (reason `stopReason`); `decision:"block"` blocks a UserPromptSubmit;
//! `hookSpecificOutput.permissionDecision:"deny"` blocks a PreToolUse;
//! `hookSpecificOutput.updatedInput` of a PreToolUse replaces the tool's input (checked by the
//! runner: it must be an object); `additionalContext` and `systemMessage` are collected as stdout;
//! an object with none of these contributes nothing.

use serde_json::{Map, Value};

use super::types::HookEvent;

/// What a JSON stdout asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JsonHookOutput {
    /// Block with this reason.
    pub block: Option<String>,
    /// Text to collect as stdout.
    pub context: Vec<String>,
    /// A PreToolUse hook's replacement tool input, as written (not yet checked).
    pub updated_input: Option<Value>,
}

fn non_empty_str<'a>(m: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    m.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Reads `stdout` as the JSON protocol; `None` when it is not a JSON object (raw text).
pub fn parse_json_output(event: HookEvent, stdout: &str) -> Option<JsonHookOutput> {
    let trimmed = stdout.trim();
    if !trimmed.starts_with('{') {
        return None;
    }
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(trimmed) else {
        return None;
    };
    let mut out = JsonHookOutput::default();
    let specific = match obj.get("hookSpecificOutput") {
        Some(Value::Object(m)) => Some(m),
        _ => None,
    };
    if obj.get("continue") == Some(&Value::Bool(false)) {
        out.block = Some(
            non_empty_str(&obj, "stopReason")
                .unwrap_or("Blocked by hook (continue: false)")
                .to_string(),
        );
    } else if event == HookEvent::UserPromptSubmit
        && obj.get("decision").and_then(Value::as_str) == Some("block")
    {
        out.block = Some(
            non_empty_str(&obj, "reason")
                .unwrap_or("Blocked by hook (decision: block)")
                .to_string(),
        );
    } else if event == HookEvent::PreToolUse {
        if let Some(s) = specific {
            if s.get("permissionDecision").and_then(Value::as_str) == Some("deny") {
                out.block = Some(
                    non_empty_str(s, "permissionDecisionReason")
                        .unwrap_or("Blocked by hook (permissionDecision: deny)")
                        .to_string(),
                );
            } else if let Some(u) = s.get("updatedInput") {
                out.updated_input = Some(u.clone());
            }
        }
    }
    if let Some(ctx) = specific.and_then(|s| non_empty_str(s, "additionalContext")) {
        out.context.push(ctx.to_string());
    }
    if let Some(msg) = non_empty_str(&obj, "systemMessage") {
        out.context.push(msg.to_string());
    }
    Some(out)
}
