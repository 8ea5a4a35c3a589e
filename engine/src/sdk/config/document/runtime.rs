//! The runtime document's types.

use std::collections::BTreeMap;

use schemars::JsonSchema;
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
    /// Tokio worker threads (1 to 64; default one per core).
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
    /// Plugin folders (absolute paths) every session of the runtime loads, in priority order
    /// (added in ABI 1.2; a settings `enabledPlugins` entry `false` turns one off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin_dirs: Option<Vec<String>>,
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
    /// `anthropic`, `openai`, `openai-compatible`, `openai-responses`, `azure-openai`, `gemini`,
    /// `scripted` or `replay`.
    #[schemars(extend("enum" = ["anthropic", "openai", "openai-compatible", "openai-responses", "azure-openai", "gemini", "scripted", "replay"]))]
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
