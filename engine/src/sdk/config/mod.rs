//! The runtime config and session JSON documents (`robota_runtime_new`, `robota_session_new`),
//! validated with messages that name the offending field.

pub mod agents;
pub mod call_settings;
pub mod compaction;
pub mod document;
pub mod fields;
pub mod host_commands;
pub mod params;
pub mod prompt_cache;
pub mod read;
pub mod session_budget;
pub mod skill;
pub mod transcript;

pub use call_settings::CallSettings;
pub use document::{runtime_keys, session_keys};
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::error::{ErrorCode, SdkError, SdkResult};
use super::mcp::config as mcp_config;
use crate::core::permissions::{PermissionLists, PermissionMode};
use crate::providers::ProviderKind;
use document::{DeliveryName, PermissionModeName, SettingsName, TimeoutDecisionName};
use fields::Fields;

/// Default worker threads per runtime: one per core the process may use (each a shard of its
/// own, whose worker wakes only for its own tasks, so a single session's turns keep to one
/// thread), at least one.
pub fn default_worker_threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 64)
    })
}
/// Default wait for a permission/hook answer (5 minutes).
pub const DEFAULT_REQUEST_TIMEOUT_MS: u64 = 300_000;

/// What an unanswered permission request resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutDecision {
    /// Refuse (default).
    Deny,
    /// Allow.
    Allow,
}

/// Parsed runtime config.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// Provider profiles by name: `(kind, the whole profile object)`.
    pub providers: BTreeMap<String, (ProviderKind, Value)>,
    /// Tokio worker threads; `None` = [`default_worker_threads`], counted when the workers
    /// start (reading the process's CPU quota is a dozen system calls a host that never
    /// starts them need not pay).
    pub worker_threads: Option<usize>,
    /// Where `persist: true` sessions are written.
    pub session_dir: Option<String>,
    /// Default wait for permission/hook answers (`0` = forever).
    pub request_timeout_ms: u64,
    /// What an unanswered permission request becomes.
    pub request_timeout_decision: TimeoutDecision,
    /// Variables looked up before the process environment (`$ENV:` in settings files,
    /// `ROBOTA_HOME`, `HOME`); the process environment is never changed.
    pub env: BTreeMap<String, String>,
    /// Plugin folders the host registered (`plugin_dirs`).
    pub plugin_dirs: Vec<std::path::PathBuf>,
}

/// How a session delivers events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// A library-owned dispatcher thread.
    Thread,
    /// The async worker that produced the events, at the end of its poll (the host promises
    /// short callbacks that never block); events from other threads go as in `Thread`.
    Inline,
    /// `robota_session_dispatch` on the host's thread.
    Pump,
    /// `robota_session_next_event` JSON.
    Pull,
}

impl Delivery {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Thread => "thread",
            Delivery::Inline => "inline",
            Delivery::Pump => "pump",
            Delivery::Pull => "pull",
        }
    }
}

