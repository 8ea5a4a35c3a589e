//! The objects nested in the session document (`permissions`, `hooks`, `budget`, `agents`, …).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// One group of hooks of an event.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct HookGroupDocument {
    /// Tool-name pattern the group applies to (absent: every tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The hooks (`{"type":"command"|"http"|"host",…}`).
    #[serde(default)]
    pub hooks: Vec<Map<String, Value>>,
    /// Extra environment of the group's command hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
}

/// `thinking`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct ThinkingDocument {
    /// Extended-thinking budget (tokens, at least 1).
    #[schemars(range(min = 1, max = 4_294_967_295_u64))]
    pub budget_tokens: u64,
}

/// `tool_config`: built-in tool configuration.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
#[serde(rename_all = "camelCase", default)]
pub struct ToolConfigDocument {
    /// Output and time limits of the built-in tools (`maxOutputChars`, `bashDefaultTimeoutMs`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<BTreeMap<String, u64>>,
    /// Extra environment of `Bash`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// `WebSearch` backend (`{"provider","baseUrl"?,"apiKey"?}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_search: Option<Map<String, Value>>,
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
    /// `stdio` or `http` (default `http` with `url`, else `stdio`).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["stdio", "http"]))]
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
    /// When to use the agent (shown to the model).
    pub description: String,
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
