//! Session construction and run options, and the run error.

use crate::core::env_ref::EnvVars;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::approval::ApprovalHandler;
use super::observer::SessionObserver;
use crate::core::errors::RobotaError;
use crate::core::events::{ExecutionEventFn, TextDeltaFn};
use crate::core::hooks::{HookExecutor, HooksConfig};
use crate::core::permissions::{PermissionLists, PermissionMode};
use crate::core::provider::Provider;
use crate::core::store::ConversationStore;
use crate::core::tool::Tool;
use crate::core::tool_choice::ToolChoice;

/// Reads a session's default compaction focus (see
/// [`SessionOptions::compact_instructions_source`]).
pub type CompactInstructionsSource = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// Everything a [`super::Session`] is built from (`ISessionOptions`).
#[derive(Clone)]
pub struct SessionOptions {
    /// The model provider.
    pub provider: Arc<dyn Provider>,
    /// Model id.
    pub model: String,
    /// System message (empty = none).
    pub system_message: String,
    /// Tools the model may call (each call goes through the permission enforcer).
    pub tools: Vec<Arc<dyn Tool>>,
    /// Working directory: relative paths in permission checks resolve against it; hook `cwd`.
    pub cwd: PathBuf,
    /// Initial permission mode.
    pub permission_mode: PermissionMode,
    /// Allow/deny patterns.
    pub permissions: PermissionLists,
    /// Lifecycle hooks.
    pub hooks: HooksConfig,
    /// Extra hook executor kinds, added next to the built-in `command` and `http`.
    pub extra_hook_executors: Vec<Arc<dyn HookExecutor>>,
    /// Asked when a call needs approval; none → such calls are denied with a clear message.
    pub approval_handler: Option<Arc<dyn ApprovalHandler>>,
    /// Tool/context/warning callbacks.
    pub observer: Option<Arc<dyn SessionObserver>>,
    /// Round cap per run; `None` (a session's default) = unlimited.
    pub max_turns: Option<i64>,
    /// Provider idle timeout (ms).
    pub provider_timeout_ms: Option<u64>,
    /// Session id (default `session_<ms>_<rand>`).
    pub session_id: Option<String>,
    /// Context window override (default: the model table).
    pub context_max_tokens: Option<u64>,
    /// Default tool choice of every turn; a named tool must be among `tools`.
    pub tool_choice: ToolChoice,
    /// Existing history to continue (resume / fork).
    pub history: Option<ConversationStore>,
    /// Environment applied to command hooks (the settings `env` map; values may be `$ENV:NAME`).
    pub hook_env: BTreeMap<String, String>,
    /// Which of the host's variables command hooks inherit (the session's `tool_env`).
    pub child_env: std::sync::Arc<crate::core::child_env::ChildEnvPolicy>,
    /// Where `$ENV:NAME` references of hooks (the `hook_env` values, HTTP hook headers) are
    /// looked up: variables passed explicitly first, then the process environment.
    pub env_vars: EnvVars,
    /// The HTTP client of `http` hooks (the runtime's shared pool); `None` = one of their own.
    pub http_client: Option<reqwest::Client>,
    /// Auto-compaction threshold (`0 < t ≤ 1`; `None` = disabled; default 0.835).
    pub auto_compact_threshold: Option<f64>,
    /// Default focus of compaction summaries (CLAUDE.md "Compact Instructions").
    pub compact_instructions: Option<String>,
    /// Where the default focus comes from when `compact_instructions` is `None`: called once,
    /// when the first compaction needs it (reading the project's CLAUDE.md files then instead
    /// of at every session's creation, where most sessions never compact).
    pub compact_instructions_source: Option<CompactInstructionsSource>,
    /// `cwd` names a directory of a host-supplied file system (host I/O): it must be absolute
    /// and is normalized lexically instead of being checked on the real disk.
    pub virtual_cwd: bool,
    /// `cwd` is known to be an absolute, resolved path of an existing directory (the process's
    /// working directory as `getcwd` reported it): not resolved again (one `statx` and one
    /// `readlink` less per session).
    pub cwd_is_canonical: bool,
    /// The session's budget: its tool-call limit is enforced by the tool dispatcher; compaction
    /// summaries and `prompt` hooks count their model calls on it.
    pub budget: Option<Arc<crate::core::budget::Budget>>,
    /// The agent's conversation id (`None` = a new `conv_…` id).
    pub conversation_id: Option<String>,
    /// Sampling temperature of every model call.
    pub temperature: Option<f32>,
    /// Max output tokens of every model call.
    pub max_tokens: Option<u32>,
    /// Extended thinking budget (tokens) of every model call.
    pub thinking_budget: Option<u32>,
    /// Asks for the provider's native web search on every model call.
    pub native_web_search: bool,
    /// Prompt-cache hints of every model call.
    pub prompt_cache: crate::core::prompt_cache::PromptCache,
}

