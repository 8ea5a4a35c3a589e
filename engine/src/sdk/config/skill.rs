//! A discovered skill as a session's parameters hold it (discovery and running live in the
//! `commands` folder, which reads config, never the reverse).

use std::path::PathBuf;

/// One discovered skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    /// Command name (`name` key, else the directory or file base name).
    pub name: String,
    /// `description`, else `Skill: <fallback name>`.
    pub description: String,
    /// `argument-hint`.
    pub argument_hint: Option<String>,
    /// The whole file, frontmatter included.
    pub content: String,
    /// The skill's directory (`${CLAUDE_SKILL_DIR}`).
    pub dir: PathBuf,
    /// The model may invoke it (unless `disable-model-invocation: true`).
    pub model_invocable: bool,
    /// The user may invoke it (unless `user-invocable: false`).
    pub user_invocable: bool,
    /// `context` (`fork` runs in a subagent).
    pub context: Option<String>,
    /// `agent`: the agent definition a `context: fork` skill runs as (default `general-purpose`).
    pub agent: Option<String>,
    /// `allowed-tools`: the only tools a `context: fork` skill's subagent gets (`None` = all).
    pub allowed_tools: Option<Vec<String>>,
}
