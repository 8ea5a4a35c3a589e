//! The events a host pushes for one call (`robota_provider_push`), read from their JSON.

use serde_json::{Map, Value};

use crate::core::provider::StopReason;

/// The `type`s an event may have.
const TYPES: &str =
    "text, thinking, tool_call, tool_call_start, tool_call_delta, tool_call_end, usage, done, error";

/// One pushed event, its fields checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum HostEvent {
    /// A text delta.
    Text(String),
    /// A thinking delta.
    Thinking(String),
    /// A whole tool call; `arguments` is a JSON object.
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
    /// The start of a streamed tool call.
    ToolCallStart { id: String, name: String },
    /// A fragment of a streamed tool call's arguments (JSON text).
    ToolCallDelta { id: String, fragment: String },
    /// The end of a streamed tool call.
    ToolCallEnd { id: String },
    /// Token usage.
    Usage { input: u64, output: u64 },
    /// The call succeeded (`None`: `tool_use` when tool calls came, else `end_turn`).
    Done(Option<StopReason>),
    /// The call failed.
    Error(Failure),
}

/// An `error` event.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failure {
    /// The taxonomy class.
    pub class: FailureClass,
    /// What the host said.
    pub message: String,
    /// How long to wait before a retry.
    pub retry_after_ms: Option<u64>,
    /// `recoverable` as given (it applies to the `provider` class).
    pub recoverable: Option<bool>,
}

/// The error classes a host may report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailureClass {
    Provider,
    RateLimit,
    Authentication,
    Network,
    ModelNotAvailable,
    ContextLength,
    InvalidRequest,
}

const CLASSES: &str = "provider, rate_limit, authentication, network, model_not_available, context_length, invalid_request";

impl FailureClass {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "provider" => FailureClass::Provider,
            "rate_limit" => FailureClass::RateLimit,
            "authentication" => FailureClass::Authentication,
            "network" => FailureClass::Network,
            "model_not_available" => FailureClass::ModelNotAvailable,
            "context_length" => FailureClass::ContextLength,
            "invalid_request" => FailureClass::InvalidRequest,
            _ => return None,
        })
    }
}

/// Reads one event document; the error says what is wrong with it.
pub(crate) fn parse(doc: &Value) -> Result<HostEvent, String> {
    let Value::Object(m) = doc else {
        return Err("an event must be a JSON object".into());
    };
    let kind = match m.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err("field \"type\" must be a string".into()),
        None => return Err(format!("missing field \"type\" (one of {TYPES})")),
    };
    Ok(match kind {
        "text" => HostEvent::Text(string(m, kind, "text")?),
        "thinking" => HostEvent::Thinking(string(m, kind, "text")?),
        "tool_call" => HostEvent::ToolCall {
            id: id(m, kind)?,
            name: name(m, kind)?,
            arguments: match m.get("arguments") {
                Some(v @ Value::Object(_)) => v.clone(),
                Some(_) => return Err("tool_call: \"arguments\" must be a JSON object".into()),
                None => return Err("tool_call: missing field \"arguments\"".into()),
            },
        },
        "tool_call_start" => HostEvent::ToolCallStart {
            id: id(m, kind)?,
            name: name(m, kind)?,
        },
        "tool_call_delta" => HostEvent::ToolCallDelta {
            id: id(m, kind)?,
            fragment: string(m, kind, "arguments")?,
        },
        "tool_call_end" => HostEvent::ToolCallEnd { id: id(m, kind)? },
        "usage" => HostEvent::Usage {
            input: count(m, "input_tokens")?,
            output: count(m, "output_tokens")?,
        },
        "done" => HostEvent::Done(stop_reason(m)?),
        "error" => HostEvent::Error(failure(m)?),
        other => return Err(format!("unknown type \"{other}\" (one of {TYPES})")),
    })
}

fn string(m: &Map<String, Value>, kind: &str, key: &str) -> Result<String, String> {
    match m.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("{kind}: \"{key}\" must be a string")),
        None => Err(format!("{kind}: missing field \"{key}\"")),
    }
}

