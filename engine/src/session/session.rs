//! The generic `Session`: an [`Agent`] whose every tool call goes through the
//! [`PermissionEnforcer`], plus the hook lifecycle (SessionStart, UserPromptSubmit, Stop,
//! StopFailure, SessionEnd) and context-window tracking.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::context::{ContextState, ContextWindowTracker};
use super::enforcer::{EnforcerParts, PermissionEnforcer};
use super::observer::SessionObserver;
use super::options::{SessionOptions, SessionRunError, SessionRunOptions};
use crate::core::agent::{lock, Agent, AgentConfig, RunOptions};
use crate::core::errors::RobotaError;
use crate::core::execution::{ExecutionResult, RunStop};
use crate::core::history::HistoryEntry;
use crate::core::hooks::{
    CommandExecutor, HookEvent, HookExecutor, HookExecutorRegistry, HooksConfig, HttpExecutor,
    PromptExecutor,
};
use crate::core::message::Message;
use crate::core::models::model_context_window;
use crate::core::permissions::PermissionMode;
use crate::core::provider::Provider;
use crate::core::tool::ToolDispatcher;
use crate::core::util::prefixed_id;

mod hooks;

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

/// The session's `prompt` hook executor: its own provider and model.
fn prompt_hooks(provider: &Arc<dyn Provider>, model: &str) -> Arc<dyn HookExecutor> {
    Arc::new(PromptExecutor::new(provider.clone(), model))
}

impl Session {
    /// Builds a session. Spawns nothing and needs no async runtime (safe on any thread); the
    /// `SessionStart` hook fires at the beginning of the first run.
    pub fn new(opts: SessionOptions) -> Result<Session, RobotaError> {
        let cwd = resolve_cwd(&opts.cwd, opts.virtual_cwd, opts.cwd_is_canonical)?;
        if let Some(n) = opts.max_turns {
            if n < 0 {
                return Err(RobotaError::Validation(format!(
                    "maxTurns must be a non-negative integer (0 or absent = unlimited), got {n}"
                )));
            }
        }
        let session_id = match opts.session_id {
            Some(id) if !id.trim().is_empty() => id,
            Some(_) => {
                return Err(RobotaError::Validation(
                    "session id must be a non-empty string".into(),
                ))
            }
            None => prefixed_id("session"),
        };
        let http = match &opts.http_client {
            Some(c) => HttpExecutor::with_client(c.clone()),
            None => HttpExecutor::new(),
        };
        let registry = HookExecutorRegistry::with_builtins(
            CommandExecutor::new()
                .with_env(opts.hook_env.clone())
                .with_vars(opts.env_vars.clone()),
            http.with_vars(opts.env_vars.clone()),
        )
        .with_extras(
            std::iter::once(prompt_hooks(&opts.provider, &opts.model))
                .chain(opts.extra_hook_executors.iter().cloned()),
        )
        .map_err(RobotaError::Configuration)?;
        let registry = Arc::new(registry);
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

    /// Runs one user turn: SessionStart (first run only) → UserPromptSubmit (exit 2 blocks the
    /// turn: nothing is sent, history is unchanged) → the engine → Stop / StopFailure.
    /// Hook stdout of SessionStart and UserPromptSubmit is prepended to the prompt as a
    /// `<system-reminder>` block.
    pub async fn run(
        &self,
        input: Message,
        opts: SessionRunOptions,
    ) -> Result<ExecutionResult, SessionRunError> {
        if self.running.swap(true, Ordering::AcqRel) {
            return Err(SessionRunError::Engine(RobotaError::Validation(
                "Another run is already in progress on this session".into(),
            )));
        }
        struct Reset<'a>(&'a AtomicBool);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }
        let _reset = Reset(&self.running);
        let cancel = opts.cancel.clone().unwrap_or_default();
        if opts.skip_auto_compact {
            self.refresh_context();
        } else {
            self.auto_compact(&cancel).await;
        }

        if !self.start_fired.swap(true, Ordering::AcqRel) {
            let fields = || Self::fields(vec![("env", self.env_value())]);
            let out = self
                .fire_hook(HookEvent::SessionStart, fields, cancel.clone())
                .await;
            *lock(&self.start_stdout) = out.stdout;
        }

        let fields = || {
            let raw = opts
                .raw_input
                .clone()
                .unwrap_or_else(|| input.content.clone());
            Self::fields(vec![
                ("user_message", Value::String(raw.clone())),
                ("prompt", Value::String(raw)),
                ("env", self.env_value()),
            ])
        };
        let ups = self
            .fire_hook(HookEvent::UserPromptSubmit, fields, cancel.clone())
            .await;
        if ups.blocked {
            return Err(SessionRunError::PromptBlocked {
                reason: ups.reason.unwrap_or_default(),
            });
        }
        let start_text = std::mem::take(&mut *lock(&self.start_stdout));
        let injected: Vec<&str> = [start_text.as_str(), ups.stdout.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        let mut message = input;
        if !injected.is_empty() {
            message.content = format!(
                "<system-reminder>\n{}\n</system-reminder>\n{}",
                injected.join("\n"),
                message.content
            );
        }

        let pre = {
            let store = lock(self.agent.store());
            let mut t = lock(&self.tracker);
            t.update_with_pending(&store, &message);
            t.state()
        };
        self.notify_context(&pre);

        // Compaction between rounds, only when automatic compaction is on.
        let (round_tx, mut round_rx) = tokio::sync::mpsc::channel(1);
        let run_opts = RunOptions {
            cancel: Some(cancel.clone()),
            on_text_delta: opts.on_text_delta.clone(),
            on_thinking_delta: opts.on_thinking_delta.clone(),
            on_event: opts.on_event.clone(),
            max_execution_rounds: None,
            owner_path: Vec::new(),
            tool_choice: opts.tool_choice.clone(),
            budget: opts.budget.clone(),
            between_rounds: self.auto_compact_threshold().map(|_| round_tx),
        };
        let run = self.agent.run(message, run_opts);
        tokio::pin!(run);
        let result = loop {
            tokio::select! {
                r = &mut run => break r,
                Some(reply) = round_rx.recv() => {
                    let _ = reply.send(self.compact_between_rounds(&cancel).await);
                }
            }
        };
        let after = self.refresh_context();
        self.notify_context(&after);
        match result {
            Err(e) => {
                self.fire_stop_failure(&e.to_string()).await;
                Err(SessionRunError::Engine(e))
            }
            Ok(r) => {
                if r.interrupted {
                    self.fire_stop_failure(ABORTED_REASON).await;
                } else if r.stop == RunStop::Error {
                    let reason = r.error.clone().unwrap_or_else(|| r.response.clone());
                    self.fire_stop_failure(&reason).await;
                } else {
                    let fields = || {
                        let short: String = r.response.chars().take(STOP_RESPONSE_CHARS).collect();
                        Self::fields(vec![
                            ("response", Value::String(short)),
                            ("last_assistant_message", Value::String(r.response.clone())),
                            ("stop_hook_active", Value::Bool(false)),
                            ("env", self.env_value()),
                        ])
                    };
                    self.fire_hook(HookEvent::Stop, fields, CancellationToken::new())
                        .await;
                }
                Ok(r)
            }
        }
    }
}
