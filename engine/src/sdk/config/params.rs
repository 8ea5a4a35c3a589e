//! Session JSON fields (added in ABI 1.1) that tune the model call and the system prompt beyond
//! [`super::call_settings`]: `thinking:{budget_tokens}`, `native_web_search`, `team`, `language` and
//! `system_prompt_mode` (`"append"`, the default, or `"replace"`).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::core::prompt_cache::PromptCache;
use crate::sdk::config::document::{SessionDocument, SystemPromptModeName};
use crate::sdk::config::fields::Fields;
use crate::sdk::config::read::must_be;
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
    /// Names of the plugins loaded (their commands are `<plugin>:<name>`).
    pub plugins: Vec<String>,
    /// Prompt caching of every model call (`prompt_cache`; subagents inherit it).
    pub prompt_cache: PromptCache,
}

impl SessionParams {
    /// Takes the fields from a session document (`commands` and `agents` from its raw `map`).
    pub fn parse(what: &str, doc: &SessionDocument, map: &Map<String, Value>) -> SdkResult<Self> {
        let mut p = SessionParams {
            system_prompt_replace: matches!(
                doc.system_prompt_mode,
                Some(SystemPromptModeName::Replace)
            ),
            language: doc.language.clone(),
            native_web_search: doc.native_web_search.unwrap_or(false),
            team: doc.team.unwrap_or(false),
            prompt_cache: doc.prompt_cache.unwrap_or_default(),
            ..SessionParams::default()
        };
        if let Some(t) = &doc.thinking {
            if t.budget_tokens == 0 {
                return Err(must_be(
                    what,
                    "thinking.budget_tokens",
                    "a positive integer",
                ));
            }
            p.thinking_budget = Some(u32::try_from(t.budget_tokens).map_err(|_| {
                SdkError::config(format!(
                    "{what}: field \"thinking.budget_tokens\" is too large"
                ))
            })?);
        }
        if let Some(v) = map.field("commands").filter(|v| !v.is_null()) {
            let docs = super::host_commands::documents(what, v)?;
            p.commands = Arc::new(super::host_commands::parse(what, docs)?);
        }
        p.agents.parse(what, map)?;
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
        if self.prompt_cache != PromptCache::default() {
            m.insert("prompt_cache".into(), json!(self.prompt_cache.name()));
        }
    }
}
