//! The generic `Session`: an [`Agent`] whose every tool call goes through the
//! [`PermissionEnforcer`], plus the hook lifecycle (SessionStart, UserPromptSubmit, Stop,
//! StopFailure, SessionEnd) and context-window tracking.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::context::{ContextState, ContextWindowTracker};
use super::enforcer::{EnforcerParts, PermissionEnforcer};
use super::observer::SessionObserver;
use super::options::SessionOptions;
use crate::core::agent::{lock, Agent, AgentConfig};
use crate::core::errors::RobotaError;
use crate::core::history::HistoryEntry;
use crate::core::hooks::{
    CommandExecutor, HookExecutor, HookExecutorRegistry, HooksConfig, HttpExecutor, PromptExecutor,
};
use crate::core::message::Message;
use crate::core::models::model_context_window;
use crate::core::permissions::PermissionMode;
use crate::core::tool::ToolDispatcher;
use crate::core::util::prefixed_id;

mod hooks;
mod run;

/// Characters of the response put into the `Stop` hook's `response` field.
pub const STOP_RESPONSE_CHARS: usize = 500;
/// `StopFailure` reason of an aborted run.
pub const ABORTED_REASON: &str = "Aborted";

/// Auto-compaction threshold and default focus instructions.
pub(super) struct CompactionSettings {
    pub(super) threshold: Mutex<Option<f64>>,
    instructions: Option<String>,
    /// Reads the default focus when `instructions` is `None`, once ([`Self::focus`]).
    source: Option<super::options::CompactInstructionsSource>,
    read: std::sync::OnceLock<Option<String>>,
}

impl CompactionSettings {
    /// The default focus of a summary: the given instructions, else what the source reads
    /// (the first time it is asked).
    pub(super) fn focus(&self) -> Option<String> {
        if self.instructions.is_some() {
            return self.instructions.clone();
        }
        let source = self.source.as_ref()?;
        self.read.get_or_init(|| source()).clone()
    }
}

/// A session: one conversation with tools, permissions and hooks.
pub struct Session {
    pub(super) agent: Agent,
    enforcer: Arc<PermissionEnforcer>,
    hooks: Arc<HooksConfig>,
    registry: Arc<HookExecutorRegistry>,
    pub(super) observer: Option<Arc<dyn SessionObserver>>,
    pub(super) compaction: CompactionSettings,
    /// The session's budget (compaction summaries count on it).
    pub(super) budget: Option<Arc<crate::core::budget::Budget>>,
    session_id: String,
    cwd: PathBuf,
    context_max_tokens: Option<u64>,
    tracker: Mutex<ContextWindowTracker>,
    start_fired: AtomicBool,
    start_stdout: Mutex<String>,
    ended: AtomicBool,
    running: AtomicBool,
}

fn resolve_cwd(cwd: &Path, virtual_cwd: bool, canonical: bool) -> Result<PathBuf, RobotaError> {
    if virtual_cwd {
        if !cwd.is_absolute() {
            return Err(RobotaError::Configuration(format!(
                "Session cwd \"{}\" must be an absolute path of the host's file system",
                cwd.display()
            )));
        }
        return Ok(crate::tools::config::normalize_lexical(cwd));
    }
    if canonical && cwd.is_absolute() {
        return Ok(cwd.to_path_buf());
    }
    let base = if cwd.as_os_str().is_empty() {
        std::env::current_dir().map_err(|e| {
            RobotaError::Configuration(format!(
                "Session cwd is not set and the process cwd is unavailable: {e}"
            ))
        })?
    } else {
        cwd.to_path_buf()
    };
    match std::fs::canonicalize(&base) {
        Ok(p) if p.is_dir() => Ok(p),
        Ok(_) => Err(RobotaError::Configuration(format!(
            "Session cwd \"{}\" is not a directory",
            base.display()
        ))),
        Err(e) => Err(RobotaError::Configuration(format!(
            "Session cwd \"{}\" is not accessible: {e}",
            base.display()
        ))),
    }
}

