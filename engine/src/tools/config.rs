//! Configuration of the built-in tools: limits, the Bash environment, the web-search backend,
//! and the ports they run on ([`ToolEnv`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ports::{FsPort, ProcessPort};
use super::std_fs::StdFs;
use super::std_process::TokioProcess;
use super::web_search::WebSearchBackend;
use crate::core::child_env::ChildEnvPolicy;
use crate::core::sandbox::Sandbox;

/// Numeric limits of the built-ins (reference defaults). JSON keys are camelCase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
#[serde(rename_all = "camelCase", default)]
pub struct ToolLimits {
    /// A result's `output` is cut in the middle so the result text stays within this many chars.
    pub max_output_chars: usize,
    /// Bash timeout when the call gives none (ms).
    pub bash_default_timeout_ms: u64,
    /// Upper bound for a Bash `timeout` argument (ms).
    pub bash_max_timeout_ms: u64,
    /// Bytes of each Bash stream kept in memory (head and tail halves).
    pub bash_max_capture_bytes: usize,
    /// Read's default `limit` (lines).
    pub read_default_limit: usize,
    /// Glob's default `limit` (paths).
    pub glob_default_limit: usize,
    /// Grep stops collecting after this many bytes of results (and says so).
    pub grep_max_collect_bytes: usize,
    /// Largest WebFetch body (bytes).
    pub web_fetch_max_bytes: u64,
    /// WebFetch time limit (ms).
    pub web_fetch_timeout_ms: u64,
    /// WebSearch time limit (ms).
    pub web_search_timeout_ms: u64,
    /// Upper bound of WebSearch's `limit`.
    pub web_search_max_results: usize,
}

impl Default for ToolLimits {
    fn default() -> Self {
        ToolLimits {
            max_output_chars: crate::core::truncation::MAX_TOOL_OUTPUT_CHARS,
            bash_default_timeout_ms: 120_000,
            bash_max_timeout_ms: 600_000,
            bash_max_capture_bytes: 10 * 1024 * 1024,
            read_default_limit: 2000,
            glob_default_limit: 1000,
            grep_max_collect_bytes: 16 * 1024 * 1024,
            web_fetch_max_bytes: 5_000_000,
            web_fetch_timeout_ms: 30_000,
            web_search_timeout_ms: 15_000,
            web_search_max_results: 20,
        }
    }
}

/// Which web-search backend WebSearch uses (JSON: `{"provider":"brave","baseUrl"?,"apiKey"?}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
#[serde(rename_all = "camelCase")]
pub struct WebSearchConfig {
    /// Backend kind; `brave` is built in.
    pub provider: String,
    /// Endpoint override (default: the vendor's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// API key or `$ENV:NAME` reference (Brave default: `$ENV:BRAVE_API_KEY`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
}

/// Everything configurable about the built-ins: the session document's `tool_config`
/// (`{"limits":{...},"env":{...},"webSearch":{...}}`, camelCase keys; its schema is this
/// type's); the backend object and HTTP client are set from code.
#[derive(Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(
    rename = "ToolConfigDocument",
    extend("additionalProperties" = false)
)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolsConfig {
    /// Limits.
    pub limits: ToolLimits,
    /// Extra environment for Bash (the settings `env` map).
    pub env: BTreeMap<String, String>,
    /// Web-search backend by configuration; absent (and no backend set from code), WebSearch
    /// answers "not configured".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_search: Option<WebSearchConfig>,
    /// A backend object supplied by code; wins over `web_search`.
    #[serde(skip)]
    pub web_search_backend: Option<Arc<dyn WebSearchBackend>>,
    /// A shared HTTP client for WebFetch/WebSearch (default: one per tool).
    #[serde(skip)]
    pub http_client: Option<reqwest::Client>,
}

impl std::fmt::Debug for ToolsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolsConfig")
            .field("limits", &self.limits)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("web_search", &self.web_search.as_ref().map(|w| &w.provider))
            .field("web_search_backend", &self.web_search_backend.is_some())
            .finish()
    }
}

impl ToolsConfig {
    /// Parses the JSON form; the error names the bad field. An unknown key (at any level) is
    /// an error naming it and the keys of its object.
    pub fn from_json(value: &serde_json::Value) -> Result<Self, String> {
        use crate::core::known_keys::keys;
        use crate::core::util::unknown_field;
        if let Some(m) = value.as_object() {
            let nested = |key: &str, known: &[&str]| {
                let inner = m.get(key)?.as_object()?;
                unknown_field(inner, known).map(|t| format!("field \"{key}\": {t}"))
            };
            let unknown = unknown_field(m, keys::<ToolsConfig>())
                .or_else(|| nested("limits", keys::<ToolLimits>()))
                .or_else(|| nested("webSearch", keys::<WebSearchConfig>()));
            if let Some(tail) = unknown {
                return Err(tail);
            }
        }
        serde_json::from_value(value.clone()).map_err(|e| format!("Invalid tools config: {e}"))
    }
}