/// Parsed session document.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Provider profile name.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// System prompt.
    pub system_prompt: Option<String>,
    /// Working directory for built-in tools.
    pub cwd: String,
    /// `cwd` is the process's working directory as the OS reported it when the config was read
    /// (absolute, symlinks resolved, a directory): the session does not resolve it again.
    pub cwd_is_canonical: bool,
    /// Tool names (`None` = every built-in and every host tool).
    pub tools: Option<Vec<String>>,
    /// Permission mode.
    pub permission_mode: PermissionMode,
    /// Allow/deny patterns.
    pub permissions: PermissionLists,
    /// Hooks by event (the session JSON's, else the settings').
    pub hooks: Option<crate::core::hooks::HooksConfig>,
    /// Round cap (`0` = unlimited).
    pub max_rounds: Option<i64>,
    /// Event delivery.
    pub delivery: Delivery,
    /// `none` or `project`.
    pub settings: String,
    /// Session id (generated when absent).
    pub session_id: Option<String>,
    /// Save the snapshot to `session_dir` after each turn.
    pub persist: bool,
    /// Forward replay events as `ROBOTA_EVENT_EXECUTION`.
    pub replay_events: bool,
    /// Per-session override of the request timeout.
    pub request_timeout_ms: Option<u64>,
    /// User-facing name.
    pub name: Option<String>,
    /// Auto-compaction threshold (`0 < t ≤ 1`; `false` disables; default 0.835).
    pub auto_compact_threshold: Option<f64>,
    /// Focus of compaction summaries (default: CLAUDE.md's "Compact Instructions").
    pub compact_instructions: Option<String>,
    /// Directory of the JSONL transcript (`transcript`: `true` = `<cwd>/.robota/logs`).
    pub transcript: Option<std::path::PathBuf>,
    /// Model parameters, response language and system-prompt mode (added in ABI 1.1).
    pub params: params::SessionParams,
    /// Built-in tool configuration (`tool_config`: `{"limits","env","webSearch"}`).
    pub tool_config: Option<std::sync::Arc<crate::tools::ToolsConfig>>,
    /// MCP servers (`"mcp_servers"`; `.mcp.json` ones are added at session start).
    pub mcp_servers: Vec<super::mcp::config::McpServerDef>,
    /// Whether `permission_mode` was given (settings' trust level applies otherwise).
    pub mode_given: bool,
    /// Whether `auto_compact_threshold` was given (the settings' applies otherwise).
    pub auto_compact_given: bool,
    /// Model-call settings (`context_window`, `tool_choice`, `temperature`, `max_tokens`).
    pub call: CallSettings,
    /// Built-in tools run through the host's I/O port (`robota_runtime_set_host_io`).
    pub host_io: bool,
    /// Hard limits over the session's life (`"budget"`).
    pub budget: Option<crate::core::budget::BudgetLimits>,
    /// The budget of the session that started this one (a subagent or an `assignTask` child):
    /// used instead of a budget of its own, so every model call of the tree counts on it.
    pub shared_budget: Option<std::sync::Arc<crate::core::budget::Budget>>,
    /// Recording of every model call (`"record"`; relative to `cwd`).
    pub record: Option<std::path::PathBuf>,
    /// Which of the host's variables child processes inherit (`"tool_env"`).
    pub tool_env: std::sync::Arc<crate::core::child_env::ChildEnvPolicy>,
    /// The Bash tool's OS sandbox (`"sandbox"`; resolved when the session is built).
    pub sandbox: crate::core::sandbox::SandboxConfig,
}

/// Parses a document that must be a JSON object with `"v":1` (absent `v` means 1).
pub fn parse_object(what: &str, text: &str) -> SdkResult<Map<String, Value>> {
    let value = super::error::parse_json(what, text)?;
    let Value::Object(map) = value else {
        return Err(SdkError::config(format!("{what} must be a JSON object")));
    };
    match map.field("v") {
        None => {}
        Some(v) if v.as_u64() == Some(1) => {}
        Some(v) => {
            return Err(SdkError::new(
                ErrorCode::VersionMismatch,
                format!(
                "{what}: unsupported document version \"v\": {v} (this library reads version 1)"
            ),
            ))
        }
    }
    Ok(map)
}

/// Fails (`ROBOTA_E_INVALID_CONFIG`) when `map` has a key that is not in `known` (`"v"` is
/// always known), with the message `<what>: field "<key>" is not a known field (known: …)`
/// ([`crate::core::util::unknown_field`], the one rule for every document).
pub fn check_strict(what: &str, map: &Map<String, Value>, known: &[&str]) -> SdkResult<()> {
    match map
        .keys()
        .find(|k| *k != "v" && !known.contains(&k.as_str()))
    {
        Some(k) => Err(SdkError::config(format!(
            "{what}: {}",
            crate::core::util::unknown_field_message(k, known)
        ))),
        None => Ok(()),
    }
}

