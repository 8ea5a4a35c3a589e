//! The execution loop (10 rounds by default, 0 = unlimited): rounds of provider call → tool batch →
//! results, then the forced final summary when the loop ended without a final answer.

mod batch;
mod emitter;
mod guard;
mod provider_call;
mod record;
mod round;
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
pub use summary::{FORCED_SUMMARY_FALLBACK, FORCED_SUMMARY_INSTRUCTION};

use super::agent::{lock, AgentConfig, RunOptions, DEFAULT_MAX_EXECUTION_ROUNDS};
use super::errors::RobotaError;
use super::events::names;
use super::message::{Message, Role};
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

/// The usage added to the run's sum since `before` (one call's usage).
fn usage_since(before: Option<TokenUsage>, now: Option<TokenUsage>) -> TokenUsage {
    let (b, n) = (before.unwrap_or_default(), now.unwrap_or_default());
    TokenUsage {
        input_tokens: n.input_tokens.saturating_sub(b.input_tokens),
        output_tokens: n.output_tokens.saturating_sub(b.output_tokens),
        total_tokens: Some(n.total().saturating_sub(b.total())),
        cache_read_tokens: n.cache_read_tokens.saturating_sub(b.cache_read_tokens),
        cache_creation_tokens: n
            .cache_creation_tokens
            .saturating_sub(b.cache_creation_tokens),
    }
}

/// Asks the run's between-rounds check; true when the history was replaced.
async fn between_rounds(options: &RunOptions) -> bool {
    let Some(tx) = &options.between_rounds else {
        return false;
    };
    let (reply, answer) = tokio::sync::oneshot::channel();
    tx.send(reply).await.is_ok() && answer.await == Ok(true)
}

/// Index of this run's user message (it carries the execution id).
fn locate_turn(store: &Mutex<ConversationStore>, execution_id: &str) -> Option<usize> {
    lock(store).messages().iter().rposition(|m| {
        m.role == Role::User
            && m.metadata
                .as_ref()
                .and_then(|meta| meta.get("executionId"))
                .and_then(|v| v.as_str())
                == Some(execution_id)
    })
}

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

/// Runs one user turn against `store` (see [`crate::core::agent::Agent::run`]).
pub async fn execute(
    config: &AgentConfig,
    store: &Arc<Mutex<ConversationStore>>,
    user: Message,
    options: RunOptions,
) -> Result<ExecutionResult, RobotaError> {
    let max_rounds = resolve_max_rounds(config, &options)?;
    let started = Instant::now();
    let execution_id = new_uuid();
    let emitter = Emitter::new(
        options.on_event.clone(),
        execution_id.clone(),
        config.conversation_id.clone(),
    );
    let mut user = user;
    let mut meta = user.metadata.take().unwrap_or_default();
    meta.insert("executionId".into(), json!(execution_id));
    user.metadata = Some(meta);
    let mut turn_start = {
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
    };
    let mut ctx = RunCtx {
        config,
        store,
        cancel: options.cancel.clone().unwrap_or_default(),
        options: &options,
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
    };

    let mut round: u32 = 0;
    let mut unknown_streak = 0u32;
    let mut unknown_names: Vec<String> = Vec::new();
    let mut stop = RunStop::Complete;
    let mut forced_by_unknown = false;
    loop {
        if max_rounds != 0 && u64::from(round) >= max_rounds {
            stop = RunStop::MaxRounds;
            break;
        }
        if ctx.cancel.is_cancelled() {
            stop = RunStop::Aborted;
            break;
        }
        if round > 0 && between_rounds(&options).await {
            // The history was compacted: the old usage floor no longer describes it.
            ctx.cumulative_input_tokens = 0;
            turn_start = locate_turn(store, &execution_id).unwrap_or(0);
        }
        if let Some(b) = &options.budget {
            if b.check_model_call().is_err() {
                stop = RunStop::Budget;
                break;
            }
        }
        round += 1;
        let before = ctx.usage;
        let outcome = round::run_round(&mut ctx, round).await;
        if let Some(b) = &options.budget {
            b.record_usage(&usage_since(before, ctx.usage));
        }
        match outcome {
            RoundOutcome::Continue { unknown_tools } => {
                if unknown_tools.is_empty() {
                    unknown_streak = 0;
                } else {
                    unknown_streak += 1;
                    unknown_names.extend(unknown_tools);
                    if unknown_streak >= 2 {
                        forced_by_unknown = true;
                        break;
                    }
                }
                if ctx.cancel.is_cancelled() {
                    stop = RunStop::Aborted;
                    break;
                }
            }
            RoundOutcome::Done => break,
            RoundOutcome::Stopped(s) => {
                stop = s;
                break;
            }
            RoundOutcome::Empty => break,
            RoundOutcome::ContextBlocked => {
                stop = RunStop::ContextLimit;
                break;
            }
            RoundOutcome::ProviderFailed => {
                stop = RunStop::Error;
                break;
            }
            RoundOutcome::Aborted => {
                stop = RunStop::Aborted;
                break;
            }
        }
    }

    // The forced summary only follows tool rounds: it is never a hidden call after a round
    // in which no tool ran (an empty answer, a refusal, a cut output).
    let needs_summary = {
        let s = lock(store);
        !s.messages().last().is_some_and(|m| m.is_final_answer())
    };
    let tools_ran = !ctx.tool_outcomes.is_empty();
    let summary_stop = matches!(stop, RunStop::Complete | RunStop::MaxRounds);
    let budget_refused = needs_summary
        && tools_ran
        && summary_stop
        && options
            .budget
            .as_ref()
            .is_some_and(|b| b.check_model_call().is_err());
    if budget_refused {
        stop = RunStop::Budget;
    } else if needs_summary && tools_ran && summary_stop && !ctx.cancel.is_cancelled() {
        let instruction = if forced_by_unknown {
            summary::unknown_tools_instruction(&unknown_names)
        } else {
            FORCED_SUMMARY_INSTRUCTION.to_string()
        };
        let before = ctx.usage;
        summary::forced_summary(&mut ctx, round, &instruction).await;
        if let Some(b) = &options.budget {
            b.record_usage(&usage_since(before, ctx.usage));
        }
    }
    if ctx.cancel.is_cancelled() {
        stop = RunStop::Aborted;
    }

    let response = match (stop, ctx.final_response.take()) {
        (RunStop::Refusal, Some(r)) => r,
        _ => {
            let s = lock(store);
            s.messages()[turn_start..]
                .iter()
                .rev()
                .find(|m| m.role == Role::Assistant && !m.content.is_empty())
                .map_or_else(|| NO_RESPONSE_TEXT.to_string(), |m| m.content.clone())
        }
    };
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
        rounds: round,
        tool_outcomes: ctx.tool_outcomes,
    })
}
