//! The `agent` hook executor: `{"type":"agent","agent"?,"maxTurns"?,
//! "timeout"?}` runs a short child session (the definition named by `agent`, else
//! `general-purpose`; default 50 rounds, no hooks of its own) on the prompt
//! `Hook input:\n<input JSON>\n\nRespond with JSON: { "ok": boolean, "reason"?: string }`,
//! bounded by `timeout` seconds (default 60), and maps its answer with [`ok_reply`].

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::runner::{run_child, ChildSpec};
use super::tool::DEFAULT_AGENT_TYPE;
use super::{parent_of, ParentCell};
use crate::core::hooks::verdict::{self, RESPOND_WITH_JSON};
use crate::core::hooks::{HookDefinition, HookExecutor, HookResult};
use crate::sdk::config::agents::AgentDef;

/// Default `timeout` of an agent hook (seconds).
pub const DEFAULT_TIMEOUT_S: f64 = 60.0;
/// Default `maxTurns` of an agent hook.
pub const DEFAULT_MAX_TURNS: i64 = 50;

/// Maps a model's `{ok, reason}` answer ([`verdict::from_reply`]); `who` is `agent` or `AI`.
pub fn ok_reply(reply: &str, who: &str, default_block: &str) -> HookResult {
    verdict::from_reply(reply, who, default_block)
}

/// Runs `agent` hooks as subagents of the session.
pub struct AgentHookExecutor {
    defs: Arc<Vec<AgentDef>>,
    parent: ParentCell,
}

impl AgentHookExecutor {
    /// An executor for the session `parent` will point to.
    pub fn new(defs: Arc<Vec<AgentDef>>, parent: ParentCell) -> Self {
        AgentHookExecutor { defs, parent }
    }

    fn definition(&self, name: Option<&str>) -> AgentDef {
        let find = |n: &str| self.defs.iter().find(|d| d.name == n).cloned();
        name.and_then(find)
            .or_else(|| find(DEFAULT_AGENT_TYPE))
            .unwrap_or_else(|| super::defs::builtins().remove(0))
    }
}

#[async_trait]
impl HookExecutor for AgentHookExecutor {
    fn kind(&self) -> &str {
        "agent"
    }

    async fn execute(
        &self,
        def: &HookDefinition,
        input: &Value,
        cancel: CancellationToken,
    ) -> HookResult {
        let Some(parent) = parent_of(&self.parent) else {
            return HookResult::new(1, "", "agent hook: the session is gone");
        };
        let timeout = def
            .fields
            .get("timeout")
            .and_then(Value::as_f64)
            .filter(|t| *t > 0.0 && t.is_finite())
            .unwrap_or(DEFAULT_TIMEOUT_S);
        let max_turns = def
            .fields
            .get("maxTurns")
            .and_then(Value::as_i64)
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_MAX_TURNS);
        let spec = ChildSpec {
            def: self.definition(def.fields.get("agent").and_then(Value::as_str)),
            prompt: format!("Hook input:\n{input}\n\n{RESPOND_WITH_JSON}"),
            model: None,
            parent_tool_call_id: None,
            inherit_hooks: false,
            max_turns: Some(max_turns),
            fork_worker: false,
        };
        let run = run_child(&parent, spec, cancel);
        match tokio::time::timeout(Duration::from_secs_f64(timeout), run).await {
            Err(_) => HookResult::new(1, "", format!("Agent hook timed out after {timeout} s")),
            Ok(Err(e)) => HookResult::new(1, "", e),
            Ok(Ok(o)) => ok_reply(&o.response, "agent", "Blocked by agent hook"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_map_to_results() {
        assert_eq!(ok_reply("{\"ok\":true}", "agent", "B").exit_code, 0);
        assert_eq!(
            ok_reply(
                "sure ```json\n{\"ok\":false,\"reason\":\"no\"}\n``` done",
                "agent",
                "B"
            ),
            HookResult::new(2, "", "no")
        );
        assert_eq!(
            ok_reply("{\"ok\":false}", "agent", "Blocked by agent hook"),
            HookResult::new(2, "", "Blocked by agent hook")
        );
        assert_eq!(
            ok_reply("maybe", "agent", "B"),
            HookResult::new(1, "", "Failed to parse agent response as JSON: maybe")
        );
    }
}