/// Parses the runtime config JSON.
pub fn parse_runtime_config(text: &str) -> SdkResult<RuntimeConfig> {
    const W: &str = "runtime config";
    let map = parse_object("config_json", text)?;
    check_strict(W, &map, runtime_keys())?;
    let doc = read::runtime_document(W, &map)?;
    let mut providers = BTreeMap::new();
    for (name, profile) in doc.providers {
        let Some(kind) = ProviderKind::parse(&profile.kind) else {
            return Err(SdkError::config(format!(
                "{W}: provider \"{name}\": unknown kind \"{}\" (expected one of: {})",
                profile.kind,
                ProviderKind::list(", ", ", ")
            )));
        };
        // The provider layer reads the kind's own keys from the whole profile.
        let raw = map["providers"][&name].clone();
        providers.insert(name, (kind, raw));
    }
    let worker_threads = match doc.worker_threads {
        None => None,
        Some(0) => {
            return Err(SdkError::config(format!(
                "{W}: field \"worker_threads\" must be at least 1"
            )))
        }
        Some(n) if n > 64 => {
            return Err(SdkError::config(format!(
                "{W}: field \"worker_threads\" must be at most 64, got {n}"
            )))
        }
        Some(n) => Some(usize::try_from(n).unwrap_or(64)),
    };
    let mut plugin_dirs = Vec::new();
    for d in doc.plugin_dirs.unwrap_or_default() {
        if !std::path::Path::new(&d).is_absolute() {
            return Err(SdkError::config(format!(
                "{W}: field \"plugin_dirs\": \"{d}\" must be an absolute path"
            )));
        }
        plugin_dirs.push(std::path::PathBuf::from(d));
    }
    Ok(RuntimeConfig {
        plugin_dirs,
        providers,
        worker_threads,
        session_dir: doc.session_dir,
        request_timeout_ms: doc.request_timeout_ms.unwrap_or(DEFAULT_REQUEST_TIMEOUT_MS),
        request_timeout_decision: match doc.request_timeout_decision {
            None | Some(TimeoutDecisionName::Deny) => TimeoutDecision::Deny,
            Some(TimeoutDecisionName::Allow) => TimeoutDecision::Allow,
        },
        env: doc.env.unwrap_or_default(),
    })
}

/// The delivery of a `delivery` name.
fn delivery_of(name: DeliveryName) -> Delivery {
    match name {
        DeliveryName::Thread => Delivery::Thread,
        DeliveryName::Inline => Delivery::Inline,
        DeliveryName::Pump => Delivery::Pump,
        DeliveryName::Pull => Delivery::Pull,
    }
}

/// The permission mode of a `permission_mode` name.
fn mode_of(name: PermissionModeName) -> PermissionMode {
    match name {
        PermissionModeName::Plan => PermissionMode::Plan,
        PermissionModeName::Default => PermissionMode::Default,
        PermissionModeName::AcceptEdits => PermissionMode::AcceptEdits,
        PermissionModeName::BypassPermissions => PermissionMode::BypassPermissions,
    }
}

/// Parses a session document already decoded to an object.
pub fn parse_session_map(map: &Map<String, Value>) -> SdkResult<SessionConfig> {
    parse_session_map_boxed(map).map(|cfg| *cfg)
}

/// [`parse_session_map`] onto the heap: the caller's frame holds a pointer, not the
/// configuration (832 B).
fn parse_session_map_boxed(map: &Map<String, Value>) -> SdkResult<Box<SessionConfig>> {
    const W: &str = "session config";
    check_strict(W, map, session_keys())?;
    let mut doc = read::session_document(W, map)?;
    let settings = settings_name(doc.settings);
    let (provider, model) = provider_and_model(W, &doc, settings)?;
    let (cwd, cwd_is_canonical) = working_dir(doc.cwd.take());
    if let Some(id) = &doc.session_id {
        // It may become a file name (`<session_dir>/<id>.json`).
        crate::session::check_session_id(id).map_err(|e| SdkError::config(format!("{W}: {e}")))?;
    }
    let mcp_servers = match map.field("mcp_servers").filter(|v| !v.is_null()) {
        None => Vec::new(),
        Some(v) => mcp_config::servers(W, mcp_config::documents(W, v)?, &cwd)?,
    };
    let params = params::SessionParams::parse(W, &doc, map)?;
    let budget = session_budget::parse_budget(doc.budget.as_ref(), &model)?;
    let mut cfg = Box::new(session_config(doc, provider, model, cwd, params));
    cfg.cwd_is_canonical = cwd_is_canonical;
    cfg.settings = settings.into();
    cfg.mcp_servers = mcp_servers;
    cfg.budget = budget;
    Ok(cfg)
}

