//! The runtime config and session JSON documents (`robota_runtime_new`, `robota_session_new`),
//! validated with messages that name the offending field.

pub mod agents;
pub mod call_settings;
pub mod compaction;
pub mod document;
pub mod fields;
pub mod host_commands;
pub mod params;
pub mod session_budget;
pub mod skill;
pub mod transcript;

pub use call_settings::CallSettings;
pub use document::{runtime_keys, session_keys};
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::error::{ErrorCode, SdkError, SdkResult};
use crate::core::permissions::{PermissionLists, PermissionMode};
use crate::providers::ProviderKind;
use fields::Fields;

/// Default tokio worker threads per runtime: one per two cores the process may use, at least
/// one ([`default_worker_threads`]). The async workers only move bytes and JSON (tools run on
/// the blocking pool, callbacks on the callback threads), and with a second worker on a
/// 2-core machine tokio wakes the idle worker for every task scheduled from outside (a host's
/// tool answer, a submit): docs/performance.md has the figures.
pub fn default_worker_threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get() / 2)
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
    /// Tokio worker threads.
    pub worker_threads: usize,
    /// Where `persist: true` sessions are written.
    pub session_dir: Option<String>,
    /// Default wait for permission/hook answers (`0` = forever).
    pub request_timeout_ms: u64,
    /// What an unanswered permission request becomes.
    pub request_timeout_decision: TimeoutDecision,
    /// Variables looked up before the process environment (`$ENV:` in settings files,
    /// `ROBOTA_HOME`, `HOME`); the process environment is never changed.
    pub env: BTreeMap<String, String>,
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
    /// Hooks config (`THooksConfig`).
    pub hooks: Option<Value>,
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
    /// Recording of every model call (`"record"`; relative to `cwd`).
    pub record: Option<std::path::PathBuf>,
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

fn opt_str(what: &str, map: &Map<String, Value>, key: &str) -> SdkResult<Option<String>> {
    match map.field(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(SdkError::config(format!(
            "{what}: field \"{key}\" must be a string"
        ))),
    }
}

fn req_str(what: &str, map: &Map<String, Value>, key: &str) -> SdkResult<String> {
    opt_str(what, map, key)?
        .ok_or_else(|| SdkError::config(format!("{what}: missing required field \"{key}\"")))
}

fn opt_u64(what: &str, map: &Map<String, Value>, key: &str) -> SdkResult<Option<u64>> {
    match map.field(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| {
            SdkError::config(format!(
                "{what}: field \"{key}\" must be a non-negative integer"
            ))
        }),
    }
}

fn opt_bool(what: &str, map: &Map<String, Value>, key: &str) -> SdkResult<bool> {
    match map.field(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(SdkError::config(format!(
            "{what}: field \"{key}\" must be true or false"
        ))),
    }
}

/// Parses the runtime config JSON.
pub fn parse_runtime_config(text: &str) -> SdkResult<RuntimeConfig> {
    const W: &str = "runtime config";
    let map = parse_object("config_json", text)?;
    check_strict(W, &map, runtime_keys())?;
    let providers_v = map
        .get("providers")
        .ok_or_else(|| SdkError::config(format!("{W}: missing required field \"providers\"")))?;
    let Value::Object(pmap) = providers_v else {
        return Err(SdkError::config(format!(
            "{W}: field \"providers\" must be an object of named provider profiles"
        )));
    };
    let mut providers = BTreeMap::new();
    for (name, profile) in pmap {
        let Value::Object(p) = profile else {
            return Err(SdkError::config(format!(
                "{W}: provider \"{name}\" must be an object"
            )));
        };
        let what = format!("{W}: provider \"{name}\"");
        let kind_name = req_str(&what, p, "kind")?;
        let Some(kind) = ProviderKind::parse(&kind_name) else {
            return Err(SdkError::config(format!(
                "{what}: unknown kind \"{kind_name}\" (expected one of: {})",
                ProviderKind::list(", ", ", ")
            )));
        };
        opt_str(&what, p, "base_url")?;
        opt_str(&what, p, "api_key")?;
        opt_u64(&what, p, "timeout_ms")?;
        opt_u64(&what, p, "max_retries")?;
        providers.insert(name.clone(), (kind, profile.clone()));
    }
    let worker_threads = match opt_u64(W, &map, "worker_threads")? {
        None => default_worker_threads(),
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
        Some(n) => usize::try_from(n).unwrap_or(64),
    };
    let request_timeout_decision = match opt_str(W, &map, "request_timeout_decision")?.as_deref() {
        None | Some("deny") => TimeoutDecision::Deny,
        Some("allow") => TimeoutDecision::Allow,
        Some(other) => {
            return Err(SdkError::config(format!(
                "{W}: field \"request_timeout_decision\" must be \"deny\" or \"allow\", got \"{other}\""
            )))
        }
    };
    Ok(RuntimeConfig {
        providers,
        worker_threads,
        session_dir: opt_str(W, &map, "session_dir")?,
        request_timeout_ms: opt_u64(W, &map, "request_timeout_ms")?
            .unwrap_or(DEFAULT_REQUEST_TIMEOUT_MS),
        request_timeout_decision,
        env: match map.field("env") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
                SdkError::config(format!(
                    "{W}: field \"env\" must be an object of string values"
                ))
            })?,
        },
    })
}

