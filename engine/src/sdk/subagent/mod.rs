//! Subagents (children never spawn children of their own): agent definitions, the child session
//! runner, the `Agent` tool and the `agent` hook executor.
//!
//! * A child is an [`InteractiveSession`](crate::sdk::interactive::InteractiveSession)
//!   assembled from its parent's config in force (provider, model, cwd, permission mode and
//!   allow/deny lists as they are now, hooks, tool config, host I/O) with the definition's
//!   prompt, model and tool filter; settings files are not read again. It has its own context
//!   window and conversation, and its own transcript when the parent has one
//!   (`<dir>/<parent session id>/subagents/<agent id>.jsonl`).
//! * A child never gets more than its parent: the same mode and lists (a deny rule holds in
//!   the child), only tools the parent has, and no budget of its own: its calls count on the
//!   parent's (a child the budget stops ends with `stop_reason:"budget"`).
//! * Nesting: a child gets the `Agent` tool only when its definition's `tools` names `Agent`
//!   and its depth is below [`MAX_DEPTH`] (the parent session is depth 0).
//! * The child's events reach the parent's host as `ROBOTA_EVENT_SUBAGENT`
//!   `{"agent_id","agent_type","parent_tool_call_id","event":{…pull form…}}`, up to and including
//!   the child's `turn_completed`; its tool calls, permission, hook and host I/O requests keep
//!   their kinds and runtime-unique ids and are answered as usual.

pub mod defs;
pub mod hook;
mod lifecycle_fields;
pub mod runner;
pub mod tool;

use std::sync::{Arc, OnceLock, Weak};

use async_trait::async_trait;
use serde_json::{Map, Value};

use crate::core::hooks::{HookEvent, HookRunOutcome};
use crate::sdk::config::SessionConfig;
use crate::sdk::host::tools::SessionLink;

/// Deepest nesting: a session of this depth never gets the `Agent` tool.
pub const MAX_DEPTH: u32 = 2;
/// The `Agent` tool's name.
pub const AGENT_TOOL: &str = "Agent";

/// Whether the session offers the `Agent` tool: its `tools` names `Agent`, or it has no
/// `tools` list and its JSON has `"agents"` (possibly `{}`: the built-ins and files only);
/// never at [`MAX_DEPTH`].
pub fn offers_agent_tool(cfg: &SessionConfig) -> bool {
    let a = &cfg.params.agents;
    if a.depth >= MAX_DEPTH {
        return false;
    }
    match &cfg.tools {
        Some(t) => t.iter().any(|n| n == AGENT_TOOL),
        None => a.session.is_some(),
    }
}

/// Collects the definitions of a session (see [`defs`]); problems become warnings.
// Never inlined: a frame of its own, left before the session underneath is built
// (`InteractiveSession::new_boxed`).
#[inline(never)]
pub fn assemble(cfg: &mut SessionConfig, env: &crate::core::env_ref::EnvVars) {
    if cfg.params.agents.depth > 0 || !cfg.params.agents.all.is_empty() {
        return;
    }
    use crate::sdk::settings::{SettingsScope, UserDirs};
    let scope = SettingsScope::parse(&cfg.settings).unwrap_or(SettingsScope::None);
    let no_session_agents = cfg
        .params
        .agents
        .session
        .as_deref()
        .unwrap_or_default()
        .is_empty();
    if scope == SettingsScope::None && no_session_agents {
        // No directory to read and nothing of the session's: exactly the built-ins.
        cfg.params.agents.all = defs::shared_builtins();
        return;
    }
    let dirs = UserDirs::from_env(env);
    let user: Vec<&std::path::Path> = match scope {
        SettingsScope::None => Vec::new(),
        _ => [dirs.robota.as_deref(), dirs.claude.as_deref()]
            .into_iter()
            .flatten()
            .collect(),
    };
    let cwd = crate::sdk::project::context::absolute(std::path::Path::new(&cfg.cwd));
    let session = cfg.params.agents.session.clone().unwrap_or_default();
    let all = defs::collect(
        &session,
        &cwd,
        &user,
        scope == SettingsScope::Project,
        &mut cfg.params.warnings,
    );
    cfg.params.agents.all = Arc::new(all);
}

/// What a child needs from its parent session.
#[async_trait]
pub trait Parent: Send + Sync {
    /// The parent's config in force (model, permission mode and lists as they are now).
    fn config(&self) -> SessionConfig;
    /// The parent's link (runtime, event sink, running turn, whether the host answers).
    fn link(&self) -> Arc<SessionLink>;
    /// The parent's session id.
    fn session_id(&self) -> String;
    /// Names of the parent's tools, in order.
    fn tool_names(&self) -> Vec<String>;
    /// Fires a hook of the parent with its common keys plus `fields`.
    async fn fire_hook(&self, event: HookEvent, fields: Map<String, Value>) -> HookRunOutcome;
}

/// Set once the parent session exists (the tool and the hook executor are built before it).
pub type ParentCell = Arc<OnceLock<Weak<dyn Parent>>>;

/// The parent, while it lives.
pub fn parent_of(cell: &ParentCell) -> Option<Arc<dyn Parent>> {
    cell.get().and_then(Weak::upgrade)
}
