//! `context: fork` skills: the skill's processed text runs as the task of one subagent (a fork
//! worker: the definition the skill's `agent` names, default `general-purpose`, limited to the
//! skill's `allowed-tools`), whose final report is the skill's result.

use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::sdk::commands::skills;
use crate::sdk::config::skill::Skill;
use crate::sdk::subagent::runner::{run_child, ChildSpec};
use crate::sdk::subagent::tool::DEFAULT_AGENT_TYPE;
use crate::sdk::subagent::{Parent, MAX_DEPTH};

/// Runs `skill` with `args` in a fork worker of `parent`; `Err` is the message for the caller
/// (`Unknown agent type: <t>`, `Sub-agent error: …`, or the interruption text). Like the `Agent`
/// tool, nesting stops at [`MAX_DEPTH`].
pub async fn run_fork(
    parent: &Arc<dyn Parent>,
    skill: &Skill,
    args: &str,
    parent_tool_call_id: Option<String>,
    cancel: CancellationToken,
) -> Result<String, String> {
    let cfg = parent.config();
    if cfg.params.agents.depth >= MAX_DEPTH {
        return Err(format!(
            "Sub-agent error: a fork skill cannot run at subagent depth {MAX_DEPTH}"
        ));
    }
    let kind = skill.agent.as_deref().unwrap_or(DEFAULT_AGENT_TYPE);
    let Some(mut def) = cfg
        .params
        .agents
        .all
        .iter()
        .find(|d| d.name == kind)
        .cloned()
    else {
        return Err(format!("Unknown agent type: {kind}"));
    };
    if let Some(allowed) = &skill.allowed_tools {
        def.tools = Some(match def.tools.take() {
            Some(own) => own.into_iter().filter(|t| allowed.contains(t)).collect(),
            None => allowed.clone(),
        });
    }
    let prompt = skills::fork_prompt(skill, args, &parent.session_id(), Path::new(&cfg.cwd));
    let spec = ChildSpec {
        def,
        prompt,
        model: None,
        parent_tool_call_id,
        inherit_hooks: true,
        max_turns: None,
        fork_worker: true,
    };
    run_child(parent, spec, cancel).await.map(|o| o.response)
}