/// Parses a delivery name.
pub fn parse_delivery(what: &str, map: &Map<String, Value>) -> SdkResult<Option<Delivery>> {
    Ok(match opt_str(what, map, "delivery")?.as_deref() {
        None => None,
        Some("thread") => Some(Delivery::Thread),
        Some("inline") => Some(Delivery::Inline),
        Some("pump") => Some(Delivery::Pump),
        Some("pull") => Some(Delivery::Pull),
        Some(other) => {
            return Err(SdkError::config(format!(
            "{what}: field \"delivery\" must be \"thread\", \"inline\", \"pump\" or \"pull\", got \"{other}\""
        )))
        }
    })
}

/// Parses a permission mode field.
pub fn parse_mode(what: &str, map: &Map<String, Value>) -> SdkResult<Option<PermissionMode>> {
    match opt_str(what, map, "permission_mode")? {
        None => Ok(None),
        Some(s) => s.parse::<PermissionMode>().map(Some).map_err(|_| {
            SdkError::config(format!(
                "{what}: field \"permission_mode\" must be one of plan, default, acceptEdits, bypassPermissions; got \"{s}\""
            ))
        }),
    }
}

/// Optional `session_id`: it may become a file name (`<session_dir>/<id>.json`), so it must
/// pass [`crate::session::check_session_id`] wherever a session is created, resumed or forked.
fn opt_session_id(w: &str, map: &Map<String, Value>) -> SdkResult<Option<String>> {
    let id = opt_str(w, map, "session_id")?;
    if let Some(id) = &id {
        crate::session::check_session_id(id).map_err(|e| SdkError::config(format!("{w}: {e}")))?;
    }
    Ok(id)
}

