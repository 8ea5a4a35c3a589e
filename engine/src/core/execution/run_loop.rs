//! The round loop of one run and what follows it: the checks before each round, how a round's
//! outcome ends (or continues) the loop, the forced final summary and the run's answer.

use std::ops::ControlFlow;
use std::sync::Mutex;

use super::summary::{self, FORCED_SUMMARY_INSTRUCTION};
use super::{round, RoundOutcome, RunCtx, RunStop, NO_RESPONSE_TEXT};
use crate::core::agent::{lock, RunOptions};
use crate::core::message::Role;
use crate::core::store::ConversationStore;
use crate::core::tokens::TokenUsage;

/// How the round loop ended.
pub(super) struct LoopEnd {
    /// Provider rounds performed.
    pub rounds: u32,
    /// Why the loop stopped (before the forced summary).
    pub stop: RunStop,
    /// Index of this run's user message (moved when the history was compacted).
    pub turn_start: usize,
    /// Unknown tools requested, and whether their streak ended the loop.
    pub unknown: UnknownStreak,
}

/// Consecutive rounds in which the model asked for tools that are not registered.
#[derive(Default)]
pub(super) struct UnknownStreak {
    /// Rounds in a row with an unknown tool.
    streak: u32,
    /// Every unknown tool name requested in the run, in order.
    names: Vec<String>,
    /// Two such rounds in a row ended the loop.
    forced: bool,
}

impl UnknownStreak {
    /// Records one tool round's unknown tools; true when the streak ends the loop.
    fn record(&mut self, unknown_tools: Vec<String>) -> bool {
        if unknown_tools.is_empty() {
            self.streak = 0;
            return false;
        }
        self.streak += 1;
        self.names.extend(unknown_tools);
        self.forced = self.streak >= 2;
        self.forced
    }

    /// The forced summary's instruction: about the unknown tools when their streak ended the loop.
    fn summary_instruction(&self) -> String {
        if self.forced {
            summary::unknown_tools_instruction(&self.names)
        } else {
            FORCED_SUMMARY_INSTRUCTION.to_string()
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

/// Charges the session's budget with the usage of the call made since `before`.
fn charge_budget(ctx: &RunCtx<'_>, before: Option<TokenUsage>) {
    if let Some(b) = &ctx.options.budget {
        let usage = usage_since(before, ctx.usage);
        b.record_cached_usage(&ctx.config.model, &usage, ctx.config.prompt_cache);
    }
}

/// Whether the session's budget refuses the next model call.
fn budget_refuses(ctx: &RunCtx<'_>) -> bool {
    ctx.options
        .budget
        .as_ref()
        .is_some_and(|b| b.check_model_call().is_err())
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

/// The checks before round `done + 1`: the round cap, an abort, the between-rounds check (which
/// may compact the history and move `turn_start`) and the budget. `Err` ends the loop.
async fn before_round(
    ctx: &mut RunCtx<'_>,
    done: u32,
    max_rounds: u64,
    execution_id: &str,
    turn_start: &mut usize,
) -> Result<(), RunStop> {
    if max_rounds != 0 && u64::from(done) >= max_rounds {
        return Err(RunStop::MaxRounds);
    }
    if ctx.cancel.is_cancelled() {
        return Err(RunStop::Aborted);
    }
    if done > 0 && between_rounds(ctx.options).await {
        // The history was compacted: the old usage floor no longer describes it.
        ctx.cumulative_input_tokens = 0;
        *turn_start = locate_turn(ctx.store, execution_id).unwrap_or(0);
    }
    if budget_refuses(ctx) {
        return Err(RunStop::Budget);
    }
    Ok(())
}

/// Whether the loop goes on after a round's outcome, else how the run stops.
fn after_round(
    ctx: &RunCtx<'_>,
    outcome: RoundOutcome,
    unknown: &mut UnknownStreak,
) -> ControlFlow<RunStop> {
    let stop = match outcome {
        RoundOutcome::Continue { unknown_tools } => {
            if unknown.record(unknown_tools) {
                RunStop::Complete
            } else if ctx.cancel.is_cancelled() {
                RunStop::Aborted
            } else {
                return ControlFlow::Continue(());
            }
        }
        RoundOutcome::Done | RoundOutcome::Empty => RunStop::Complete,
        RoundOutcome::Stopped(s) => s,
        RoundOutcome::ContextBlocked => RunStop::ContextLimit,
        RoundOutcome::ProviderFailed => RunStop::Error,
        RoundOutcome::Aborted => RunStop::Aborted,
    };
    ControlFlow::Break(stop)
}

/// Runs rounds (after the `done` ones already run) until one ends the run, the cap is reached,
/// the budget refuses or the caller aborts.
pub(super) async fn run_rounds(
    ctx: &mut RunCtx<'_>,
    max_rounds: u64,
    execution_id: &str,
    mut turn_start: usize,
    done: u32,
) -> LoopEnd {
    let mut rounds: u32 = done;
    let mut unknown = UnknownStreak::default();
    let stop = loop {
        let checked = before_round(ctx, rounds, max_rounds, execution_id, &mut turn_start).await;
        if let Err(stop) = checked {
            break stop;
        }
        rounds += 1;
        let before = ctx.usage;
        let outcome = round::run_round(ctx, rounds).await;
        charge_budget(ctx, before);
        if let ControlFlow::Break(stop) = after_round(ctx, outcome, &mut unknown) {
            break stop;
        }
    };
    LoopEnd {
        rounds,
        stop,
        turn_start,
        unknown,
    }
}

/// Whether the loop ended after tool rounds without a final answer, in a way the forced summary
/// follows. It is never a hidden call after a round in which no tool ran (an empty answer, a
/// refusal, a cut output).
fn summary_due(ctx: &RunCtx<'_>, stop: RunStop) -> bool {
    let needs_summary = {
        let s = lock(ctx.store);
        !s.messages().last().is_some_and(|m| m.is_final_answer())
    };
    let tools_ran = !ctx.tool_outcomes.is_empty();
    let summary_stop = matches!(stop, RunStop::Complete | RunStop::MaxRounds);
    needs_summary && tools_ran && summary_stop
}

/// Makes the forced final summary call when it is due (unless the budget refuses it or the run
/// was aborted); returns the run's final stop.
pub(super) async fn conclude(ctx: &mut RunCtx<'_>, end: &LoopEnd) -> RunStop {
    let mut stop = end.stop;
    if summary_due(ctx, stop) {
        if budget_refuses(ctx) {
            stop = RunStop::Budget;
        } else if !ctx.cancel.is_cancelled() {
            let instruction = end.unknown.summary_instruction();
            let before = ctx.usage;
            summary::forced_summary(ctx, end.rounds, &instruction).await;
            charge_budget(ctx, before);
        }
    }
    if ctx.cancel.is_cancelled() {
        stop = RunStop::Aborted;
    }
    stop
}

/// The run's answer: the refusal text, else the last non-empty assistant text since
/// `turn_start`, else [`NO_RESPONSE_TEXT`].
pub(super) fn final_response(ctx: &mut RunCtx<'_>, stop: RunStop, turn_start: usize) -> String {
    match (stop, ctx.final_response.take()) {
        (RunStop::Refusal, Some(r)) => r,
        _ => {
            let s = lock(ctx.store);
            s.messages()[turn_start..]
                .iter()
                .rev()
                .find(|m| m.role == Role::Assistant && !m.content.is_empty())
                .map_or_else(|| NO_RESPONSE_TEXT.to_string(), |m| m.content.clone())
        }
    }
}
