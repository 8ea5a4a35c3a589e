//! The runtime document (`robota_runtime_new`) and the session document (`robota_session_new`,
//! also the overrides of resume and fork), each defined once as a Rust type: the types give the
//! parser its known keys ([`keys`]: the field names of the `Deserialize` derive, in declaration
//! order, which is the order the unknown-key message lists them in) and the JSON Schemas of
//! `docs/schema/` ([`runtime_schema`], [`session_schema`]; `ROBOTA_BLESS=1 cargo test --test
//! engine schema` writes them). The values are converted by the parser field by field
//! ([`super::parse_runtime_config`], [`super::parse_session_map`]), which keeps the messages that
//! name the offending field; a typed value of these types is what the parser accepts.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::de::{self, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The runtime config (`robota_runtime_new`'s `config_json`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "Robota runtime config", extend("additionalProperties" = false))]
#[serde(default)]
pub struct RuntimeDocument {
    /// Variables looked up before the process environment (`$ENV:` references, `ROBOTA_HOME`,
    /// `HOME`); the process environment is never changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Accepted for compatibility; no effect (unknown keys are always refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// Provider profiles by name (required; may be empty).
    pub providers: BTreeMap<String, ProviderProfile>,
    /// Tokio worker threads (1 to 64; default one per two cores).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 64))]
    pub worker_threads: Option<u64>,
    /// Directory where `persist: true` sessions are written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_dir: Option<String>,
    /// Default wait for permission and hook answers in milliseconds (`0` = forever; default
    /// 300000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_timeout_ms: Option<u64>,
    /// What an unanswered permission request becomes (default `deny`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_timeout_decision: Option<TimeoutDecisionName>,
}

/// `request_timeout_decision`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TimeoutDecisionName {
    /// Refuse (default).
    Deny,
    /// Allow.
    Allow,
}

/// A provider profile: the keys every HTTP kind shares; each kind validates its own further keys
/// (`turns`, `fallback`, `file`, `web_search`, …; docs/configuration.md "Provider profiles").
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct ProviderProfile {
    /// `anthropic`, `openai`, `openai-compatible`, `gemini`, `scripted` or `replay`.
    #[schemars(extend("enum" = ["anthropic", "openai", "openai-compatible", "gemini", "scripted", "replay"]))]
    pub kind: String,
    /// API base URL (HTTP kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// API key or `$ENV:NAME` (HTTP kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Extra request headers (HTTP kinds; values may be `$ENV:NAME`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// Timeout of one request in milliseconds (HTTP kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Retries of a failed request (HTTP kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u64>,
    /// The keys of the profile's kind.
    #[serde(flatten)]
    pub kind_keys: Map<String, Value>,
}

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
    pub tool_choice: Option<ToolChoiceDocument>,
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
    pub hooks: Option<BTreeMap<String, Vec<HookGroupDocument>>>,
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
    pub tool_config: Option<ToolConfigDocument>,
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
}

/// `tool_choice`: `"auto"`, `"none"`, `"required"` or `{"name":"TOOL"}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolChoiceDocument {
    /// `auto`, `none` or `required`.
    Mode(ToolChoiceMode),
    /// A call to the named tool.
    Tool {
        /// Tool name.
        name: String,
    },
}

/// The tool-choice modes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// No tool call.
    None,
    /// Some tool call.
    Required,
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

/// The field names of a struct's `Deserialize` derive (its JSON keys, renames applied), in
/// declaration order: what the unknown-key check of its document accepts (`"v"` aside).
pub fn keys<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Names<'a>(&'a mut &'static [&'static str]);
    impl<'de> de::Deserializer<'de> for Names<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("fields read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Names(&mut fields));
    fields
}

/// The keys of the runtime document.
pub fn runtime_keys() -> &'static [&'static str] {
    static K: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
    K.get_or_init(keys::<RuntimeDocument>)
}

/// The keys of the session document.
pub fn session_keys() -> &'static [&'static str] {
    static K: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
    K.get_or_init(keys::<SessionDocument>)
}

fn schema_of<T: JsonSchema>() -> Value {
    let mut schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    // `"v"`, accepted by every document, is not a field of the types (the parser reads it first).
    if let Some(props) = schema
        .as_object_mut()
        .and_then(|o| o.get_mut("properties"))
        .and_then(Value::as_object_mut)
    {
        props.shift_insert(
            0,
            "v".into(),
            serde_json::json!({"description": "Document version: 1 (the default).", "const": 1}),
        );
    }
    // `$schema` and `title` first, then the rest as generated.
    let Value::Object(mut generated) = schema.to_value() else {
        return Value::Null;
    };
    let mut out = Map::new();
    for key in ["$schema", "title", "description"] {
        if let Some(v) = generated.shift_remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.extend(generated);
    Value::Object(out)
}

/// The JSON Schema of the runtime document (`docs/schema/runtime.schema.json`).
pub fn runtime_schema() -> Value {
    schema_of::<RuntimeDocument>()
}

/// The JSON Schema of the session document (`docs/schema/session.schema.json`).
pub fn session_schema() -> Value {
    schema_of::<SessionDocument>()
}
