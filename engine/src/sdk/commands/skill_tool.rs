//! The `Skill` tool (as in Claude Code): the model runs a model-invocable skill with
//! `{"skill":"<name>","args"?:"…"}`. An inject-mode skill's result is its prompt (the skill's
//! processed text and the instruction to execute it), which the model then follows; a
//! `context: fork` skill runs in a fork worker and its report is the result. The session
//! offers the tool when it has model-invocable skills (and its `tools` list, if any, names it);
//! the system prompt's Skills section lists exactly those skills.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use crate::core::tool::{Tool, ToolContext, ToolResult};
use crate::sdk::commands::{fork, skills};
use crate::sdk::config::skill::Skill;
use crate::sdk::config::SessionConfig;
use crate::sdk::subagent::{parent_of, ParentCell};

/// The tool's name.
pub const SKILL_TOOL: &str = "Skill";

/// The skills the model may invoke, in discovery order.
pub fn model_skills(all: &[Skill]) -> impl Iterator<Item = &Skill> {
    all.iter().filter(|k| k.model_invocable)
}

/// Whether the session offers the tool: it has a model-invocable skill, and its `tools` list
/// (when it has one) names `Skill`.
pub fn offers_skill_tool(cfg: &SessionConfig) -> bool {
    model_skills(&cfg.params.skills).next().is_some()
        && cfg
            .tools
            .as_ref()
            .is_none_or(|t| t.iter().any(|n| n == SKILL_TOOL))
}

/// The tool of one session.
pub struct SkillTool {
    skills: Arc<Vec<Skill>>,
    parent: ParentCell,
    schema: Value,
}

impl SkillTool {
    /// A tool running the model-invocable ones of `skills`; `parent` is set once the session
    /// exists.
    pub fn new(skills: Arc<Vec<Skill>>, parent: ParentCell) -> Self {
        let schema = json!({
            "type": "object",
            "properties": {
                "skill": {"type": "string", "description": "The skill's name, as listed under Skills in the system prompt."},
                "args": {"type": "string", "description": "The skill's arguments."}
            },
            "required": ["skill"]
        });
        SkillTool {
            skills,
            parent,
            schema,
        }
    }

    fn find(&self, name: &str) -> Result<&Skill, String> {
        let name = name.trim().trim_start_matches('/');
        model_skills(&self.skills)
            .find(|k| k.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = model_skills(&self.skills)
                    .map(|k| k.name.as_str())
                    .collect();
                format!("Unknown skill: {name} (available: {})", names.join(", "))
            })
    }
}

#[async_trait]
impl Tool for SkillTool {
    fn name(&self) -> &str {
        SKILL_TOOL
    }
    fn description(&self) -> &str {
        "Run one of the skills listed under Skills in the system prompt. Parameters: skill (its name), args (optional). The result is the skill's instructions to follow, or the report of a skill that runs in a subagent."
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    /// The tool itself changes nothing: what the skill does passes the permission gate.
    fn read_only(&self) -> bool {
        true
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let name = match args.get("skill") {
            Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
            _ => return Err("Skill error: skill is required".into()),
        };
        let skill_args = match args.get("args") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(a)) => a.clone(),
            Some(_) => return Err("Skill error: args must be a string".into()),
        };
        let skill = self.find(&name)?;
        let Some(parent) = parent_of(&self.parent) else {
            return Err("Skill error: the session is gone".into());
        };
        if skills::is_fork(skill) {
            let call = Some(ctx.call_id.clone());
            return fork::run_fork(&parent, skill, &skill_args, call, ctx.cancel.clone())
                .await
                .map(Value::String);
        }
        let cwd = parent.config().cwd;
        Ok(Value::String(skills::inject_prompt(
            skill,
            &skill_args,
            &parent.session_id(),
            Path::new(&cwd),
        )))
    }
}