impl SessionOptions {
    /// Options with defaults: no tools, process cwd, `default` mode, no hooks, unlimited turns.
    pub fn new(provider: Arc<dyn Provider>, model: impl Into<String>) -> Self {
        Self::in_dir(provider, model, std::env::current_dir().unwrap_or_default())
    }

    /// [`SessionOptions::new`] for working directory `cwd` (asks the process for nothing).
    pub fn in_dir(provider: Arc<dyn Provider>, model: impl Into<String>, cwd: PathBuf) -> Self {
        SessionOptions {
            provider,
            model: model.into(),
            system_message: String::new(),
            tools: Vec::new(),
            cwd,
            permission_mode: PermissionMode::Default,
            permissions: PermissionLists::default(),
            hooks: HooksConfig::default(),
            extra_hook_executors: Vec::new(),
            approval_handler: None,
            observer: None,
            max_turns: None,
            provider_timeout_ms: None,
            session_id: None,
            context_max_tokens: None,
            tool_choice: ToolChoice::Auto,
            history: None,
            hook_env: BTreeMap::new(),
            child_env: crate::core::child_env::ChildEnvPolicy::shared_default(),
            env_vars: EnvVars::process(),
            virtual_cwd: false,
            cwd_is_canonical: false,
            http_client: None,
            auto_compact_threshold: Some(super::context::AUTO_COMPACT_THRESHOLD),
            compact_instructions: None,
            compact_instructions_source: None,
            budget: None,
            conversation_id: None,
            temperature: None,
            max_tokens: None,
            thinking_budget: None,
            native_web_search: false,
            prompt_cache: crate::core::prompt_cache::PromptCache::default(),
        }
    }
}

/// Per-run options.
#[derive(Clone, Default)]
pub struct SessionRunOptions {
    /// Cancels the run (hooks, approvals, provider and tools).
    pub cancel: Option<CancellationToken>,
    /// Streamed text.
    pub on_text_delta: Option<TextDeltaFn>,
    /// Streamed thinking.
    pub on_thinking_delta: Option<TextDeltaFn>,
    /// Server-side tool uses the provider reports while streaming (`onServerToolUse`).
    pub on_server_tool: Option<crate::core::events::ServerToolFn>,
    /// Replay events.
    pub on_event: Option<ExecutionEventFn>,
    /// The user's raw input for `UserPromptSubmit` (`prompt`/`user_message`), when it differs
    /// from the message content (e.g. a slash command expanded into a prompt).
    pub raw_input: Option<String>,
    /// The caller already ran [`super::Session::auto_compact`] for this turn.
    pub skip_auto_compact: bool,
    /// Tool choice of this run (wins over the session's).
    pub tool_choice: Option<ToolChoice>,
    /// The JSON Schema the run's answer must match (structured output).
    pub output_schema: Option<std::sync::Arc<crate::core::output_schema::OutputSchema>>,
    /// The session's budget (checked before each model call).
    pub budget: Option<std::sync::Arc<crate::core::budget::Budget>>,
    /// Called once the user's message is in the history, before the first model request.
    pub on_user_appended: Option<crate::core::agent::UserAppendedFn>,
    /// The run's execution id (see [`crate::core::agent::RunOptions::execution_id`]).
    pub execution_id: Option<String>,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionRunError {
    /// A `UserPromptSubmit` hook exited 2: the prompt was not sent, history is unchanged.
    #[error("Prompt blocked by hook: {reason}")]
    PromptBlocked {
        /// The hook's stderr (or `Blocked by hook`).
        reason: String,
    },
    /// The engine failed (invalid options, a concurrent run, …).
    #[error(transparent)]
    Engine(#[from] RobotaError),
}