/// The wire name of `settings` (default `none`).
fn settings_name(name: Option<SettingsName>) -> &'static str {
    match name {
        None | Some(SettingsName::None) => "none",
        Some(SettingsName::User) => "user",
        Some(SettingsName::Project) => "project",
    }
}

/// The provider profile and the model: required, unless settings are read (their provider
/// profile may give them; empty until then).
fn provider_and_model(
    w: &str,
    doc: &document::SessionDocument,
    settings: &str,
) -> SdkResult<(String, String)> {
    let required = |value: &Option<String>, key: &str| match value {
        Some(v) => Ok(v.clone()),
        None if settings != "none" => Ok(String::new()),
        None => Err(SdkError::config(format!(
            "{w}: missing required field \"{key}\""
        ))),
    };
    Ok((
        required(&doc.provider, "provider")?,
        required(&doc.model, "model")?,
    ))
}

/// The working directory (default: the process's) and whether it is the OS's canonical form.
fn working_dir(cwd: Option<String>) -> (String, bool) {
    match cwd {
        Some(c) => (c, false),
        // `getcwd` gives the directory's real path; a name that is not UTF-8 is resolved
        // again from its lossy form (and then reported as not accessible).
        None => match std::env::current_dir().map(|p| p.into_os_string().into_string()) {
            Ok(Ok(c)) => (c, true),
            Ok(Err(lossy)) => (lossy.to_string_lossy().into_owned(), false),
            Err(_) => (".".into(), false),
        },
    }
}

/// The session config of a checked document (no MCP servers or budget yet, `settings` `none`).
fn session_config(
    doc: document::SessionDocument,
    provider: String,
    model: String,
    cwd: String,
    params: params::SessionParams,
) -> SessionConfig {
    let path_in_cwd = |p: &str| std::path::Path::new(&cwd).join(p);
    SessionConfig {
        transcript: transcript::parse(doc.transcript.as_ref(), &cwd),
        record: doc.record.as_deref().map(path_in_cwd),
        call: CallSettings::of(&doc),
        permissions: doc
            .permissions
            .map_or_else(PermissionLists::default, |p| PermissionLists {
                allow: p.allow,
                deny: p.deny,
            }),
        permission_mode: doc.permission_mode.map(mode_of).unwrap_or_default(),
        mode_given: doc.permission_mode.is_some(),
        auto_compact_threshold: compaction::threshold(doc.auto_compact_threshold),
        auto_compact_given: doc.auto_compact_threshold.is_some(),
        max_rounds: doc.max_rounds.and_then(|n| i64::try_from(n).ok()),
        delivery: doc.delivery.map_or(Delivery::Thread, delivery_of),
        persist: doc.persist.unwrap_or(false),
        replay_events: doc.replay_events.unwrap_or(false),
        host_io: doc.host_io.unwrap_or(false),
        tool_config: doc.tool_config.map(std::sync::Arc::new),
        tool_env: doc.tool_env.map_or_else(
            crate::core::child_env::ChildEnvPolicy::shared_default,
            std::sync::Arc::new,
        ),
        sandbox: doc.sandbox.unwrap_or_default(),
        provider,
        model,
        cwd,
        cwd_is_canonical: false,
        system_prompt: doc.system_prompt,
        tools: doc.tools,
        hooks: doc.hooks,
        settings: "none".into(),
        session_id: doc.session_id,
        request_timeout_ms: doc.request_timeout_ms,
        name: doc.name,
        compact_instructions: doc.compact_instructions,
        params,
        mcp_servers: Vec::new(),
        budget: None,
        shared_budget: None,
    }
}

/// Parses the session JSON text.
pub fn parse_session_config(text: &str) -> SdkResult<SessionConfig> {
    parse_session_map(&parse_object("session_json", text)?)
}

/// [`parse_session_config`] onto the heap, for a session built from it on a host's thread: no
/// frame on the way holds the configuration.
pub fn parse_session_config_boxed(text: &str) -> SdkResult<Box<SessionConfig>> {
    parse_session_map_boxed(&parse_object("session_json", text)?)
}

#[cfg(test)]
mod tests;
