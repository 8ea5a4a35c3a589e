//! One round, a provider failure ending the loop with `Request failed: …`: guard → provider call →
//! commit → tools → results. The round separator is streamed lazily by the call's sink, only
//! between two rounds' text. A refusal or a cut output (`max_tokens`) ends the run; a tool call cut
//! by `max_tokens` is not run: its result tells the model the output was cut.

use std::sync::Arc;

use serde_json::{json, Map};

use super::provider_call::{call_provider, CallError};
use super::{add_usage, batch, guard, record, RoundOutcome, RunCtx, RunStop};
use crate::core::agent::lock;
use crate::core::errors::RobotaError;
use crate::core::events::names;
use crate::core::message::{Message, MessageState, PROVIDER_ERROR_KEY};
use crate::core::provider::{ChatRequest, ChatResponse, StopReason};
use crate::core::tokens::TokenUsage;

/// Appends an assistant message outside the streaming buffer and emits its events.
pub(crate) fn append_assistant(ctx: &RunCtx<'_>, round: u32, message: Message) {
    let (msg, idx) = {
        let mut s = lock(ctx.store);
        let idx = s.append(message);
        (s.messages()[idx].clone(), idx)
    };
    emit_committed(ctx, round, &msg, idx);
}

pub(crate) fn emit_committed(ctx: &RunCtx<'_>, round: u32, msg: &Arc<Message>, idx: usize) {
    if !ctx.emitter.enabled() {
        return;
    }
    ctx.emitter
        .emit(names::ASSISTANT_MESSAGE_COMMITTED, Some(round), |d| {
            d.insert("message".into(), json!(msg.as_ref()));
        });
    ctx.emitter.emit(names::HISTORY_MUTATION, Some(round), |d| {
        d.insert("mutation".into(), json!("append_message"));
        d.insert("index".into(), json!(idx));
        d.insert("message".into(), json!(msg.as_ref()));
    });
}

/// Opens the streaming buffer, emits the request event and calls the provider with the history
/// as it stands (the call's text streams into the buffer).
async fn send_round(ctx: &RunCtx<'_>, round: u32) -> Result<(ChatResponse, bool), CallError> {
    let messages = {
        let mut s = lock(ctx.store);
        s.begin_assistant();
        s.model_snapshot()
    };
    let tools = &ctx.tool_schemas;
    let model = ctx.config.model.as_str();
    if ctx.emitter.enabled() {
        ctx.emitter.emit(names::PROVIDER_REQUEST, Some(round), |d| {
            d.insert("provider".into(), json!(ctx.config.provider.name()));
            d.insert("model".into(), json!(model));
            d.insert(
                "messages".into(),
                json!(messages.iter().map(|m| m.as_ref()).collect::<Vec<_>>()),
            );
            d.insert(
                "tools".into(),
                json!(tools.iter().map(|t| t.as_ref()).collect::<Vec<_>>()),
            );
        });
    }
    let request = ChatRequest {
        messages: &messages,
        tools,
        model,
        max_tokens: ctx.config.max_tokens,
        temperature: ctx.config.temperature,
        native_web_tools: ctx.config.native_web_tools,
        thinking_budget: ctx.config.thinking_budget,
        tool_choice: ctx
            .options
            .tool_choice
            .as_ref()
            .unwrap_or(&ctx.config.tool_choice)
            .for_round(round),
        output_schema: ctx.native_output_schema.as_deref(),
        prompt_cache: ctx.config.prompt_cache,
        cache_key: Some(&ctx.config.conversation_id),
    };
    let called = call_provider(ctx, request, round, true).await;
    // The snapshot goes before the history changes (else the change copies it).
    drop(messages);
    called
}

/// An aborted call: commits what streamed so far as an interrupted message.
fn commit_interrupted(ctx: &RunCtx<'_>, round: u32) -> RoundOutcome {
    let committed =
        lock(ctx.store).commit_assistant(MessageState::Interrupted, Some(round_meta(round)));
    if let Some((msg, idx)) = committed {
        emit_committed(ctx, round, &msg, idx);
    }
    RoundOutcome::Aborted
}

/// A failed call: drops the partial text, appends `Request failed: …` and keeps the error for
/// the run's result (a context overflow counts as the guard blocking).
fn record_failure(
    ctx: &mut RunCtx<'_>,
    round: u32,
    message: String,
    error: RobotaError,
) -> RoundOutcome {
    lock(ctx.store).discard_pending();
    let mut meta = round_meta(round);
    meta.insert(PROVIDER_ERROR_KEY.into(), json!(true));
    append_assistant(
        ctx,
        round,
        Message::assistant(format!("Request failed: {message}")).with_metadata(meta),
    );
    ctx.provider_error = Some(message);
    ctx.provider_error_recoverable = error.is_recoverable();
    let overflow = error.is_context_overflow();
    ctx.provider_error_class = Some(error);
    if overflow {
        return RoundOutcome::ContextBlocked;
    }
    RoundOutcome::ProviderFailed
}

/// Emits the raw and normalized response events.
fn emit_response(ctx: &RunCtx<'_>, round: u32, response: &ChatResponse) {
    if !ctx.emitter.enabled() {
        return;
    }
    let snapshot = json!({
        "role": "assistant",
        "content": response.content,
        "toolCalls": response.tool_calls,
        "stopReason": response.stop_reason,
    });
    ctx.emitter
        .emit(names::PROVIDER_RESPONSE_RAW, Some(round), |d| {
            d.insert("response".into(), snapshot.clone());
            d.insert("responseKind".into(), json!("provider-normalized-message"));
        });
    ctx.emitter
        .emit(names::PROVIDER_RESPONSE_NORMALIZED, Some(round), |d| {
            d.insert("response".into(), snapshot);
            d.insert("toolCallsCount".into(), json!(response.tool_calls.len()));
        });
}

