//! The fields of the events every turn emits (`turn_started`, `tool_start`, `tool_end`,
//! `context_update`, `turn_completed`), as borrowed structs written straight into the event's
//! JSON text ([`crate::sdk::events::Event::doc`]) in the documented member order.

use serde::Serialize;
use serde_json::Value;

use crate::core::message::Message;
use crate::core::tokens::TokenUsage;
use crate::core::util::round2;
use crate::session::ContextState;

/// `{used_tokens, max_tokens, used_percentage, remaining_percentage}` (`context_update`, the
/// `context_state` of `turn_completed` and of the state document).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct ContextFields {
    used_tokens: u64,
    max_tokens: u64,
    used_percentage: f64,
    remaining_percentage: f64,
}

impl ContextFields {
    /// From token counts: `min(100, used / max × 100)` and the rest, two decimals.
    pub(crate) fn of(used: u64, max: u64) -> Self {
        let pct = if max == 0 {
            0.0
        } else {
            round2((used as f64 / max as f64 * 100.0).min(100.0))
        };
        ContextFields {
            used_tokens: used,
            max_tokens: max,
            used_percentage: pct,
            remaining_percentage: round2(100.0 - pct),
        }
    }
}

impl From<&ContextState> for ContextFields {
    fn from(c: &ContextState) -> Self {
        ContextFields {
            used_tokens: c.used_tokens,
            max_tokens: c.max_tokens,
            used_percentage: c.used_percentage,
            remaining_percentage: c.remaining_percentage,
        }
    }
}

/// `tool_start`.
#[derive(Serialize)]
pub(crate) struct ToolStartFields<'a> {
    pub tool_call_id: &'a str,
    pub tool_name: &'a str,
    pub first_arg: &'a str,
    pub arguments: &'a Value,
}

/// `tool_end`.
#[derive(Serialize)]
pub(crate) struct ToolEndFields<'a> {
    pub tool_call_id: &'a str,
    pub tool_name: &'a str,
    pub result: &'a str,
    pub output: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_lines: Option<&'a [crate::core::diff::DiffLine]>,
}

/// The `input` of `turn_started`: `{"text","display_input"?}`.
#[derive(Serialize)]
pub(crate) struct InputFields<'a> {
    pub text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_input: Option<&'a str>,
}

/// `turn_started`.
#[derive(Serialize)]
pub(crate) struct TurnStartedFields<'a> {
    pub turn_id: u64,
    pub input: InputFields<'a>,
}

/// The `usage` of `turn_completed`, summed over the turn's model calls.
#[derive(Serialize)]
pub(crate) struct UsageFields {
    input_tokens: u64,
    output_tokens: u64,
    total_tokens: u64,
    cache_read_tokens: u64,
    cache_creation_tokens: u64,
}

impl From<&TokenUsage> for UsageFields {
    fn from(u: &TokenUsage) -> Self {
        UsageFields {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            total_tokens: u.total(),
            cache_read_tokens: u.cache_read_tokens,
            cache_creation_tokens: u.cache_creation_tokens,
        }
    }
}

/// One of `turn_completed`'s `tool_summaries`: `{"name","args"}` (the arguments parsed when
/// they are JSON, else the text).
#[derive(Serialize)]
pub(crate) struct ToolSummary<'a> {
    name: &'a str,
    args: Value,
}

/// The tool calls of the assistant messages among `msgs`, in order.
pub(crate) fn tool_summaries(msgs: &[std::sync::Arc<Message>]) -> Vec<ToolSummary<'_>> {
    msgs.iter()
        .filter(|m| m.role == crate::core::message::Role::Assistant)
        .flat_map(|m| m.tool_calls.iter())
        .map(|c| ToolSummary {
            name: &c.function.name,
            args: serde_json::from_str::<Value>(&c.function.arguments)
                .unwrap_or_else(|_| Value::String(c.function.arguments.clone())),
        })
        .collect()
}

/// `turn_completed` (`error` and `error_details` only for a failed turn).
#[derive(Serialize)]
pub(crate) struct TurnCompletedFields<'a> {
    pub turn_id: u64,
    pub stop_reason: &'a str,
    pub response: &'a str,
    /// The answer validated against the turn's output schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    pub tool_summaries: Vec<ToolSummary<'a>>,
    pub context_state: ContextFields,
    pub usage: Option<UsageFields>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_details: Option<&'a Value>,
}
