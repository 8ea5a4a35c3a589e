//! The `Agent` tool (`subagent_type` defaults to `general-purpose`): `{prompt, subagent_type?,
//! model?, description?}` runs one child to completion; its final answer is the tool result.
//! Several calls in one round run in parallel (the batch runs tools concurrently). An unknown
//! `subagent_type` is a result the model reads (`Unknown agent type: <t>`) plus a `WARNING` event
//! `{"code":"UNKNOWN_AGENT_TYPE"}` for the host.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::runner::{run_child, ChildSpec};
use super::{parent_of, ParentCell, AGENT_TOOL};
use crate::core::tool::{Tool, ToolContext, ToolResult};
use crate::sdk::config::agents::AgentDef;
use crate::sdk::events;

/// The default `subagent_type`.
pub const DEFAULT_AGENT_TYPE: &str = "general-purpose";

/// The tool of one session.
pub struct AgentTool {
    defs: Arc<Vec<AgentDef>>,
    parent: ParentCell,
    description: String,
    schema: Value,
}

impl AgentTool {
    /// A tool offering `defs`; `parent` is set once the session exists.
    pub fn new(defs: Arc<Vec<AgentDef>>, parent: ParentCell) -> Self {
        let mut description = String::from(
            "Launch a subagent to handle a task in its own context window; its final report is the result. Several calls in one response run in parallel. Available agent types:",
        );
        for d in defs.iter() {
            description.push_str(&format!("\n- {}: {}", d.name, d.description));
        }
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        let schema = json!({
            "type": "object",
            "properties": {
                "prompt": {"type": "string", "description": "The task for the subagent, with everything it needs to know."},
                "subagent_type": {"type": "string", "description": format!("The agent type (default {DEFAULT_AGENT_TYPE}): {}", names.join(", "))},
                "description": {"type": "string", "description": "A short label of the task."},
                "model": {"type": "string", "description": "Model override (sonnet, haiku, opus or a model id)."}
            },
            "required": ["prompt"]
        });
        AgentTool {
            defs,
            parent,
            description,
            schema,
        }
    }
}

#[async_trait]
impl Tool for AgentTool {
    fn name(&self) -> &str {
        AGENT_TOOL
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    /// The tool itself changes nothing: the child's own tools pass the child's permission gate.
    fn read_only(&self) -> bool {
        true
    }

    /// In plan mode only read-only agent types ([`super::defs::is_read_only`]) may be
    /// delegated to; the child runs in plan mode too.
    fn allowed_in_plan_mode(&self, args: &Value) -> bool {
        let kind = match args.get("subagent_type") {
            None | Some(Value::Null) => DEFAULT_AGENT_TYPE,
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return false,
        };
        self.defs
            .iter()
            .find(|d| d.name == kind)
            .is_some_and(super::defs::is_read_only)
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let Some(parent) = parent_of(&self.parent) else {
            return Err("Sub-agent error: the session is gone".into());
        };
        let prompt = match args.get("prompt") {
            Some(Value::String(p)) if !p.trim().is_empty() => p.clone(),
            _ => return Err("Sub-agent error: prompt is required".into()),
        };
        let kind = match args.get("subagent_type") {
            None | Some(Value::Null) => DEFAULT_AGENT_TYPE.to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err("Sub-agent error: subagent_type must be a string".into()),
        };
        let Some(def) = self.defs.iter().find(|d| d.name == kind) else {
            let names: Vec<&str> = self.defs.iter().map(|d| d.name.as_str()).collect();
            parent.link().emit(
                events::WARNING,
                json!({"code": "UNKNOWN_AGENT_TYPE",
                       "message": format!("the model asked for unknown agent type \"{kind}\" (available: {})", names.join(", "))}),
            );
            return Err(format!("Unknown agent type: {kind}"));
        };
        let model = args
            .get("model")
            .and_then(Value::as_str)
            .map(crate::sdk::config::agents::expand_model);
        let spec = ChildSpec {
            def: def.clone(),
            prompt,
            model,
            parent_tool_call_id: Some(ctx.call_id.clone()),
            inherit_hooks: true,
            max_turns: None,
            fork_worker: false,
        };
        run_child(&parent, spec, ctx.cancel.clone())
            .await
            .map(|o| Value::String(o.response))
    }
}
