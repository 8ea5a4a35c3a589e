//! One round, a provider failure ending the loop with `Request failed: …`: guard → provider call →
//! commit → tools → results. The round separator is streamed lazily by the call's sink, only
//! between two rounds' text. A refusal or a cut output (`max_tokens`) ends the run; a tool call cut
//! by `max_tokens` is not run: its result tells the model the output was cut.

use std::sync::Arc;

use serde_json::{json, Map};

use super::provider_call::{call_provider, CallError};
use super::{add_usage, batch, guard, record, RoundOutcome, RunCtx, RunStop};
use crate::core::agent::lock;
use crate::core::events::names;
use crate::core::message::{Message, MessageState};
use crate::core::provider::{ChatRequest, StopReason};

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

/// Runs round `round` (1-based).
pub(crate) async fn run_round(ctx: &mut RunCtx<'_>, round: u32) -> RoundOutcome {
    if let Some(diagnostic) = guard::check(ctx, round) {
        append_assistant(ctx, round, diagnostic);
        return RoundOutcome::ContextBlocked;
    }
    let messages = {
        let mut s = lock(ctx.store);
        s.begin_assistant();
        s.snapshot()
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
    };
    let called = call_provider(ctx, request, round, true).await;
    // The snapshot goes before the history changes (else the change copies it).
    drop(messages);
    let (mut response, streamed) = match called {
        Ok(r) => r,
        Err(CallError::Aborted) => {
            let committed = lock(ctx.store)
                .commit_assistant(MessageState::Interrupted, Some(round_meta(round)));
            if let Some((msg, idx)) = committed {
                emit_committed(ctx, round, &msg, idx);
            }
            return RoundOutcome::Aborted;
        }
        Err(CallError::Failed { message, error }) => {
            lock(ctx.store).discard_pending();
            let mut meta = round_meta(round);
            meta.insert("providerError".into(), json!(true));
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
            return RoundOutcome::ProviderFailed;
        }
    };
    ctx.streamed_any |= streamed;
    let aborted = ctx.cancel.is_cancelled() || response.stop_reason == StopReason::Aborted;
    if ctx.emitter.enabled() {
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
    // How the model's stop ends the run (refusal, cut output) when no tool runs next.
    let end = match response.stop_reason {
        StopReason::Refusal => {
            ctx.final_response = Some(response.content.clone());
            RoundOutcome::Stopped(RunStop::Refusal)
        }
        StopReason::MaxTokens => RoundOutcome::Stopped(RunStop::MaxTokens),
        _ => RoundOutcome::Done,
    };
    add_usage(ctx, response.usage);
    let blank = response.tool_calls.is_empty()
        && response.content.trim().is_empty()
        && response.native.is_none(); // server-tool blocks alone are kept
    if !aborted && blank {
        lock(ctx.store).discard_pending();
        return match end {
            RoundOutcome::Done => RoundOutcome::Empty,
            stopped => stopped,
        };
    }
    let mut meta = round_meta(round);
    if let Some(u) = response.usage {
        if u.input_tokens > 0 {
            ctx.cumulative_input_tokens = u.input_tokens;
        }
        meta.insert("inputTokens".into(), json!(u.input_tokens));
        meta.insert("outputTokens".into(), json!(u.output_tokens));
        meta.insert(
            "usage".into(),
            json!({"totalTokens": u.total(), "inputTokens": u.input_tokens, "outputTokens": u.output_tokens}),
        );
    }
    let (msg, idx) = {
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
        match s.commit_assistant(state, Some(meta)) {
            Some(c) => c,
            None => return RoundOutcome::Done,
        }
    };
    emit_committed(ctx, round, &msg, idx);
    if msg.tool_calls.is_empty() {
        return if aborted { RoundOutcome::Aborted } else { end };
    }
    if response.stop_reason == StopReason::MaxTokens && !aborted {
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

pub(crate) fn round_meta(round: u32) -> Map<String, serde_json::Value> {
    let mut m = Map::new();
    m.insert("round".into(), json!(round));
    m
}
