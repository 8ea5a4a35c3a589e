//! One model call on a host provider: the request document to the host, its pushed events into
//! the stream sink, retries of a recoverable failure that delivered nothing (a new call id and
//! `attempt` + 1), the per-event timeout, and the cancel document on abort, close or drop.

use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::calls::{CallSpec, Delivered};
use super::request::{call_document, cancel_document, CallContext};
use super::{BoundHostProvider, HostProvider};
use crate::core::errors::RobotaError;
use crate::core::provider::{ChatRequest, ChatResponse, Provider, StopReason, StreamSink};
use crate::core::tokens::TokenUsage;
use crate::sdk::host::cancelled::CancelReason;

/// The longest wait before a retry (a longer `retry_after_ms` fails the call instead).
const MAX_RETRY_DELAY: Duration = Duration::from_secs(60);
/// The wait before the first retry when the host names none; doubled for each further one.
const RETRY_BASE_DELAY: Duration = Duration::from_millis(200);

/// How one attempt ended.
enum Outcome {
    Done(ChatResponse),
    Aborted(ChatResponse),
    Failed {
        error: RobotaError,
        retry_after: Option<Duration>,
        delivered: bool,
        /// No event came for `timeout_ms` (the host is owed the cancel document).
        timed_out: bool,
    },
}

/// An open call owed a cancel document unless it ended: sent on [`Self::cancel`], or with
/// `"session_closed"` when the call is dropped unfinished (the runtime went away).
struct OpenGuard<'a> {
    host: &'a HostProvider,
    id: u64,
    armed: bool,
}

impl OpenGuard<'_> {
    fn cancel(mut self, reason: &str) {
        self.armed = false;
        cancel_call(self.host, self.id, reason);
    }

    fn ended(mut self) {
        self.armed = false;
        self.host.calls.close(self.id);
    }
}

impl Drop for OpenGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            cancel_call(self.host, self.id, CancelReason::SessionClosed.as_str());
        }
    }
}

/// Ends call `id` and, when it was still open, tells the host.
fn cancel_call(host: &HostProvider, id: u64, reason: &str) {
    if host.calls.close(id) {
        host.handler.call(id, &cancel_document(reason));
    }
}

impl BoundHostProvider {
    /// The wire reason of a cancellation the caller asked for.
    fn cancel_reason(&self) -> &'static str {
        match self.reason.as_ref().map(|f| f()) {
            Some(CancelReason::SessionClosed) => "session_closed",
            Some(CancelReason::Timeout) => "timeout",
            _ => "aborted",
        }
    }

    /// One attempt: the call document to the host, then its events until the end.
    async fn attempt(
        &self,
        request: &ChatRequest<'_>,
        attempt: u32,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Outcome {
        let host = &*self.host;
        let ctx = CallContext {
            provider: &host.name,
            session_id: self.session_id.as_deref(),
            attempt,
        };
        let document = match call_document(&ctx, request, &host.caps) {
            Ok(d) => d,
            Err(error) => {
                return Outcome::Failed {
                    error,
                    retry_after: None,
                    delivered: false,
                    timed_out: false,
                }
            }
        };
        let (id, rx) = host.calls.open(CallSpec {
            provider: host.name.clone(),
            model: request.model.to_string(),
            offered: request.tools.iter().map(|t| t.name.clone()).collect(),
        });
        let guard = OpenGuard {
            host,
            id,
            armed: true,
        };
        host.handler.call(id, &document);
        let outcome = receive(host, rx, sink, cancel).await;
        match &outcome {
            Outcome::Aborted(_) => guard.cancel(self.cancel_reason()),
            Outcome::Failed {
                timed_out: true, ..
            } => guard.cancel("timeout"),
            Outcome::Failed { .. } => guard.ended(),
            Outcome::Done(_) => guard.ended(),
        }
        outcome
    }
}

