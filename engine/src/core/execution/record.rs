//! Recording tool results in call order with the 80 % context budget: once the history passes
//! 80 % of the context window, the remaining results of the batch are replaced by the skip message.

use serde_json::{json, Value};

use super::batch::ToolRunResult;
use super::guard::estimate;
use super::RunCtx;
use crate::core::agent::lock;
use crate::core::events::names;
use crate::core::message::{Message, Part, ToolCall, TOOL_ERROR_KEY};

/// Content of a tool result skipped because the context is near capacity.
pub const CONTEXT_SKIP_MESSAGE: &str = "Error: Context window near capacity. Tool execution result skipped. Respond with available results and re-request skipped tools if needed.";

/// Fraction of the context window after which further results are skipped.
pub const TOOL_BUDGET_RATIO: f64 = 0.8;

/// `IToolResultsOutcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolResultsOutcome {
    /// The budget was crossed.
    pub context_overflowed: bool,
    /// Results recorded in full.
    pub added_count: usize,
    /// Results replaced by [`CONTEXT_SKIP_MESSAGE`].
    pub skipped_count: usize,
}

fn content_of(res: &ToolRunResult) -> String {
    if res.success {
        match &res.result {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
        }
    } else {
        format!("Error: {}", res.error.as_deref().unwrap_or("Unknown error"))
    }
}

/// Appends one tool message per call; returns the names of unknown tools requested.
pub(crate) fn record_results(
    ctx: &mut RunCtx<'_>,
    round: u32,
    calls: &[ToolCall],
    results: &[ToolRunResult],
) -> Vec<String> {
    let outcome = record_with_outcome(ctx, round, calls, results);
    ctx.tool_outcomes.push(outcome);
    calls
        .iter()
        .zip(results)
        .filter(|(_, r)| r.is_unknown_tool())
        .map(|(c, _)| c.function.name.clone())
        .collect()
}

/// The id of a round's tool batch in replay events (`thinking_<conversation>_round<n>`), made
/// only when events are recorded (empty otherwise).
pub(crate) fn batch_id(ctx: &RunCtx<'_>, round: u32) -> String {
    if !ctx.emitter.enabled() {
        return String::new();
    }
    format!("thinking_{}_round{}", ctx.config.conversation_id, round)
}

/// Appends the results and reports the budget outcome.
pub(crate) fn record_with_outcome(
    ctx: &mut RunCtx<'_>,
    round: u32,
    calls: &[ToolCall],
    results: &[ToolRunResult],
) -> ToolResultsOutcome {
    let mut outcome = ToolResultsOutcome::default();
    let batch_id = batch_id(ctx, round);
    let budget = ctx.context_window as f64 * TOOL_BUDGET_RATIO;
    for (index, (call, res)) in calls.iter().zip(results).enumerate() {
        let name = call.function.name.clone();
        let mut meta = serde_json::Map::new();
        meta.insert("round".into(), json!(round));
        let content = if outcome.context_overflowed {
            meta.insert("success".into(), json!(false));
            meta.insert("error".into(), json!("context_overflow"));
            meta.insert("toolName".into(), json!(name));
            meta.insert(TOOL_ERROR_KEY.into(), json!(true));
            outcome.skipped_count += 1;
            CONTEXT_SKIP_MESSAGE.to_string()
        } else {
            meta.insert("success".into(), json!(res.success));
            if let (false, Some(e)) = (res.success, &res.error) {
                meta.insert("error".into(), json!(e));
            }
            meta.insert("toolName".into(), json!(name));
            for (k, v) in &res.metadata {
                meta.insert(k.clone(), v.clone());
            }
            if res.is_failed() {
                meta.insert(TOOL_ERROR_KEY.into(), json!(true));
            }
            outcome.added_count += 1;
            content_of(res)
        };
        let mut message = Message::tool(content, call.id.clone(), name).with_metadata(meta);
        if !outcome.context_overflowed && !res.parts.is_empty() && !res.is_failed() {
            // The text, then the images the tool attached (Read on an image file).
            let mut parts = Vec::with_capacity(1 + res.parts.len());
            parts.push(Part::Text {
                text: message.content.clone(),
            });
            parts.extend(res.parts.iter().cloned());
            message.parts = Some(parts);
        }
        let (msg, idx) = {
            let mut s = lock(ctx.store);
            let idx = s.append(message);
            (s.messages()[idx].clone(), idx)
        };
        if ctx.emitter.enabled() {
            ctx.emitter
                .emit(names::TOOL_MESSAGE_COMMITTED, Some(round), |d| {
                    d.insert("batchId".into(), json!(batch_id));
                    d.insert("index".into(), json!(index));
                    d.insert("message".into(), json!(msg.as_ref()));
                });
            ctx.emitter.emit(names::HISTORY_MUTATION, Some(round), |d| {
                d.insert("batchId".into(), json!(batch_id));
                d.insert("mutation".into(), json!("append_message"));
                d.insert("index".into(), json!(idx));
                d.insert("message".into(), json!(msg.as_ref()));
            });
        }
        if !outcome.context_overflowed && estimate(ctx).used_tokens as f64 > budget {
            outcome.context_overflowed = true;
        }
    }
    outcome
}
