//! The session document's type and the names and unions of its fields.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::hooks::HooksConfig;
use crate::core::prompt_cache::PromptCache;
use crate::core::tool_choice::ToolChoice;
use crate::tools::ToolsConfig;

use super::nested::{
    AgentDocument, BudgetDocument, CommandDocument, McpServerDocument, PermissionsDocument,
    ThinkingDocument,
};

/// The session document (`robota_session_new`'s `session_json`; the overrides of
/// `robota_session_resume` and `robota_session_fork`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "Robota session config", extend("additionalProperties" = false))]
#[serde(default)]
pub struct SessionDocument {
    /// Subagents by name, offered through the `Agent` tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agents: Option<BTreeMap<String, AgentDocument>>,
    /// MCP tool servers by name; their tools are offered as `mcp__NAME__TOOL`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<BTreeMap<String, McpServerDocument>>,
    /// The four team tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<bool>,
    /// Sampling temperature of every model call (0 to 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 2))]
    pub temperature: Option<f64>,
    /// Output cap of every model call (tokens, 1 to 4294967295).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 4_294_967_295_u64))]
    pub max_tokens: Option<u64>,
    /// Context window override (tokens, at least 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub context_window: Option<u64>,
    /// Default tool choice of every turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// JSON Schema every turn's final answer must match (structured output; a turn's
    /// `output_schema` wins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<serde_json::Map<String, Value>>,
    /// Provider profile name (required unless `settings` gives it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Model id (required unless `settings` gives it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// System prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Working directory of the built-in tools (default: the process's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Tool names (absent: every built-in and every host tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Permission mode (default `default`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<PermissionModeName>,
    /// Allow and deny patterns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permissions: Option<PermissionsDocument>,
    /// Hooks by event (`PreToolUse`, `Stop`, …): lists of groups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hooks: Option<HooksConfig>,
    /// Round cap of a turn (`0` = unlimited).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rounds: Option<u64>,
    /// Event delivery (default `thread`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery: Option<DeliveryName>,
    /// Settings files and project context to load (default `none`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings: Option<SettingsName>,
    /// Session id (generated when absent; a file name when persisted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Save the snapshot to the runtime's `session_dir` after each turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persist: Option<bool>,
    /// Forward replay events as `ROBOTA_EVENT_EXECUTION`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_events: Option<bool>,
    /// Per-session override of the runtime's `request_timeout_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_timeout_ms: Option<u64>,
    /// User-facing name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Reserved for `robota_session_resume`; ignored by `robota_session_new`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<Value>,
    /// Accepted for compatibility; no effect (unknown keys are always refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// Auto-compaction threshold (`0 < t ≤ 1`, default 0.835) or `false` (off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_compact_threshold: Option<ThresholdDocument>,
    /// Focus of compaction summaries (default: CLAUDE.md's "Compact Instructions").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_instructions: Option<String>,
    /// JSONL transcript: `true` (`<cwd>/.robota/logs`), `false` or a directory (relative to
    /// `cwd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<TranscriptDocument>,
    /// `append` (default: `system_prompt` follows the assembled prompt) or `replace`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt_mode: Option<SystemPromptModeName>,
    /// Response language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Extended thinking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingDocument>,
    /// Built-in tool configuration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolsConfig>,
    /// Which of the host's variables child processes inherit (Bash, hooks, skill spans, stdio
    /// MCP servers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_env: Option<crate::core::child_env::ChildEnvPolicy>,
    /// The OS sandbox of the Bash tool's commands (default `workspace-write`, no network).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::core::sandbox::SandboxConfig>,
    /// Ask for the provider's hosted web search (the profile must allow it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native_web_search: Option<bool>,
    /// Built-in tools run through the host's I/O port (`robota_runtime_set_host_io`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_io: Option<bool>,
    /// Hard limits over the session's life.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetDocument>,
    /// File recording every model call (relative to `cwd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    /// Host-registered commands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<CommandDocument>>,
    /// Prompt caching of every model call: `5m` (default), `1h` or `off`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache: Option<PromptCache>,
}

/// `permission_mode`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub enum PermissionModeName {
    /// Read-only tools only.
    #[serde(rename = "plan")]
    Plan,
    /// Ask for what the lists do not decide.
    #[serde(rename = "default")]
    Default,
    /// File edits run without asking.
    #[serde(rename = "acceptEdits")]
    AcceptEdits,
    /// Everything runs without asking (deny patterns still apply).
    #[serde(rename = "bypassPermissions")]
    BypassPermissions,
}

/// `delivery`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryName {
    /// A library-owned dispatcher thread.
    Thread,
    /// The producing async worker (short callbacks that never block).
    Inline,
    /// `robota_session_dispatch` on the host's thread.
    Pump,
    /// `robota_session_next_event`.
    Pull,
}

/// `settings`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SettingsName {
    /// No settings files.
    None,
    /// The user settings files.
    User,
    /// The user and project settings files and project context.
    Project,
}

/// `system_prompt_mode`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SystemPromptModeName {
    /// `system_prompt` follows the assembled prompt.
    Append,
    /// `system_prompt` replaces it.
    Replace,
}

/// `auto_compact_threshold`: a number greater than 0 and at most 1, or `false`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ThresholdDocument {
    /// The fraction of the context window.
    #[schemars(extend("exclusiveMinimum" = 0, "maximum" = 1))]
    Fraction(f64),
    /// `false`: no auto-compaction.
    #[schemars(extend("const" = false))]
    Off(bool),
}

/// `transcript`: `true`, `false` or a directory.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TranscriptDocument {
    /// `true`: `<cwd>/.robota/logs`; `false`: none.
    On(bool),
    /// A directory (relative to `cwd`; not empty).
    #[schemars(extend("minLength" = 1))]
    Dir(String),
}