/// The session's `prompt` hook executor: its own provider and model, on its budget.
fn prompt_hooks(opts: &SessionOptions) -> Arc<dyn HookExecutor> {
    Arc::new(
        PromptExecutor::new(opts.provider.clone(), opts.model.clone())
            .with_budget(opts.budget.clone()),
    )
}

/// The session's hook executors: `command` and `http` (over the session's client when it
/// gave one) with its environment, its `prompt` executor and the extra ones it was given.
fn hook_registry(opts: &SessionOptions) -> Result<HookExecutorRegistry, RobotaError> {
    let http = match &opts.http_client {
        Some(c) => HttpExecutor::with_client(c.clone()),
        None => HttpExecutor::new(),
    };
    HookExecutorRegistry::with_builtins(
        CommandExecutor::new()
            .with_env(opts.hook_env.clone())
            .with_env_policy(opts.child_env.clone())
            .with_vars(opts.env_vars.clone()),
        http.with_vars(opts.env_vars.clone()),
    )
    .with_extras(
        std::iter::once(prompt_hooks(opts)).chain(opts.extra_hook_executors.iter().cloned()),
    )
    .map_err(RobotaError::Configuration)
}

impl Session {
    /// Builds a session. Spawns nothing and needs no async runtime (safe on any thread); the
    /// `SessionStart` hook fires at the beginning of the first run.
    pub fn new(opts: SessionOptions) -> Result<Session, RobotaError> {
        Self::new_boxed(Box::new(opts))
    }

