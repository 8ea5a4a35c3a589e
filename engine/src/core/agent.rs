//! The `Agent` facade (Robota): configuration, history, and `run`.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

use super::errors::RobotaError;
use super::events::{ExecutionEventFn, OwnerPathSegment, TextDeltaFn};
use super::execution::{self, BatchMode, ExecutionResult};
use super::history::{EventEntry, HistoryEntry};
use super::message::{Message, Role};
use super::prompt_cache::PromptCache;
use super::provider::{NativeWebToolRequest, Provider};
use super::store::ConversationStore;
use super::tool::{DirectDispatcher, Tool, ToolDispatcher};
use super::tool_choice::ToolChoice;
use super::util::prefixed_id;

/// Default model/tool round cap.
pub const DEFAULT_MAX_EXECUTION_ROUNDS: i64 = 10;
/// Default tool batch concurrency.
pub const DEFAULT_MAX_CONCURRENCY: usize = 5;

/// Agent configuration (`IAgentConfig`).
#[derive(Clone)]
pub struct AgentConfig {
    /// Agent name.
    pub name: String,
    /// The model provider.
    pub provider: Arc<dyn Provider>,
    /// Model id.
    pub model: String,
    /// System message (kept as the single message at index 0).
    pub system_message: Option<String>,
    /// Tools the model may call.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Where tool calls go (permissions/hooks live in the session's dispatcher).
    pub dispatcher: Arc<dyn ToolDispatcher>,
    /// Default round cap (`None` → 10; `0` = unlimited).
    pub max_execution_rounds: Option<i64>,
    /// Provider idle timeout in ms (reset on every delta); `None`/0 = none.
    pub timeout_ms: Option<u64>,
    /// Max output tokens.
    pub max_tokens: Option<u32>,
    /// Temperature.
    pub temperature: Option<f32>,
    /// Conversation id (default `conv_<ms>_<rand>`).
    pub conversation_id: String,
    /// Tool batch concurrency (values < 1 clamp to 1).
    pub max_concurrency: usize,
    /// Parallel or sequential tool batches.
    pub batch_mode: BatchMode,
    /// Context window override (default: the model table).
    pub context_window: Option<u64>,
    /// Native web tools requested on every call.
    pub native_web_tools: NativeWebToolRequest,
    /// Extended thinking budget (tokens) requested on every call.
    pub thinking_budget: Option<u32>,
    /// Default tool choice of every turn (see [`ToolChoice`]).
    pub tool_choice: ToolChoice,
    /// Prompt-cache hints of every call (default: on, 5-minute lifetime).
    pub prompt_cache: PromptCache,
}

impl AgentConfig {
    /// A config with defaults for everything but provider and model.
    pub fn new(provider: Arc<dyn Provider>, model: impl Into<String>) -> Self {
        Self::with_conversation_id(provider, model, prefixed_id("conv"))
    }

    /// [`AgentConfig::new`] with the conversation id given.
    pub fn with_conversation_id(
        provider: Arc<dyn Provider>,
        model: impl Into<String>,
        conversation_id: String,
    ) -> Self {
        AgentConfig {
            name: "agent".to_string(),
            provider,
            model: model.into(),
            system_message: None,
            tools: Vec::new(),
            dispatcher: Arc::new(DirectDispatcher),
            max_execution_rounds: None,
            timeout_ms: None,
            max_tokens: None,
            temperature: None,
            conversation_id,
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            batch_mode: BatchMode::Parallel,
            context_window: None,
            native_web_tools: NativeWebToolRequest::default(),
            thinking_budget: None,
            tool_choice: ToolChoice::Auto,
            prompt_cache: PromptCache::default(),
        }
    }

    /// Validates the config (`Configuration Error: …`).
    pub fn validate(&self) -> Result<(), RobotaError> {
        if self.name.trim().is_empty() {
            return Err(RobotaError::Configuration("Agent name is required".into()));
        }
        if self.model.is_empty() {
            return Err(RobotaError::Configuration(
                "Model must be a non-empty string in defaultModel configuration.".into(),
            ));
        }
        if let Some(n) = self.max_execution_rounds {
            if n < 0 {
                return Err(RobotaError::Validation(
                    "[EXECUTION] maxExecutionRounds must be a non-negative integer".into(),
                ));
            }
        }
        Ok(())
    }
}

/// Per-run options (`IRunOptions`).
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Cancels the run (abort).
    pub cancel: Option<CancellationToken>,
    /// Streamed text, including the `"\n\n"` round separator.
    pub on_text_delta: Option<TextDeltaFn>,
    /// Streamed thinking text.
    pub on_thinking_delta: Option<TextDeltaFn>,
    /// Server-side tool uses the provider reports while streaming (`onServerToolUse`).
    pub on_server_tool: Option<super::events::ServerToolFn>,
    /// Replay events.
    pub on_event: Option<ExecutionEventFn>,
    /// Round cap for this run (wins over config).
    pub max_execution_rounds: Option<i64>,
    /// Owner path of the run (tool requests extend it).
    pub owner_path: Vec<OwnerPathSegment>,
    /// Tool choice of this run (wins over config).
    pub tool_choice: Option<ToolChoice>,
    /// The JSON Schema this run's final answer must match (see `core::output_schema`).
    pub output_schema: Option<std::sync::Arc<super::output_schema::OutputSchema>>,
    /// The session's budget: asked before each model call (the run stops with
    /// `RunStop::Budget` when it refuses).
    pub budget: Option<std::sync::Arc<super::budget::Budget>>,
    /// Asked before every round after the first (see [`BetweenRounds`]).
    pub between_rounds: Option<BetweenRounds>,
    /// Called once the user's message is in the history, before the first model request.
    pub on_user_appended: Option<UserAppendedFn>,
    /// The run's execution id (default: a fresh one), for a caller that tagged the user
    /// message already ([`super::execution::tag_with_execution`]).
    pub execution_id: Option<String>,
}

