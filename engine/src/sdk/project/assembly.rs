//! Session assembly from settings and project (the session JSON's fields win): what the settings
//! layers give a session (model, permission mode, allow/deny incl. the default allow patterns,
//! hooks, language, env) with the session JSON's own fields winning, the built-in tools' config,
//! and the assembled system prompt.

use std::path::Path;

use crate::core::sandbox::Sandbox;
use std::sync::Arc;

use crate::core::env_ref::EnvVars;
use crate::core::hooks::HooksConfig;
use crate::core::tool::Tool;
use crate::sdk::config::SessionConfig;
use crate::sdk::error::{SdkError, SdkResult};
use crate::sdk::project::system_prompt::{self, PromptInputs};
use crate::sdk::project::{context, detect};
use crate::sdk::runtime::RuntimeShared;
use crate::sdk::settings::{self, Settings, SettingsScope, UserDirs, DEFAULT_ALLOW};
use crate::tools::{ToolEnv, ToolsConfig, WebSearchConfig};

/// The variables settings and `$ENV:` references are looked up in (the runtime's `env`, then
/// the process environment).
pub fn env_of(shared: &RuntimeShared) -> EnvVars {
    shared.env_vars().clone()
}

fn push_unique(list: &mut Vec<String>, items: impl IntoIterator<Item = String>) {
    for i in items {
        if !list.contains(&i) {
            list.push(i);
        }
    }
}

/// Applies the settings layers of `cfg.settings` to `cfg`; returns them. Problems become
/// `cfg.params.warnings`. Session JSON fields win: `provider` (else the settings' profile, see
/// [`crate::sdk::settings::provider`]), `model`, `permission_mode`, `hooks`, `language`,
/// `auto_compact_threshold`; allow/deny lists are the defaults, then the settings', then the session's.
// Never inlined: a frame of its own, left before the session underneath is built
// (`InteractiveSession::new_boxed`).
#[inline(never)]
pub fn apply_settings(cfg: &mut SessionConfig, env: &EnvVars) -> SdkResult<Option<Settings>> {
    let scope = SettingsScope::parse(&cfg.settings).unwrap_or(SettingsScope::None);
    if scope == SettingsScope::None {
        return Ok(None);
    }
    let dirs = UserDirs::from_env(env);
    let cwd = context::absolute(Path::new(&cfg.cwd));
    let s = settings::load(scope, &cwd, &dirs, env, &mut cfg.params.warnings);
    if cfg.model.is_empty() {
        cfg.model = s.model.clone().ok_or_else(|| {
            SdkError::config(
                "session config: missing required field \"model\" (and no settings file names one)",
            )
        })?;
    }
    if !cfg.mode_given {
        if let Some(m) = s.permission_mode {
            cfg.permission_mode = m;
        }
    }
    let mut allow: Vec<String> = DEFAULT_ALLOW.iter().map(|p| p.to_string()).collect();
    push_unique(&mut allow, s.allow.iter().cloned());
    push_unique(&mut allow, cfg.permissions.allow.drain(..));
    let mut deny = s.deny.clone();
    push_unique(&mut deny, cfg.permissions.deny.drain(..));
    cfg.permissions.allow = allow;
    cfg.permissions.deny = deny;
    if cfg.hooks.is_none() {
        // The settings layers kept only a `hooks` that reads as a hooks config.
        cfg.hooks = s
            .hooks
            .as_ref()
            .and_then(|h| HooksConfig::from_json(h).ok());
    }
    if let (false, Some(t)) = (cfg.auto_compact_given, s.auto_compact_threshold) {
        cfg.auto_compact_threshold = t;
    }
    if cfg.params.language.is_none() {
        cfg.params.language = s.language.clone();
    }
    cfg.params.skills = Arc::new(crate::sdk::commands::skills::discover(
        &cwd,
        dirs.robota.as_deref(),
        scope == SettingsScope::Project,
        &mut cfg.params.warnings,
    ));
    Ok(Some(s))
}

/// The Brave key in the runtime's environment (its `env`, then the process's), if set.
fn runtime_brave_key(shared: &RuntimeShared) -> Option<String> {
    shared
        .env_vars()
        .get(crate::tools::web_search::BRAVE_API_KEY_VAR)
        .filter(|k| !k.is_empty())
}

/// Whether the session's `tool_config` names a web-search backend.
fn configures_web_search(cfg: &SessionConfig) -> bool {
    cfg.tool_config
        .as_deref()
        .is_some_and(|t| t.web_search.is_some() || t.web_search_backend.is_some())
}

