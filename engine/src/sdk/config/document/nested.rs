//! The objects nested in the session document (`permissions`, `hooks`, `budget`, `agents`, …).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `permissions`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct PermissionsDocument {
    /// Patterns that run without asking.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Patterns that are always refused.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// `thinking`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct ThinkingDocument {
    /// Extended-thinking budget (tokens, at least 1).
    #[schemars(range(min = 1, max = 4_294_967_295_u64))]
    pub budget_tokens: u64,
}

/// `budget`: every limit optional.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
#[serde(default)]
pub struct BudgetDocument {
    /// Input plus output tokens over all model calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_total_tokens: Option<u64>,
    /// List-price cost in US dollars (the model's price must be known).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub max_cost_usd: Option<f64>,
    /// Wall-clock time in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wall_ms: Option<u64>,
    /// Tool calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u64>,
    /// Model calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_model_calls: Option<u64>,
}

/// One MCP server: stdio (`command`, `args`, `env`, `cwd`) or streamable HTTP (`type:"http"`,
/// `url`, `headers`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
#[serde(default)]
pub struct McpServerDocument {
    /// `stdio` or `http` (also `streamable-http`, `streamable_http`; default `http` with `url`,
    /// else `stdio`).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["stdio", "http", "streamable-http", "streamable_http"]))]
    pub kind: Option<String>,
    /// Program of a stdio server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Its extra environment (values may be `$ENV:NAME`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Its working directory (relative to the session's `cwd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Endpoint of an HTTP server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Its extra request headers (values may be `$ENV:NAME`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// Timeout of one tool call in milliseconds (default 120000).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub timeout_ms: Option<u64>,
    /// Timeout of the server's start in milliseconds (default 30000).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub startup_timeout_ms: Option<u64>,
}

/// One subagent of `agents`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct AgentDocument {
    /// When to use the agent (shown to the model; default empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The agent's system prompt.
    pub prompt: String,
    /// Its tools (default: the parent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Its model (default: the parent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Accepted for compatibility; no effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// One host command of `commands`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct CommandDocument {
    /// Name (letters, digits, `_`, `-`, `:`).
    #[schemars(regex(pattern = r"^[A-Za-z0-9_:-]+$"))]
    pub name: String,
    /// What it does.
    pub description: String,
    /// Hint of its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
}
