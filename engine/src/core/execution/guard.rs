//! Pre-send hard-capacity guard: blocks a call whose estimate exceeds 95 % of the context window
//! (strictly greater) and answers with a diagnostic that suggests `/compact`.

use serde_json::json;

use super::round::round_meta;
use super::RunCtx;
use crate::core::agent::lock;
use crate::core::message::Message;
use crate::core::tokens::ContextEstimate;
use crate::core::util::{format_thousands, round2};

/// Hard-block threshold in percent.
pub const HARD_BLOCK_PERCENT: u64 = 95;

/// Current estimate of the whole history with the run's usage floor.
pub(crate) fn estimate(ctx: &RunCtx<'_>) -> ContextEstimate {
    let floor = (ctx.cumulative_input_tokens > 0).then_some(ctx.cumulative_input_tokens as f64);
    lock(ctx.store).estimate(floor)
}

/// Returns the diagnostic assistant message when the call must be blocked.
pub(crate) fn check(ctx: &RunCtx<'_>, round: u32) -> Option<Message> {
    let est = estimate(ctx);
    let limit = ctx.context_window;
    let threshold = limit as f64 * HARD_BLOCK_PERCENT as f64 / 100.0;
    if (est.used_tokens as f64) <= threshold {
        return None;
    }
    let pct = if limit == 0 {
        100.0
    } else {
        est.used_tokens as f64 / limit as f64 * 100.0
    };
    let text = format!(
        "Context window is near capacity. Cannot process further in this round. Estimated {} / {} tokens ({}%) exceeds the hard-block threshold {}%. Compact the conversation (the \"compact\" command) and retry.",
        format_thousands(est.used_tokens),
        format_thousands(limit),
        pct.round() as u64,
        HARD_BLOCK_PERCENT
    );
    let mut meta = round_meta(round);
    meta.insert("contextOverflow".into(), json!(true));
    meta.insert("estimatedTokens".into(), json!(est.used_tokens));
    meta.insert("contextLimit".into(), json!(limit));
    meta.insert("thresholdTokens".into(), json!(threshold.floor() as u64));
    meta.insert("thresholdPercentage".into(), json!(HARD_BLOCK_PERCENT));
    meta.insert("serializedTokens".into(), json!(est.serialized_tokens));
    meta.insert(
        "providerTokens".into(),
        json!(est.provider_tokens.unwrap_or(0)),
    );
    meta.insert(
        "usageFloorTokens".into(),
        json!(est.usage_floor_tokens.unwrap_or(0)),
    );
    meta.insert("usedPercentage".into(), json!(round2(pct)));
    Some(Message::assistant(text).with_metadata(meta))
}