/// Parses a session document already decoded to an object.
pub fn parse_session_map(map: &Map<String, Value>) -> SdkResult<SessionConfig> {
    const W: &str = "session config";
    check_strict(W, map, session_keys())?;
    let settings = opt_str(W, map, "settings")?.unwrap_or_else(|| "none".into());
    if crate::sdk::settings::SettingsScope::parse(&settings).is_none() {
        return Err(SdkError::config(format!(
            "{W}: field \"settings\" must be \"none\", \"user\" or \"project\", got \"{settings}\""
        )));
    }
    // With settings, the provider may come from the settings' provider profile.
    let provider = match opt_str(W, map, "provider")? {
        Some(p) => p,
        None if settings != "none" => String::new(),
        None => req_str(W, map, "provider")?,
    };
    // With settings, the model may come from the settings' provider profile.
    let model = match opt_str(W, map, "model")? {
        Some(m) => m,
        None if settings != "none" => String::new(),
        None => req_str(W, map, "model")?,
    };
    let (cwd, cwd_is_canonical) = match opt_str(W, map, "cwd")? {
        Some(c) => (c, false),
        // `getcwd` gives the directory's real path; a name that is not UTF-8 is resolved
        // again from its lossy form (and then reported as not accessible).
        None => match std::env::current_dir().map(|p| p.into_os_string().into_string()) {
            Ok(Ok(c)) => (c, true),
            Ok(Err(lossy)) => (lossy.to_string_lossy().into_owned(), false),
            Err(_) => (".".into(), false),
        },
    };
    let transcript = transcript::parse(W, map, &cwd)?;
    let tools = match map.field("tools") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .map(|v| {
                    v.as_str().map(str::to_string).ok_or_else(|| {
                        SdkError::config(format!(
                            "{W}: field \"tools\" must be an array of tool names"
                        ))
                    })
                })
                .collect::<SdkResult<Vec<_>>>()?,
        ),
        Some(_) => {
            return Err(SdkError::config(format!(
                "{W}: field \"tools\" must be an array of tool names"
            )))
        }
    };
    if let Some(Value::Object(p)) = map.field("permissions") {
        check_strict(
            &format!("{W}: field \"permissions\""),
            p,
            document::keys::<document::PermissionsDocument>(),
        )?;
    }
    let permissions = match map.field("permissions") {
        None | Some(Value::Null) => PermissionLists::default(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            SdkError::config(format!(
                "{W}: field \"permissions\" must be {{\"allow\":[…],\"deny\":[…]}}: {e}"
            ))
        })?,
    };
    let hooks = match map.field("hooks") {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(events)) => {
            for (event, groups) in events {
                for g in groups.as_array().into_iter().flatten() {
                    if let Value::Object(g) = g {
                        check_strict(
                            &format!("{W}: field \"hooks\": a \"{event}\" group"),
                            g,
                            document::keys::<document::HookGroupDocument>(),
                        )?;
                    }
                }
            }
            Some(v.clone())
        }
        Some(_) => {
            return Err(SdkError::config(format!(
                "{W}: field \"hooks\" must be an object keyed by hook event"
            )))
        }
    };
    let max_rounds = match map.field("max_rounds") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_i64().filter(|n| *n >= 0).ok_or_else(|| {
            SdkError::config(format!(
                "{W}: field \"max_rounds\" must be a non-negative integer (0 = unlimited)"
            ))
        })?),
    };
    let record = opt_str(W, map, "record")?.map(|r| std::path::Path::new(&cwd).join(r));
    if let Some(Value::Object(servers)) = map.field("mcp_servers") {
        for (name, server) in servers {
            if let Value::Object(s) = server {
                check_strict(
                    &format!("{W}: MCP server \"{name}\""),
                    s,
                    document::keys::<document::McpServerDocument>(),
                )?;
            }
        }
    }
    let mcp_servers = super::mcp::config::parse_servers(map.field("mcp_servers"), &cwd)
        .map_err(|e| SdkError::config(format!("{W}: {e}")))?;
    Ok(SessionConfig {
        mcp_servers,
        provider,
        system_prompt: opt_str(W, map, "system_prompt")?,
        cwd,
        cwd_is_canonical,
        tools,
        permission_mode: parse_mode(W, map)?.unwrap_or_default(),
        permissions,
        hooks,
        max_rounds,
        delivery: parse_delivery(W, map)?.unwrap_or(Delivery::Thread),
        settings,
        session_id: opt_session_id(W, map)?,
        persist: opt_bool(W, map, "persist")?,
        replay_events: opt_bool(W, map, "replay_events")?,
        request_timeout_ms: opt_u64(W, map, "request_timeout_ms")?,
        name: opt_str(W, map, "name")?,
        auto_compact_threshold: compaction::parse_threshold(W, map)?,
        compact_instructions: opt_str(W, map, "compact_instructions")?,
        transcript,
        params: params::SessionParams::parse(W, map)?,
        tool_config: match map.field("tool_config") {
            None | Some(Value::Null) => None,
            Some(v) => Some(std::sync::Arc::new(
                crate::tools::ToolsConfig::from_json(v)
                    .map_err(|e| SdkError::config(format!("{W}: field \"tool_config\": {e}")))?,
            )),
        },
        mode_given: !matches!(map.field("permission_mode"), None | Some(Value::Null)),
        auto_compact_given: !matches!(
            map.field("auto_compact_threshold"),
            None | Some(Value::Null)
        ),
        call: CallSettings::parse(W, map)?,
        host_io: opt_bool(W, map, "host_io")?,
        budget: session_budget::parse_budget(map, &model)?,
        record,
        model,
    })
}

/// Parses the session JSON text.
pub fn parse_session_config(text: &str) -> SdkResult<SessionConfig> {
    parse_session_map(&parse_object("session_json", text)?)
}

#[cfg(test)]
mod tests;
