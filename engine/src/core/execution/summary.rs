//! Forced final summary (round cap, empty answer or unknown-tool streak): one provider call without
//! tools when the loop ended without a final answer. The synthetic instruction only lives in the
//! outgoing request.

use crate::core::tool_choice::ToolChoice;
use std::sync::Arc;

use serde_json::json;

use super::provider_call::{call_provider, CallError};
use super::round::append_assistant;
use super::RunCtx;
use crate::core::agent::lock;
use crate::core::events::names;
use crate::core::message::Message;
use crate::core::provider::ChatRequest;

/// The synthetic instruction used when the round cap (or an empty reply) ends the loop.
pub const FORCED_SUMMARY_INSTRUCTION: &str = "Tool round limit reached. Provide your response based on the information gathered so far. If results are incomplete, let the user know what was covered and what remains — the user can request additional analysis in a follow-up message.";

/// Answer recorded when the forced call returns no text or fails.
pub const FORCED_SUMMARY_FALLBACK: &str =
    "Maximum rounds reached. Partial results available in conversation history.";

/// The instruction for the unknown-tool streak (sorted unique names).
pub(crate) fn unknown_tools_instruction(names: &[String]) -> String {
    let mut unique: Vec<&str> = names.iter().map(String::as_str).collect();
    unique.sort_unstable();
    unique.dedup();
    format!(
        "The model repeatedly requested unavailable tool(s): {}. Those tool calls were not executed because they are not registered tools. Respond to the user now with that reason and use the available tool results already in the conversation history.",
        unique.join(", ")
    )
}

/// Performs the forced summary call; never fails: a call that fails (or answers no text) records
/// [`FORCED_SUMMARY_FALLBACK`] as the answer; an aborted call appends nothing.
pub(crate) async fn forced_summary(ctx: &mut RunCtx<'_>, round: u32, instruction: &str) {
    let mut messages = lock(ctx.store).messages().to_vec();
    if let Some(sys) = &ctx.config.system_message {
        if !messages
            .iter()
            .any(|m| m.role == crate::core::message::Role::System && &m.content == sys)
        {
            messages.insert(0, Arc::new(Message::system(sys.clone())));
        }
    }
    messages.push(Arc::new(Message::user(instruction)));
    if ctx.emitter.enabled() {
        ctx.emitter.emit(names::PROVIDER_REQUEST, Some(round), |d| {
            d.insert("provider".into(), json!(ctx.config.provider.name()));
            d.insert("model".into(), json!(ctx.config.model));
            d.insert(
                "messages".into(),
                json!(messages.iter().map(|m| m.as_ref()).collect::<Vec<_>>()),
            );
            d.insert("tools".into(), json!([]));
            d.insert("forcedSummary".into(), json!(true));
        });
    }
    let request = ChatRequest {
        messages: &messages,
        tools: &[],
        model: &ctx.config.model,
        max_tokens: ctx.config.max_tokens,
        temperature: ctx.config.temperature,
        native_web_tools: ctx.config.native_web_tools,
        thinking_budget: None,
        tool_choice: &ToolChoice::Auto,
        output_schema: None,
        // The conversation so far plus one instruction: its prefix is the last round's.
        prompt_cache: ctx.config.prompt_cache,
        cache_key: Some(&ctx.config.conversation_id),
    };
    let text = match call_provider(ctx, request, round, false).await {
        Ok((resp, _)) => {
            super::add_usage(ctx, resp.usage);
            resp.content
        }
        Err(CallError::Failed { .. }) => String::new(),
        Err(CallError::Aborted) => return,
    };
    let mut meta = serde_json::Map::new();
    meta.insert("round".into(), json!(round));
    meta.insert("forcedSummary".into(), json!(true));
    let content = if text.trim().is_empty() {
        FORCED_SUMMARY_FALLBACK.to_string()
    } else {
        text
    };
    append_assistant(ctx, round, Message::assistant(content).with_metadata(meta));
}
