//! One provider call: the wrapped stream sink (pending buffer, replay deltas, run callbacks,
//! the round separator) and the idle timeout that resets on every delta.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{Emitter, RunCtx};
use crate::core::agent::lock;
use crate::core::errors::RobotaError;
use crate::core::event_time::{lend, WallAnchor};
use crate::core::events::{names, ServerToolFn, TextDeltaFn};
use crate::core::provider::{ChatRequest, ChatResponse, RawPayloadEvent, StreamSink};
use crate::core::store::ConversationStore;
use serde_json::{json, Value};

/// Why a provider call failed.
pub(crate) enum CallError {
    /// The run was aborted before the provider returned anything usable.
    Aborted,
    /// Any other failure (message shown as `Request failed: <message>`); `error` is the
    /// taxonomy error behind it (code, category, recoverable).
    Failed {
        /// The error text.
        message: String,
        /// The failure.
        error: RobotaError,
    },
}

/// Streamed to the host between two rounds' text (never recorded in history).
pub(crate) const ROUND_SEPARATOR: &str = "\n\n";

struct RoundSink<'a> {
    store: Option<&'a Mutex<ConversationStore>>,
    on_text: Option<&'a TextDeltaFn>,
    on_thinking: Option<&'a TextDeltaFn>,
    on_server_tool: Option<&'a ServerToolFn>,
    emitter: &'a Emitter,
    round: u32,
    seq: u64,
    raw_seq: u64,
    /// When the call started (the idle timeout counts from it), and the wall clock then: a
    /// delta's arrival time, read once, is also the time of the events it makes.
    anchor: WallAnchor,
    last_activity: &'a AtomicU64,
    streamed: bool,
    /// An earlier call of the run streamed text: [`ROUND_SEPARATOR`] goes to the host before
    /// this call's first text delta.
    separator_pending: bool,
}

impl RoundSink<'_> {
    /// Records activity now (for the idle timeout) and returns the wall-clock time of now
    /// (milliseconds since the epoch).
    fn touch(&self) -> i64 {
        let since = Instant::now().saturating_duration_since(self.anchor.instant());
        let ns = u64::try_from(since.as_nanos()).unwrap_or(u64::MAX);
        self.last_activity.store(ns, Ordering::Relaxed);
        self.anchor.millis_after(since)
    }
}

impl StreamSink for RoundSink<'_> {
    fn on_text(&mut self, delta: &str) {
        let at = self.touch();
        if delta.is_empty() {
            return;
        }
        self.streamed = true;
        if self.emitter.enabled() {
            let seq = self.seq;
            self.emitter
                .emit(names::PROVIDER_STREAM_RAW_DELTA, Some(self.round), |d| {
                    d.insert("sequence".into(), json!(seq));
                    d.insert("delta".into(), json!(delta));
                });
        }
        self.seq += 1;
        if let Some(store) = self.store {
            lock(store).append_streaming(delta);
        }
        if let Some(cb) = self.on_text {
            let separator = std::mem::take(&mut self.separator_pending);
            lend(at, || {
                if separator {
                    cb(ROUND_SEPARATOR);
                }
                cb(delta);
            });
        }
    }

    fn on_thinking(&mut self, delta: &str) {
        let at = self.touch();
        if let Some(cb) = self.on_thinking {
            lend(at, || cb(delta));
        }
    }

    fn wants_raw_payloads(&self) -> bool {
        self.emitter.enabled()
    }

    fn on_server_tool(&mut self, name: &str, input: &Value) {
        let at = self.touch();
        if let Some(cb) = self.on_server_tool {
            lend(at, || cb(name, input));
        }
    }

    fn on_raw_payload(&mut self, event: RawPayloadEvent) {
        let _ = self.touch();
        let seq = event.sequence.unwrap_or(self.raw_seq);
        self.raw_seq += 1;
        self.emitter
            .emit(names::PROVIDER_NATIVE_RAW_PAYLOAD, Some(self.round), |d| {
                if let Ok(Value::Object(m)) = serde_json::to_value(&event) {
                    d.extend(m);
                }
                d.insert("sequence".into(), json!(seq));
            });
    }

    fn on_activity(&mut self) {
        let _ = self.touch();
    }
}

/// Calls the provider for `request`, streaming into the pending buffer when `record` is set.
/// Returns the response and whether any text was streamed.
pub(crate) async fn call_provider(
    ctx: &RunCtx<'_>,
    request: ChatRequest<'_>,
    round: u32,
    record: bool,
) -> Result<(ChatResponse, bool), CallError> {
    let last_activity = AtomicU64::new(0);
    let mut sink = RoundSink {
        store: if record { Some(ctx.store) } else { None },
        on_text: ctx.options.on_text_delta.as_ref(),
        on_thinking: ctx.options.on_thinking_delta.as_ref(),
        on_server_tool: ctx.options.on_server_tool.as_ref(),
        emitter: &ctx.emitter,
        round,
        seq: 0,
        raw_seq: 0,
        anchor: WallAnchor::now(),
        last_activity: &last_activity,
        streamed: false,
        separator_pending: ctx.streamed_any,
    };
    let started = sink.anchor.instant();
    let provider_cancel = ctx.cancel.child_token();
    let timeout = ctx
        .config
        .timeout_ms
        .filter(|t| *t > 0)
        .map(Duration::from_millis);
    let result = {
        let fut = ctx
            .config
            .provider
            .chat(request, &mut sink, provider_cancel.clone());
        tokio::pin!(fut);
        match timeout {
            None => fut.await,
            Some(limit) => loop {
                let idle_since = Duration::from_nanos(last_activity.load(Ordering::Relaxed));
                let deadline = started + idle_since + limit;
                // The call first: a timer is registered (and the runtime's driver woken to
                // take it into account) only when the call does not finish at once, as a
                // scripted or replayed call does.
                tokio::select! {
                    biased;
                    r = &mut fut => break r,
                    _ = tokio::time::sleep_until(deadline.into()) => {
                        let now_idle = Duration::from_nanos(last_activity.load(Ordering::Relaxed));
                        if now_idle == idle_since {
                            provider_cancel.cancel();
                            break Err(RobotaError::provider(
                                ctx.config.provider.name(),
                                format!("Provider call idle timeout after {}ms", limit.as_millis()),
                            ));
                        }
                    }
                }
            },
        }
    };
    let streamed = sink.streamed;
    match result {
        Ok(resp) => Ok((resp, streamed)),
        Err(_) if ctx.cancel.is_cancelled() => Err(CallError::Aborted),
        Err(e @ RobotaError::Provider { .. }) if matches!(&e, RobotaError::Provider { message, .. } if message.starts_with("Provider call idle timeout")) =>
        {
            let message = match &e {
                RobotaError::Provider { message, .. } => message.clone(),
                _ => e.to_string(),
            };
            Err(CallError::Failed { message, error: e })
        }
        Err(e) => Err(CallError::Failed {
            message: e.to_string(),
            error: e,
        }),
    }
}