/// Reads the events of one call into `sink` and the response until its end, a cancellation
/// or `timeout_ms` without an event.
async fn receive(
    host: &HostProvider,
    mut rx: mpsc::UnboundedReceiver<Delivered>,
    sink: &mut dyn StreamSink,
    cancel: &CancellationToken,
) -> Outcome {
    let limit = Duration::from_millis(host.caps.timeout_ms);
    let sleep = tokio::time::sleep(limit);
    tokio::pin!(sleep);
    let mut response = ChatResponse::default();
    let mut delivered = false;
    loop {
        let next = tokio::select! {
            biased;
            _ = cancel.cancelled() => {
                response.tool_calls.clear();
                response.stop_reason = StopReason::Aborted;
                return Outcome::Aborted(response);
            }
            d = rx.recv() => d,
            _ = &mut sleep => {
                return Outcome::Failed {
                    error: RobotaError::provider(
                        host.name.to_string(),
                        format!("host provider \"{}\": no event for {} ms", host.name, host.caps.timeout_ms),
                    ),
                    retry_after: None,
                    delivered,
                    timed_out: true,
                };
            }
        };
        // The table keeps the sender while the call is open and sends the end before it
        // drops it: a closed channel is a call ended from the library's side.
        let Some(next) = next else {
            response.stop_reason = StopReason::Aborted;
            return Outcome::Aborted(response);
        };
        sleep.as_mut().reset(Instant::now() + limit);
        sink.on_activity();
        match next {
            Delivered::Text(t) => {
                delivered = true;
                response.content.push_str(&t);
                sink.on_text(&t);
            }
            Delivered::Thinking(t) => {
                delivered = true;
                sink.on_thinking(&t);
            }
            Delivered::ToolCall(c) => {
                delivered = true;
                response.tool_calls.push(c);
            }
            Delivered::Usage { input, output } => {
                response.usage = Some(TokenUsage {
                    input_tokens: input,
                    output_tokens: output,
                    ..TokenUsage::default()
                });
            }
            Delivered::Done(reason) => {
                response.stop_reason = reason;
                return Outcome::Done(response);
            }
            Delivered::Failed { error, retry_after } => {
                return Outcome::Failed {
                    error,
                    retry_after,
                    delivered,
                    timed_out: false,
                }
            }
        }
    }
}

#[async_trait]
impl Provider for BoundHostProvider {
    fn name(&self) -> &str {
        &self.host.name
    }

    async fn context_window(&self, _model: &str) -> Option<u64> {
        self.host.caps.context_window
    }

    async fn chat(
        &self,
        request: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, RobotaError> {
        let caps = &self.host.caps;
        if !caps.models.is_empty() && !caps.models.iter().any(|m| m == request.model) {
            return Err(RobotaError::ModelNotAvailable {
                model: request.model.to_string(),
                provider: self.host.name.to_string(),
            });
        }
        let mut attempt = 1u32;
        loop {
            if cancel.is_cancelled() {
                return Ok(ChatResponse {
                    stop_reason: StopReason::Aborted,
                    ..ChatResponse::default()
                });
            }
            let (error, retry_after) = match self.attempt(&request, attempt, sink, &cancel).await {
                Outcome::Done(r) | Outcome::Aborted(r) => return Ok(r),
                Outcome::Failed {
                    error,
                    retry_after,
                    delivered,
                    ..
                } => {
                    if delivered || !error.is_recoverable() || attempt > caps.max_retries {
                        return Err(error);
                    }
                    (error, retry_after)
                }
            };
            let delay = retry_after.unwrap_or(RETRY_BASE_DELAY * (1 << (attempt - 1).min(8)));
            if delay > MAX_RETRY_DELAY {
                return Err(error);
            }
            crate::log_at!(
                crate::core::log::DEBUG,
                "robota::providers",
                "host provider \"{}\": attempt {attempt} failed ({}), retry in {} ms",
                self.host.name,
                error.code(),
                delay.as_millis()
            );
            tokio::select! {
                _ = cancel.cancelled() => {}
                _ = tokio::time::sleep(delay) => {}
            }
            attempt += 1;
        }
    }
}
