//! The execution loop (10 rounds by default, 0 = unlimited): rounds of provider call → tool batch →
//! results, then the forced final summary when the loop ended without a final answer.

mod batch;
mod emitter;
mod guard;
mod provider_call;
mod record;
mod round;
mod run_loop;
mod structured;
mod summary;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::json;
use tokio_util::sync::CancellationToken;

pub use batch::{
    execute_batch, BatchContext, BatchMode, ToolRequest, ToolRunResult, INTERRUPTED_TOOL_ERROR,
    MAX_TOKENS_CUT_CALL, MAX_TOKENS_NOT_RUN,
};
pub use emitter::Emitter;
pub use guard::HARD_BLOCK_PERCENT;
pub use record::{ToolResultsOutcome, CONTEXT_SKIP_MESSAGE, TOOL_BUDGET_RATIO};
pub use structured::{FINAL_ANSWER_KEY, REPAIR_KEY};
pub use summary::{FORCED_SUMMARY_FALLBACK, FORCED_SUMMARY_INSTRUCTION};

use super::agent::{lock, AgentConfig, RunOptions, DEFAULT_MAX_EXECUTION_ROUNDS};
use super::errors::RobotaError;
use super::events::names;
use super::message::Message;
use super::store::ConversationStore;
use super::tokens::TokenUsage;
use super::util::new_uuid;

/// Text returned when a run produced no assistant text at all.
pub const NO_RESPONSE_TEXT: &str = "No response received. The context window may be full.";

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStop {
    /// A final answer.
    Complete,
    /// The round cap forced the final summary.
    MaxRounds,
    /// The pre-send guard blocked the call.
    ContextLimit,
    /// The provider failed (`Request failed: …`).
    Error,
    /// Aborted by the caller.
    Aborted,
    /// The model refused; the answer is its refusal text (possibly empty).
    Refusal,
    /// The model's output was cut at `max_tokens` (a cut tool call is not run).
    MaxTokens,
    /// The session's budget refused the next call.
    Budget,
    /// The answer did not match the run's output schema, also after the repair round
    /// ([`ExecutionResult::schema_errors`] says why).
    SchemaError,
}

/// Result of one run (`IExecutionResult`).
#[derive(Debug, Clone)]
pub struct ExecutionResult {
    /// The answer: last non-empty assistant text of this run, else [`NO_RESPONSE_TEXT`].
    pub response: String,
    /// Execution id.
    pub execution_id: String,
    /// Wall time.
    pub duration_ms: u64,
    /// Usage summed over the run's provider calls (forced summary included); `None` when no
    /// call reported any.
    pub usage: Option<TokenUsage>,
    /// Executed tool names (unknown tools excluded), in call order.
    pub tools_executed: Vec<String>,
    /// Always true: failures become assistant text.
    pub success: bool,
    /// True when aborted.
    pub interrupted: bool,
    /// Why the run ended.
    pub stop: RunStop,
    /// Provider error text when `stop == Error`.
    pub error: Option<String>,
    /// Whether retrying the failed call may succeed (`stop == Error`; false e.g. for a prompt
    /// the vendor blocked for safety).
    pub error_recoverable: bool,
    /// The taxonomy error behind `error` (its code, category and recoverability).
    pub error_class: Option<RobotaError>,
    /// Number of provider rounds performed (forced summary excluded).
    pub rounds: u32,
    /// Budget outcome of each tool round, in order.
    pub tool_outcomes: Vec<ToolResultsOutcome>,
    /// The answer parsed and validated against the run's output schema, when one was given
    /// and the answer matches.
    pub output: Option<serde_json::Value>,
    /// Why the answer does not match the output schema (`stop == SchemaError`).
    pub schema_errors: Vec<String>,
}

/// State shared by the rounds of one run.
pub(crate) struct RunCtx<'a> {
    pub config: &'a AgentConfig,
    pub store: &'a Mutex<ConversationStore>,
    pub options: &'a RunOptions,
    pub cancel: CancellationToken,
    pub emitter: Emitter,
    pub context_window: u64,
    pub cumulative_input_tokens: u64,
    pub tools_executed: Vec<String>,
    /// Usage summed over the run's calls.
    pub usage: Option<TokenUsage>,
    /// Some round streamed text (a later round's text is then preceded by `"\n\n"`).
    pub streamed_any: bool,
    pub provider_error: Option<String>,
    pub provider_error_recoverable: bool,
    pub provider_error_class: Option<RobotaError>,
    /// The answer when the round that ended the run decided it (a refusal).
    pub final_response: Option<String>,
    pub tool_outcomes: Vec<ToolResultsOutcome>,
    /// Tool schemas, built once per run.
    pub tool_schemas: Vec<Arc<super::provider::ToolSchema>>,
    /// The output schema sent on every call (a provider with a native form only).
    pub native_output_schema: Option<Arc<super::output_schema::OutputSchema>>,
    /// The validated answer (structured output).
    pub output: Option<serde_json::Value>,
    /// Why the answer does not match the output schema.
    pub schema_errors: Vec<String>,
}