/// How the model's stop ends the run (refusal, cut output) when no tool runs next; a refusal's
/// text becomes the run's answer.
fn stop_outcome(ctx: &mut RunCtx<'_>, response: &ChatResponse) -> RoundOutcome {
    match response.stop_reason {
        StopReason::Refusal => {
            ctx.final_response = Some(response.content.clone());
            RoundOutcome::Stopped(RunStop::Refusal)
        }
        StopReason::MaxTokens => RoundOutcome::Stopped(RunStop::MaxTokens),
        _ => RoundOutcome::Done,
    }
}

/// A response with nothing to keep: no tool call, no text, no native content (server-tool
/// blocks alone are kept).
fn is_blank(response: &ChatResponse) -> bool {
    response.tool_calls.is_empty()
        && response.content.trim().is_empty()
        && response.native.is_none()
}

/// The committed message's metadata (round and usage); a reported input count becomes the
/// guard's floor for the next round.
fn response_meta(
    ctx: &mut RunCtx<'_>,
    round: u32,
    usage: Option<TokenUsage>,
) -> Map<String, serde_json::Value> {
    let mut meta = round_meta(round);
    if let Some(u) = usage {
        if u.prompt_tokens() > 0 {
            ctx.cumulative_input_tokens = u.prompt_tokens();
        }
        // The whole prompt, cached part included: what the context estimate measures.
        meta.insert("inputTokens".into(), json!(u.prompt_tokens()));
        meta.insert("outputTokens".into(), json!(u.output_tokens));
        meta.insert(
            "usage".into(),
            json!({"totalTokens": u.total(), "inputTokens": u.prompt_tokens(), "outputTokens": u.output_tokens}),
        );
    }
    meta
}

/// Commits the response as the round's assistant message (interrupted when `aborted`, which
/// also drops its native content); `None` when there was nothing to commit.
fn commit_response(
    ctx: &RunCtx<'_>,
    response: &mut ChatResponse,
    streamed: bool,
    aborted: bool,
    meta: Map<String, serde_json::Value>,
) -> Option<(Arc<Message>, usize)> {
    let mut s = lock(ctx.store);
    if !streamed {
        s.append_streaming(&response.content);
    }
    for call in &response.tool_calls {
        s.append_tool_call(call.clone());
    }
    if let Some(native) = response.native.take().filter(|_| !aborted) {
        s.set_pending_native(native);
    }
    let state = if aborted {
        MessageState::Interrupted
    } else {
        MessageState::Complete
    };
    s.commit_assistant(state, Some(meta))
}

/// Runs the committed message's tool calls and records their results. Calls cut by
/// `max_tokens` are not run: each result says the output was cut, and the run ends with `end`.
async fn run_tools(
    ctx: &mut RunCtx<'_>,
    round: u32,
    msg: &Message,
    stop_reason: StopReason,
    aborted: bool,
    end: RoundOutcome,
) -> RoundOutcome {
    if stop_reason == StopReason::MaxTokens && !aborted {
        let results: Vec<_> = msg
            .tool_calls
            .iter()
            .map(batch::ToolRunResult::cut_at_max_tokens)
            .collect();
        record::record_results(ctx, round, &msg.tool_calls, &results);
        return end;
    }
    let results = batch::run_tool_calls(ctx, round, &msg.tool_calls).await;
    let unknown = record::record_results(ctx, round, &msg.tool_calls, &results);
    if aborted {
        return RoundOutcome::Aborted;
    }
    RoundOutcome::Continue {
        unknown_tools: unknown,
    }
}

/// Runs round `round` (1-based).
pub(crate) async fn run_round(ctx: &mut RunCtx<'_>, round: u32) -> RoundOutcome {
    if let Some(diagnostic) = guard::check(ctx, round) {
        append_assistant(ctx, round, diagnostic);
        return RoundOutcome::ContextBlocked;
    }
    let (mut response, streamed) = match send_round(ctx, round).await {
        Ok(r) => r,
        Err(CallError::Aborted) => return commit_interrupted(ctx, round),
        Err(CallError::Failed { message, error }) => {
            return record_failure(ctx, round, message, error)
        }
    };
    ctx.streamed_any |= streamed;
    let aborted = ctx.cancel.is_cancelled() || response.stop_reason == StopReason::Aborted;
    emit_response(ctx, round, &response);
    let end = stop_outcome(ctx, &response);
    add_usage(ctx, response.usage);
    if !aborted && is_blank(&response) {
        lock(ctx.store).discard_pending();
        return match end {
            RoundOutcome::Done => RoundOutcome::Empty,
            stopped => stopped,
        };
    }
    let meta = response_meta(ctx, round, response.usage);
    let Some((msg, idx)) = commit_response(ctx, &mut response, streamed, aborted, meta) else {
        return RoundOutcome::Done;
    };
    emit_committed(ctx, round, &msg, idx);
    if msg.tool_calls.is_empty() {
        return if aborted { RoundOutcome::Aborted } else { end };
    }
    run_tools(ctx, round, &msg, response.stop_reason, aborted, end).await
}

pub(crate) fn round_meta(round: u32) -> Map<String, serde_json::Value> {
    let mut m = Map::new();
    m.insert("round".into(), json!(round));
    m
}
