//! Asking the host whether a tool call that needs approval may run.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The host's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run this call.
    Allow,
    /// Refuse this call.
    Deny,
    /// Run this call and every later call of the same tool in this session
    /// (the tool name joins the session allow list).
    AllowAlways,
}

/// Decides calls whose permission evaluates to `approve`. Requests are made one at a time per
/// session; `cancel` fires when the turn is aborted (answer anything; the call is refused).
#[async_trait]
pub trait ApprovalHandler: Send + Sync {
    /// Asks whether `tool` may run with `args`.
    async fn request(
        &self,
        tool: &str,
        args: &Value,
        cancel: CancellationToken,
    ) -> ApprovalDecision;
}

/// Formats Robota's terminal prompt (`[Permission Required] Tool: <name>` then the args
/// as `k: v, …` or `(no arguments)`), for hosts that show a text prompt.
pub fn approval_prompt_text(tool: &str, args: &Value) -> String {
    let args_text = match args {
        Value::Object(m) if !m.is_empty() => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}: {s}"),
                other => format!("{k}: {other}"),
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => "(no arguments)".to_string(),
    };
    format!("[Permission Required] Tool: {tool}\n{args_text}")
}