    /// [`Session::new`] with the options already on the heap: the caller's frame holds no copy
    /// of them (760 B).
    pub fn new_boxed(mut opts: Box<SessionOptions>) -> Result<Session, RobotaError> {
        let cwd = resolve_cwd(&opts.cwd, opts.virtual_cwd, opts.cwd_is_canonical)?;
        if let Some(n) = opts.max_turns {
            if n < 0 {
                return Err(RobotaError::Validation(format!(
                    "maxTurns must be a non-negative integer (0 or absent = unlimited), got {n}"
                )));
            }
        }
        let session_id = match opts.session_id.take() {
            Some(id) if !id.trim().is_empty() => id,
            Some(_) => {
                return Err(RobotaError::Validation(
                    "session id must be a non-empty string".into(),
                ))
            }
            None => prefixed_id("session"),
        };
        let registry = Arc::new(hook_registry(&opts)?);
        let hooks = Arc::new(opts.hooks);
        let enforcer = Arc::new(PermissionEnforcer::new(EnforcerParts {
            session_id: session_id.clone(),
            cwd: cwd.clone(),
            mode: opts.permission_mode,
            lists: opts.permissions,
            hooks: hooks.clone(),
            registry: registry.clone(),
            approval: opts.approval_handler,
            observer: opts.observer.clone(),
            budget: opts.budget.clone(),
        }));
        let mut config = match opts.conversation_id {
            Some(id) => AgentConfig::with_conversation_id(opts.provider, opts.model, id),
            None => AgentConfig::new(opts.provider, opts.model),
        };
        config.temperature = opts.temperature;
        config.max_tokens = opts.max_tokens;
        config.thinking_budget = opts.thinking_budget;
        config.prompt_cache = opts.prompt_cache;
        config.native_web_tools.web_search |= opts.native_web_search;
        config.system_message = Some(opts.system_message).filter(|s| !s.is_empty());
        config.tools = opts.tools;
        config.dispatcher = enforcer.clone() as Arc<dyn ToolDispatcher>;
        config.max_execution_rounds = Some(opts.max_turns.unwrap_or(0));
        config.timeout_ms = opts.provider_timeout_ms;
        config.context_window = opts.context_max_tokens;
        opts.tool_choice.check(
            "session config: field \"tool_choice\"",
            config.tools.iter().map(|t| t.name()),
        )?;
        config.tool_choice = opts.tool_choice;
        let max_tokens = opts
            .context_max_tokens
            .unwrap_or_else(|| model_context_window(&config.model));
        let agent = Agent::with_history(config, opts.history.unwrap_or_default())?;
        let mut tracker = ContextWindowTracker::new(max_tokens);
        tracker.update_from_store(&lock(agent.store()));
        Ok(Session {
            agent,
            enforcer,
            hooks,
            registry,
            observer: opts.observer,
            compaction: CompactionSettings {
                threshold: Mutex::new(opts.auto_compact_threshold),
                instructions: opts.compact_instructions,
                source: opts.compact_instructions_source,
                read: std::sync::OnceLock::new(),
            },
            budget: opts.budget.clone(),
            session_id,
            cwd,
            context_max_tokens: opts.context_max_tokens,
            tracker: Mutex::new(tracker),
            start_fired: AtomicBool::new(false),
            start_stdout: Mutex::new(String::new()),
            ended: AtomicBool::new(false),
            running: AtomicBool::new(false),
        })
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The engine (history, config, injection).
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// The permission enforcer (the session's tool dispatcher).
    pub fn enforcer(&self) -> &Arc<PermissionEnforcer> {
        &self.enforcer
    }

    /// Chat messages.
    pub fn messages(&self) -> Vec<Arc<Message>> {
        self.agent.messages()
    }

    /// The full timeline.
    pub fn history(&self) -> Vec<HistoryEntry> {
        self.agent.history()
    }

    /// The current permission mode.
    pub fn permission_mode(&self) -> PermissionMode {
        self.enforcer.mode()
    }

    /// Changes the permission mode (applies to the next tool call).
    pub fn set_permission_mode(&self, mode: PermissionMode) {
        self.enforcer.set_mode(mode);
    }

    /// Tools approved with "allow always".
    pub fn session_allowed_tools(&self) -> Vec<String> {
        self.enforcer.session_allowed_tools()
    }

    /// Forgets the "allow always" approvals.
    pub fn clear_session_allowed_tools(&self) {
        self.enforcer.clear_session_allowed_tools();
    }

    /// The context-window state (as of the last refresh: construction, run start/end, clear).
    pub fn context_state(&self) -> ContextState {
        lock(&self.tracker).state()
    }

    /// Drops the conversation (the system message stays) and resets the tracker.
    pub fn clear_history(&self) {
        self.agent.clear_history();
        let state = {
            let mut t = lock(&self.tracker);
            t.reset();
            t.state()
        };
        self.notify_context(&state);
    }

    /// Uses `window` as the context window (one the provider's server told) unless the session
    /// set `context_max_tokens`.
    pub fn set_served_window(&self, window: u64) -> Result<(), RobotaError> {
        if self.context_max_tokens.is_some() {
            return Ok(());
        }
        self.agent
            .update_config(|c| c.context_window = Some(window))?;
        lock(&self.tracker).set_max_tokens(window);
        Ok(())
    }

    /// Whether the session's window was given (`context_max_tokens`).
    pub fn has_window_override(&self) -> bool {
        self.context_max_tokens.is_some()
    }

    /// Switches the model (the window follows it unless `context_max_tokens` was given).
    pub fn set_model(&self, model: &str) -> Result<(), RobotaError> {
        self.agent.update_config(|c| c.model = model.to_string())?;
        if self.context_max_tokens.is_none() {
            lock(&self.tracker).set_max_tokens(model_context_window(model));
        }
        Ok(())
    }

    /// The current model id.
    pub fn model(&self) -> String {
        self.agent.config().model.clone()
    }

    /// Replaces the system message (kept at index 0).
    pub fn set_system_message(&self, system_message: &str) -> Result<(), RobotaError> {
        self.agent
            .update_config(|c| c.system_message = Some(system_message.to_string()))
    }

    /// The canonical working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// True while a run is in progress.
    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::Acquire)
    }

    fn notify_context(&self, state: &ContextState) {
        if let Some(o) = &self.observer {
            o.on_context_update(state);
        }
    }

    pub(super) fn refresh_context(&self) -> ContextState {
        let store = lock(self.agent.store());
        let mut t = lock(&self.tracker);
        t.update_from_store(&store);
        t.state()
    }
}