/// What a round decided.
pub(crate) enum RoundOutcome {
    /// Run another round.
    Continue { unknown_tools: Vec<String> },
    /// A final answer was committed.
    Done,
    /// The model refused or hit `max_tokens`: the run ends here, without a forced summary.
    Stopped(RunStop),
    /// Empty response: fall through to the forced summary.
    Empty,
    /// The pre-send guard blocked.
    ContextBlocked,
    /// Provider error recorded as `Request failed: …`.
    ProviderFailed,
    /// Aborted.
    Aborted,
}

/// Adds one call's usage to the run's sum.
pub(crate) fn add_usage(ctx: &mut RunCtx<'_>, usage: Option<TokenUsage>) {
    if let Some(u) = usage {
        match &mut ctx.usage {
            Some(total) => *total += u,
            None => ctx.usage = Some(u),
        }
    }
}

/// The round cap: the run's, else the agent's, else the default (0 = unlimited).
fn resolve_max_rounds(config: &AgentConfig, options: &RunOptions) -> Result<u64, RobotaError> {
    let n = options
        .max_execution_rounds
        .or(config.max_execution_rounds)
        .unwrap_or(DEFAULT_MAX_EXECUTION_ROUNDS);
    u64::try_from(n).map_err(|_| {
        RobotaError::Validation(
            "[EXECUTION] maxExecutionRounds must be a non-negative integer".into(),
        )
    })
}

/// Tags the user message with the execution id (so the turn can be found after a compaction).
pub fn tag_with_execution(mut user: Message, execution_id: &str) -> Message {
    let mut meta = user.metadata.take().unwrap_or_default();
    meta.insert("executionId".into(), json!(execution_id));
    user.metadata = Some(meta);
    user
}

/// Sets the system message and appends the user message, emitting the history mutation;
/// returns the user message's index (where this turn starts).
fn append_user_turn(
    config: &AgentConfig,
    store: &Mutex<ConversationStore>,
    user: Message,
    emitter: &Emitter,
) -> usize {
    let mut s = lock(store);
    if let Some(sys) = &config.system_message {
        s.set_system(sys);
    }
    let idx = s.append(user);
    if emitter.enabled() {
        let msg = s.messages()[idx].clone();
        emitter.emit(names::HISTORY_MUTATION, None, |d| {
            d.insert("mutation".into(), json!("append_message"));
            d.insert("index".into(), json!(idx));
            d.insert("message".into(), json!(msg.as_ref()));
        });
    }
    idx
}

impl<'a> RunCtx<'a> {
    /// The state of a run that has not called the provider yet.
    fn new(
        config: &'a AgentConfig,
        store: &'a Mutex<ConversationStore>,
        options: &'a RunOptions,
        emitter: Emitter,
    ) -> Self {
        RunCtx {
            config,
            store,
            cancel: options.cancel.clone().unwrap_or_default(),
            options,
            emitter,
            context_window: config
                .context_window
                .unwrap_or_else(|| super::models::model_context_window(&config.model)),
            cumulative_input_tokens: 0,
            tools_executed: Vec::new(),
            usage: None,
            streamed_any: false,
            provider_error: None,
            provider_error_recoverable: false,
            provider_error_class: None,
            final_response: None,
            tool_outcomes: Vec::new(),
            tool_schemas: config.tools.iter().map(|t| t.schema()).collect(),
            native_output_schema: options
                .output_schema
                .clone()
                .filter(|_| config.provider.native_output_schema()),
            output: None,
            schema_errors: Vec::new(),
        }
    }
}

/// Runs one user turn against `store` (see [`crate::core::agent::Agent::run`]).
pub async fn execute(
    config: &AgentConfig,
    store: &Arc<Mutex<ConversationStore>>,
    user: Message,
    options: RunOptions,
) -> Result<ExecutionResult, RobotaError> {
    let max_rounds = resolve_max_rounds(config, &options)?;
    let started = Instant::now();
    let execution_id = options.execution_id.clone().unwrap_or_else(new_uuid);
    let emitter = Emitter::new(
        options.on_event.clone(),
        execution_id.clone(),
        config.conversation_id.clone(),
    );
    let user = tag_with_execution(user, &execution_id);
    let turn_start = append_user_turn(config, store, user, &emitter);
    if let Some(f) = &options.on_user_appended {
        f();
    }
    let mut ctx = RunCtx::new(config, store, &options, emitter);

    let mut end = run_loop::run_rounds(&mut ctx, max_rounds, &execution_id, turn_start, 0).await;
    let mut stop = run_loop::conclude(&mut ctx, &end).await;
    if let Some(schema) = &options.output_schema {
        stop =
            structured::settle(&mut ctx, schema, stop, &mut end, max_rounds, &execution_id).await;
    }
    let response = run_loop::final_response(&mut ctx, stop, end.turn_start);
    Ok(ExecutionResult {
        response,
        execution_id,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        usage: ctx.usage,
        tools_executed: ctx.tools_executed,
        success: true,
        interrupted: stop == RunStop::Aborted,
        stop,
        error: ctx.provider_error,
        error_recoverable: ctx.provider_error_recoverable,
        error_class: ctx.provider_error_class,
        rounds: end.rounds,
        tool_outcomes: ctx.tool_outcomes,
        output: ctx.output,
        schema_errors: ctx.schema_errors,
    })
}
