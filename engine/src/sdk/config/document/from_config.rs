//! The session document of a parsed session config: what a snapshot keeps and a fork starts
//! from (`session_id`, `replay_events`, `request_timeout_ms` and `mcp_servers` are not kept).

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Map;

use super::{
    CommandDocument, DeliveryName, PermissionModeName, SessionDocument, SettingsName,
    SystemPromptModeName, ThinkingDocument, ThresholdDocument, TranscriptDocument,
};
use crate::core::permissions::PermissionMode;
use crate::core::prompt_cache::PromptCache;
use crate::sdk::config::{Delivery, SessionConfig};

/// `value` as the document type of the same JSON (`None` if it does not fit).
fn via<T: Serialize + ?Sized, U: DeserializeOwned>(value: &T) -> Option<U> {
    serde_json::from_value(serde_json::to_value(value).ok()?).ok()
}

fn path(p: &std::path::Path) -> String {
    p.to_string_lossy().into_owned()
}

impl From<&SessionConfig> for SessionDocument {
    fn from(c: &SessionConfig) -> Self {
        let p = &c.params;
        let mut agents = Map::new();
        p.agents.to_fields(&mut agents);
        SessionDocument {
            agents: agents.get("agents").and_then(via),
            team: p.team.then_some(true),
            temperature: c.call.temperature.map(f64::from),
            max_tokens: c.call.max_tokens.map(u64::from),
            context_window: c.call.context_window,
            tool_choice: c.call.tool_choice.clone(),
            output_schema: c
                .call
                .output_schema
                .as_ref()
                .and_then(|s| s.schema().as_object().cloned()),
            provider: Some(c.provider.clone()),
            model: Some(c.model.clone()),
            system_prompt: c.system_prompt.clone(),
            cwd: Some(c.cwd.clone()),
            tools: c.tools.clone(),
            permission_mode: Some(match c.permission_mode {
                PermissionMode::Plan => PermissionModeName::Plan,
                PermissionMode::Default => PermissionModeName::Default,
                PermissionMode::AcceptEdits => PermissionModeName::AcceptEdits,
                PermissionMode::BypassPermissions => PermissionModeName::BypassPermissions,
            }),
            permissions: via(&c.permissions),
            hooks: c.hooks.clone(),
            max_rounds: c.max_rounds.and_then(|r| u64::try_from(r).ok()),
            delivery: Some(match c.delivery {
                Delivery::Thread => DeliveryName::Thread,
                Delivery::Inline => DeliveryName::Inline,
                Delivery::Pump => DeliveryName::Pump,
                Delivery::Pull => DeliveryName::Pull,
            }),
            settings: match c.settings.as_str() {
                "user" => Some(SettingsName::User),
                "project" => Some(SettingsName::Project),
                _ => None,
            },
            persist: c.persist.then_some(true),
            name: c.name.clone(),
            auto_compact_threshold: Some(
                c.auto_compact_threshold
                    .map_or(ThresholdDocument::Off(false), ThresholdDocument::Fraction),
            ),
            compact_instructions: c.compact_instructions.clone(),
            transcript: c
                .transcript
                .as_deref()
                .map(|t| TranscriptDocument::Dir(path(t))),
            system_prompt_mode: p
                .system_prompt_replace
                .then_some(SystemPromptModeName::Replace),
            language: p.language.clone(),
            thinking: p.thinking_budget.map(|n| ThinkingDocument {
                budget_tokens: u64::from(n),
            }),
            tool_config: c.tool_config.as_deref().cloned(),
            tool_env: (*c.tool_env != Default::default()).then(|| (*c.tool_env).clone()),
            sandbox: (c.sandbox != Default::default()).then(|| c.sandbox.clone()),
            native_web_search: p.native_web_search.then_some(true),
            host_io: c.host_io.then_some(true),
            budget: c.budget.as_ref().and_then(via),
            record: c.record.as_deref().map(path),
            commands: (!p.commands.is_empty()).then(|| {
                p.commands
                    .iter()
                    .map(|h| CommandDocument {
                        name: h.name.clone(),
                        description: h.description.clone(),
                        argument_hint: h.argument_hint.clone(),
                    })
                    .collect()
            }),
            prompt_cache: (p.prompt_cache != PromptCache::default()).then_some(p.prompt_cache),
            ..SessionDocument::default()
        }
    }
}