/// The built-in tools' environment: the session's `tool_config`, `tool_env` and `sandbox`
/// (`sandbox` resolved by [`super::contained::prepare`]), with the settings' `env`
/// under it (the session's own `env` keys win), and a Brave web-search backend when the runtime's
/// environment has `BRAVE_API_KEY` (a configured Brave backend without `apiKey` takes that key).
/// `None` = the runtime's shared defaults.
// Never inlined: a frame of its own, left before the session underneath is built
// (`InteractiveSession::new_boxed`).
#[inline(never)]
pub fn tool_env(
    shared: &RuntimeShared,
    cfg: &SessionConfig,
    s: Option<&Settings>,
    sandbox: Option<Arc<Sandbox>>,
) -> Option<ToolEnv> {
    let env = s.map(|s| &s.env).filter(|e| !e.is_empty());
    let brave_key = runtime_brave_key(shared);
    let defaults = *cfg.tool_env == Default::default() && cfg.sandbox == Default::default();
    if cfg.tool_config.is_none() && env.is_none() && brave_key.is_none() && defaults {
        return None;
    }
    let mut tc: ToolsConfig = cfg.tool_config.as_deref().cloned().unwrap_or_default();
    tc.http_client.get_or_insert_with(|| shared.http().clone());
    if let Some(e) = env {
        for (k, v) in e {
            tc.env.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    if let Some(key) = brave_key {
        let ws = tc.web_search.get_or_insert_with(|| WebSearchConfig {
            provider: "brave".into(),
            base_url: None,
            api_key: None,
        });
        if ws.provider.eq_ignore_ascii_case("brave") && ws.api_key.is_none() {
            ws.api_key = Some(key);
        }
    }
    let mut tools = ToolEnv::with_ports(
        Path::new(&cfg.cwd),
        Arc::new(crate::tools::StdFs),
        Arc::new(crate::tools::TokioProcess),
        tc,
    );
    tools.child_env = cfg.tool_env.clone();
    tools.sandbox = sandbox.or_else(|| {
        // The default sandbox (not resolved by `prepare`, which leaves it to the shared tools).
        let cwd = super::context::absolute(Path::new(&cfg.cwd));
        Sandbox::new(cfg.sandbox.clone(), &cwd)
            .ok()
            .flatten()
            .map(Arc::new)
    });
    Some(tools)
}

/// Whether the session offers the local `WebSearch` tool: it has a backend (the `tool_config`
/// names one, or the runtime's environment has `BRAVE_API_KEY`) and no host I/O (whose tools
/// use no `tool_config`). Without one the tool could only answer "not configured".
pub fn offers_web_search(shared: &RuntimeShared, cfg: &SessionConfig) -> bool {
    !cfg.host_io && (configures_web_search(cfg) || runtime_brave_key(shared).is_some())
}

/// A built-in tool for this session.
pub fn builtin(
    shared: &RuntimeShared,
    env: Option<&ToolEnv>,
    name: &str,
    cwd: &str,
) -> Option<Arc<dyn Tool>> {
    match env {
        Some(e) => crate::tools::builtin_tool_in(name, e),
        None => shared.builtin_tool(name, cwd),
    }
}

/// Assembles the system prompt inputs of a settings-enabled session (`None` otherwise: the
/// host's `system_prompt` is used verbatim).
// Never inlined: a frame of its own, left before the session underneath is built
// (`InteractiveSession::new_boxed`).
#[inline(never)]
pub fn prompt_inputs(
    cfg: &SessionConfig,
    s: Option<&Settings>,
    tools: &[Arc<dyn Tool>],
) -> Option<PromptInputs> {
    s?;
    let cwd = context::absolute(Path::new(&cfg.cwd));
    Some(PromptInputs {
        context: context::load(&cwd),
        project: detect::detect(&cwd),
        cwd,
        mode: cfg.permission_mode,
        tool_lines: tools
            .iter()
            .map(|t| system_prompt::tool_line(t.name(), t.description()))
            .chain(
                cfg.params
                    .native_web_search
                    .then(|| system_prompt::NATIVE_WEB_SEARCH_LINE.to_string()),
            )
            .collect(),
        // The agents the model can delegate to, when the session offers the Agent tool.
        agent_lines: if tools
            .iter()
            .any(|t| t.name() == crate::sdk::subagent::AGENT_TOOL)
        {
            system_prompt::agent_lines(
                cfg.params
                    .agents
                    .all
                    .iter()
                    .map(|d| (d.name.as_str(), d.description.as_str())),
            )
        } else {
            Vec::new()
        },
        // Only what the model can invoke: the skills, when the session offers the Skill tool.
        skill_lines: if tools
            .iter()
            .any(|t| t.name() == crate::sdk::commands::skill_tool::SKILL_TOOL)
        {
            crate::sdk::commands::skill_tool::model_skills(&cfg.params.skills)
                .map(crate::sdk::commands::skills::prompt_line)
                .collect()
        } else {
            Vec::new()
        },
        host_prompt: cfg.system_prompt.clone(),
        replace: cfg.params.system_prompt_replace,
    })
}

/// The system message a session starts with.
pub fn system_message(cfg: &SessionConfig) -> String {
    match &cfg.params.prompt {
        Some(p) => system_prompt::build(p, cfg.params.language.as_deref()),
        None => {
            let host = cfg.system_prompt.clone().unwrap_or_default();
            match cfg.params.language.as_deref() {
                Some(l) if !cfg.params.system_prompt_replace => {
                    let section = format!("## Response Language\n{l}");
                    if host.is_empty() {
                        section
                    } else {
                        format!("{host}\n\n{section}")
                    }
                }
                _ => host,
            }
        }
    }
}
