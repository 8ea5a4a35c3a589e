//! Session JSON fields (added in ABI 1.1) that tune the model call and the system prompt beyond
//! [`super::call_settings`]: `thinking:{budget_tokens}`, `native_web_search`, `team`, `language` and
//! `system_prompt_mode` (`"append"`, the default, or `"replace"`).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::sdk::config::fields::Fields;
use crate::sdk::error::{SdkError, SdkResult};
use crate::sdk::project::system_prompt::PromptInputs;

/// Parsed parameters plus what assembly derived from them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionParams {
    /// The host's `system_prompt` replaces the assembled prompt.
    pub system_prompt_replace: bool,
    /// Response language.
    pub language: Option<String>,
    /// Extended thinking budget (tokens).
    pub thinking_budget: Option<u32>,
    /// Ask for the provider's native web search (Anthropic `web_search` server tool; the
    /// provider profile must allow it with `"web_search": true`).
    pub native_web_search: bool,
    /// Host-registered commands (`commands`).
    pub commands: Arc<Vec<super::host_commands::HostCommand>>,
    /// Skills discovered for this session.
    pub skills: Arc<Vec<super::skill::Skill>>,
    /// The prompt's inputs once assembled (settings-enabled sessions).
    pub prompt: Option<Arc<PromptInputs>>,
    /// The four team tools (`"team": true`, [`crate::sdk::team`]).
    pub team: bool,
    /// Problems found while assembling (reported as `WARNING` events).
    pub warnings: Vec<String>,
    /// Subagents: the session JSON's `"agents"`, what assembly found, the nesting depth.
    pub agents: super::agents::SessionAgents,
}

fn positive(what: &str, key: &str, v: &Value) -> SdkResult<u64> {
    v.as_u64().filter(|n| *n > 0).ok_or_else(|| {
        SdkError::config(format!(
            "{what}: field \"{key}\" must be a positive integer"
        ))
    })
}

fn u32_of(what: &str, key: &str, v: &Value) -> SdkResult<u32> {
    u32::try_from(positive(what, key, v)?)
        .map_err(|_| SdkError::config(format!("{what}: field \"{key}\" is too large")))
}

impl SessionParams {
    /// Parses the fields from a session document.
    pub fn parse(what: &str, map: &Map<String, Value>) -> SdkResult<Self> {
        let get = |k: &str| map.field(k).filter(|v| !v.is_null());
        let mut p = SessionParams::default();
        if let Some(v) = get("system_prompt_mode") {
            p.system_prompt_replace = match v.as_str() {
                Some("append") => false,
                Some("replace") => true,
                _ => {
                    return Err(SdkError::config(format!(
                        "{what}: field \"system_prompt_mode\" must be \"append\" or \"replace\""
                    )))
                }
            };
        }
        if let Some(v) = get("language") {
            p.language = Some(v.as_str().map(str::to_string).ok_or_else(|| {
                SdkError::config(format!("{what}: field \"language\" must be a string"))
            })?);
        }
        if let Some(v) = get("thinking") {
            if let Value::Object(t) = v {
                crate::sdk::config::check_strict(
                    &format!("{what}: field \"thinking\""),
                    t,
                    crate::sdk::config::document::keys::<
                        crate::sdk::config::document::ThinkingDocument,
                    >(),
                )?;
            }
            let b = v
                .get("budget_tokens")
                .filter(|_| v.is_object())
                .ok_or_else(|| {
                    SdkError::config(format!(
                        "{what}: field \"thinking\" must be {{\"budget_tokens\": N}}"
                    ))
                })?;
            p.thinking_budget = Some(u32_of(what, "thinking.budget_tokens", b)?);
        }
        if let Some(v) = get("commands") {
            p.commands = Arc::new(super::host_commands::parse(what, v)?);
        }
        if let Some(v) = get("native_web_search") {
            p.native_web_search = v.as_bool().ok_or_else(|| {
                SdkError::config(format!(
                    "{what}: field \"native_web_search\" must be true or false"
                ))
            })?;
        }
        p.agents.parse(what, map)?;
        if let Some(v) = get("team") {
            p.team = v.as_bool().ok_or_else(|| {
                SdkError::config(format!("{what}: field \"team\" must be true or false"))
            })?;
        }
        Ok(p)
    }

    /// The fields as a session document keeps them (snapshot/fork).
    pub fn to_fields(&self, m: &mut Map<String, Value>) {
        if self.system_prompt_replace {
            m.insert("system_prompt_mode".into(), json!("replace"));
        }
        if let Some(l) = &self.language {
            m.insert("language".into(), json!(l));
        }
        if let Some(n) = self.thinking_budget {
            m.insert("thinking".into(), json!({ "budget_tokens": n }));
        }
        if self.native_web_search {
            m.insert("native_web_search".into(), json!(true));
        }
        if !self.commands.is_empty() {
            m.insert(
                "commands".into(),
                super::host_commands::to_json(&self.commands),
            );
        }
        self.agents.to_fields(m);
        if self.team {
            m.insert("team".into(), json!(true));
        }
    }
}