/// See [`RunOptions::on_user_appended`].
pub type UserAppendedFn = std::sync::Arc<dyn Fn() + Send + Sync>;

/// The between-rounds check of a run: before every round after the first the engine sends a
/// reply channel and waits; the answer says whether the history was replaced meanwhile
/// (compaction between rounds), so the engine re-reads where its turn starts.
pub type BetweenRounds = tokio::sync::mpsc::Sender<tokio::sync::oneshot::Sender<bool>>;

/// The agent: a config plus an append-only conversation.
pub struct Agent {
    /// Shared, replaced whole by [`Agent::update_config`]: a run and every reader take the
    /// current config by reference count, not by copying its strings and tool lists.
    config: Mutex<Arc<AgentConfig>>,
    store: Arc<Mutex<ConversationStore>>,
    running: std::sync::atomic::AtomicBool,
}

/// Locks a mutex, recovering from poisoning (history stays usable after a panicking callback).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Agent {
    /// Creates an agent with empty history.
    pub fn new(config: AgentConfig) -> Result<Self, RobotaError> {
        Self::with_history(config, ConversationStore::new())
    }

    /// Creates an agent over an existing history (resume / fork).
    pub fn with_history(
        config: AgentConfig,
        mut store: ConversationStore,
    ) -> Result<Self, RobotaError> {
        config.validate()?;
        if let Some(sys) = &config.system_message {
            store.set_system(sys);
        }
        Ok(Agent {
            config: Mutex::new(Arc::new(config)),
            store: Arc::new(Mutex::new(store)),
            running: Default::default(),
        })
    }

    /// A snapshot of the config (shared: later changes replace it, never alter it).
    pub fn config(&self) -> Arc<AgentConfig> {
        lock(&self.config).clone()
    }

    /// Changes the config (takes effect on the next run).
    pub fn update_config(&self, f: impl FnOnce(&mut AgentConfig)) -> Result<(), RobotaError> {
        let mut cfg = lock(&self.config);
        let mut next = AgentConfig::clone(&cfg);
        f(&mut next);
        next.validate()?;
        if next.system_message != cfg.system_message {
            if let Some(sys) = &next.system_message {
                lock(&self.store).set_system(sys);
            }
        }
        *cfg = Arc::new(next);
        Ok(())
    }

    /// The shared history (held only briefly by the engine; safe to read during a run).
    pub fn store(&self) -> &Arc<Mutex<ConversationStore>> {
        &self.store
    }

    /// Chat messages (a consistent snapshot).
    pub fn messages(&self) -> Vec<Arc<Message>> {
        lock(&self.store).messages().to_vec()
    }

    /// The chat messages a model is sent ([`ConversationStore::model_snapshot`](crate::core::store::ConversationStore::model_snapshot)).
    pub fn model_messages(&self) -> Vec<Arc<Message>> {
        lock(&self.store).model_snapshot().to_vec()
    }

    /// How many chat messages there are (without copying the list).
    pub fn message_count(&self) -> usize {
        lock(&self.store).len()
    }

    /// The full timeline (`getFullHistory`).
    pub fn history(&self) -> Vec<HistoryEntry> {
        lock(&self.store).entries().to_vec()
    }

    /// Appends an event entry (`addHistoryEntry`).
    pub fn add_event(&self, entry: EventEntry) {
        lock(&self.store).add_event(entry);
    }

    /// `injectMessage`: appends without calling the model.
    pub fn inject_message(&self, message: Message) {
        lock(&self.store).append(message);
    }

    /// `clearHistory`: drops everything but the system message.
    pub fn clear_history(&self) {
        lock(&self.store).clear(true);
    }

    /// True while a run is in progress.
    pub fn is_running(&self) -> bool {
        self.running.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Runs one user turn: the model/tool loop until a final answer, the round cap, the
    /// context guard, a provider error or an abort. Never fails for those; only invalid
    /// options (negative round cap) or a concurrent run return an error.
    pub async fn run(
        &self,
        input: impl Into<Message>,
        options: RunOptions,
    ) -> Result<ExecutionResult, RobotaError> {
        let mut user = input.into();
        user.role = Role::User;
        if self.running.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return Err(RobotaError::Validation(
                "Another run is already in progress on this agent".into(),
            ));
        }
        struct Reset<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                self.0.store(false, std::sync::atomic::Ordering::Release);
            }
        }
        let _reset = Reset(&self.running);
        let config = self.config();
        execution::execute(&config, &self.store, user, options).await
    }
}

impl From<&str> for Message {
    fn from(s: &str) -> Self {
        Message::user(s)
    }
}

impl From<String> for Message {
    fn from(s: String) -> Self {
        Message::user(s)
    }
}