/// What every built-in runs with: working directory, ports and configuration.
#[derive(Clone)]
pub struct ToolEnv {
    /// Relative paths resolve against this directory (absolute).
    pub cwd: PathBuf,
    /// File-system port.
    pub fs: Arc<dyn FsPort>,
    /// Process port.
    pub process: Arc<dyn ProcessPort>,
    /// Configuration.
    pub config: Arc<ToolsConfig>,
    /// Which of the host's variables Bash commands inherit (the session's `tool_env`).
    pub child_env: Arc<ChildEnvPolicy>,
    /// The OS sandbox of Bash commands and the writable/readable roots of the file tools
    /// (`None` = off).
    pub sandbox: Option<Arc<Sandbox>>,
}

impl std::fmt::Debug for ToolEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEnv")
            .field("cwd", &self.cwd)
            .field("native_fs", &self.fs.is_native())
            .field("config", &self.config)
            .field("sandbox", &self.sandbox.as_ref().map(|s| s.mode_name()))
            .finish()
    }
}

impl ToolEnv {
    /// The real file system and processes with default configuration. A relative `cwd` is
    /// made absolute against the process's current directory.
    pub fn new(cwd: &Path) -> Self {
        Self::with_ports(
            cwd,
            Arc::new(StdFs),
            Arc::new(TokioProcess),
            ToolsConfig::default(),
        )
    }

    /// Custom ports and configuration.
    pub fn with_ports(
        cwd: &Path,
        fs: Arc<dyn FsPort>,
        process: Arc<dyn ProcessPort>,
        config: ToolsConfig,
    ) -> Self {
        let cwd = if cwd.is_absolute() {
            normalize_lexical(cwd)
        } else {
            let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
            normalize_lexical(&base.join(cwd))
        };
        ToolEnv {
            cwd,
            fs,
            process,
            config: Arc::new(config),
            child_env: ChildEnvPolicy::shared_default(),
            sandbox: None,
        }
    }

    /// `path` resolved against the working directory, `.` and `..` removed lexically.
    pub fn resolve(&self, path: &str) -> PathBuf {
        normalize_lexical(&self.cwd.join(path))
    }

    /// `Err` naming the sandbox when the session's sandbox does not let the file tools write
    /// `path` (resolved as [`canonical_path`](Self::canonical_path), so a symlink cannot lead
    /// out of the writable roots).
    pub fn sandbox_write_check(&self, path: &str) -> Result<(), String> {
        match &self.sandbox {
            Some(s) => s.check_write(&self.canonical_path(path)),
            None => Ok(()),
        }
    }

    /// The session's `sandbox.deny_read` (absolute; empty without a sandbox).
    pub fn denied_reads(&self) -> &[PathBuf] {
        self.sandbox.as_ref().map_or(&[], |s| s.deny_read())
    }

    /// `Err` naming the sandbox when `path` is on the session's `sandbox.deny_read`.
    pub fn sandbox_read_check(&self, path: &str) -> Result<(), String> {
        match &self.sandbox {
            Some(s) => s.check_read(&self.canonical_path(path)),
            None => Ok(()),
        }
    }

    /// `path` as the file system will really reach it: resolved against the working
    /// directory with `.`, `..` and symlinks resolved through the FS port. For a path that does
    /// not exist yet (a new file), the longest existing ancestor is canonicalized and the rest
    /// appended. Permission patterns such as `Read(/src/**)` should match against this.
    pub fn canonical_path(&self, path: &str) -> PathBuf {
        let lexical = self.resolve(path);
        let mut existing = lexical.clone();
        let mut rest: Vec<std::ffi::OsString> = Vec::new();
        loop {
            if let Ok(canon) = self.fs.canonicalize(&existing) {
                let mut out = canon;
                for part in rest.iter().rev() {
                    out.push(part);
                }
                return normalize_lexical(&out);
            }
            match (
                existing.file_name().map(|n| n.to_os_string()),
                existing.parent(),
            ) {
                (Some(name), Some(parent)) => {
                    rest.push(name);
                    existing = parent.to_path_buf();
                }
                _ => return lexical,
            }
        }
    }

    /// The limits.
    pub fn limits(&self) -> &ToolLimits {
        &self.config.limits
    }
}

/// Removes `.` and resolves `..` without touching the file system.
pub fn normalize_lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !out.has_root() {
                    out.push(comp.as_os_str());
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalization() {
        assert_eq!(
            normalize_lexical(Path::new("/a/./b/../c")),
            PathBuf::from("/a/c")
        );
        assert_eq!(normalize_lexical(Path::new("/../x")), PathBuf::from("/x"));
    }

    #[test]
    fn config_from_json() {
        let c = ToolsConfig::from_json(&serde_json::json!({
            "limits": {"readDefaultLimit": 5},
            "env": {"A": "1"},
            "webSearch": {"provider": "brave", "apiKey": "$ENV:K"}
        }))
        .unwrap();
        assert_eq!(c.limits.read_default_limit, 5);
        assert_eq!(c.limits.glob_default_limit, 1000);
        assert_eq!(c.env.get("A").map(String::as_str), Some("1"));
        assert_eq!(c.web_search.unwrap().api_key.as_deref(), Some("$ENV:K"));
        let err = ToolsConfig::from_json(&serde_json::json!({"limits": {"readDefaultLimit": "x"}}))
            .unwrap_err();
        assert!(err.starts_with("Invalid tools config: "), "{err}");
    }
}