fn id(m: &Map<String, Value>, kind: &str) -> Result<String, String> {
    let id = string(m, kind, "id")?;
    if id.is_empty() {
        return Err(format!("{kind}: \"id\" must not be empty"));
    }
    Ok(id)
}

fn name(m: &Map<String, Value>, kind: &str) -> Result<String, String> {
    string(m, kind, "name")
}

/// The largest token count taken (2^53 - 1, exact in every JSON reader; sums of such counts
/// cannot overflow).
const MAX_COUNT: u64 = (1 << 53) - 1;

fn count(m: &Map<String, Value>, key: &str) -> Result<u64, String> {
    match m.get(key) {
        Some(v) => v
            .as_u64()
            .filter(|n| *n <= MAX_COUNT)
            .ok_or_else(|| format!("usage: \"{key}\" must be an integer from 0 to {MAX_COUNT}")),
        None => Err(format!("usage: missing field \"{key}\"")),
    }
}

fn stop_reason(m: &Map<String, Value>) -> Result<Option<StopReason>, String> {
    let wrong = || {
        "done: \"stop_reason\" must be one of end_turn, tool_use, max_tokens, refusal".to_string()
    };
    match m.get("stop_reason") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(match s.as_str() {
            "end_turn" => StopReason::EndTurn,
            "tool_use" => StopReason::ToolUse,
            "max_tokens" => StopReason::MaxTokens,
            "refusal" => StopReason::Refusal,
            _ => return Err(wrong()),
        })),
        Some(_) => Err(wrong()),
    }
}

fn failure(m: &Map<String, Value>) -> Result<Failure, String> {
    let class = string(m, "error", "class")?;
    let class = FailureClass::parse(&class)
        .ok_or_else(|| format!("error: unknown class \"{class}\" (one of {CLASSES})"))?;
    let retry_after_ms = match m.get("retry_after_ms") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            "error: \"retry_after_ms\" must be a non-negative integer".to_string()
        })?),
    };
    let recoverable = match m.get("recoverable") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err("error: \"recoverable\" must be true or false".into()),
    };
    Ok(Failure {
        class,
        message: string(m, "error", "message")?,
        retry_after_ms,
        recoverable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(doc: Value) -> String {
        parse(&doc).err().unwrap_or_default()
    }

    #[test]
    fn reads_each_type() {
        assert_eq!(
            parse(&json!({"type":"tool_call","id":"c1","name":"add","arguments":{"a":1}})),
            Ok(HostEvent::ToolCall {
                id: "c1".into(),
                name: "add".into(),
                arguments: json!({"a":1})
            })
        );
        assert_eq!(parse(&json!({"type":"done"})), Ok(HostEvent::Done(None)));
        assert_eq!(
            parse(
                &json!({"type":"error","class":"rate_limit","message":"slow","retry_after_ms":5})
            ),
            Ok(HostEvent::Error(Failure {
                class: FailureClass::RateLimit,
                message: "slow".into(),
                retry_after_ms: Some(5),
                recoverable: None
            }))
        );
    }

    #[test]
    fn names_what_is_wrong() {
        assert_eq!(err(json!([1])), "an event must be a JSON object");
        assert_eq!(
            err(json!({"type":"txt"})),
            format!("unknown type \"txt\" (one of {TYPES})")
        );
        assert_eq!(err(json!({"type":"text"})), "text: missing field \"text\"");
        assert_eq!(
            err(json!({"type":"usage","input_tokens":u64::MAX,"output_tokens":1})),
            "usage: \"input_tokens\" must be an integer from 0 to 9007199254740991"
        );
        assert_eq!(
            err(json!({"type":"tool_call","id":"c","name":"a","arguments":"{}"})),
            "tool_call: \"arguments\" must be a JSON object"
        );
        assert_eq!(
            err(json!({"type":"done","stop_reason":"stop"})),
            "done: \"stop_reason\" must be one of end_turn, tool_use, max_tokens, refusal"
        );
        assert_eq!(
            err(json!({"type":"error","class":"boom","message":"m"})),
            format!("error: unknown class \"boom\" (one of {CLASSES})")
        );
    }
}
