//! How an HTTP call ends, the same for every provider: the finish rule (complete only once the
//! vendor gave its stop reason, see [`super::StreamDecoder`]), a non-streamed answer used as the
//! complete response, cut streams and bodies that cannot be used, each named with the base URL.

use serde_json::Value;

use super::{HttpTransport, StreamDecoder, StreamOutcome, EMPTY_STREAM};
use crate::core::errors::RobotaError;
use crate::core::provider::{RawPayloadEvent, RawPayloadKind, StopReason, StreamSink};
use crate::providers::errors::{display_url, redact, strip_url, who};
use crate::providers::sse::SseEvent;

impl HttpTransport {
    /// A non-streamed answer used as the complete response (the finish rule still applies).
    pub(super) fn whole(
        &self,
        text: &str,
        decoder: &mut dyn StreamDecoder,
        sink: &mut dyn StreamSink,
        api_surface: &'static str,
        key: Option<&str>,
    ) -> Result<StreamOutcome, RobotaError> {
        let body: Value = serde_json::from_str(text).map_err(|e| {
            self.bad_body(
                &format!("answered `application/json` that is not JSON ({e})"),
                text,
                key,
            )
        })?;
        if sink.wants_raw_payloads() {
            sink.on_raw_payload(RawPayloadEvent {
                provider: self.cfg.name.clone(),
                api_surface: Some(api_surface.to_string()),
                payload_kind: RawPayloadKind::Response,
                sequence: None,
                payload: body.clone(),
            });
        }
        sink.on_activity();
        for (event, data) in decoder.whole_response(body) {
            decoder.event(
                SseEvent {
                    event,
                    data: &data,
                    id: "",
                },
                sink,
            )?;
        }
        self.ended(decoder, 1, false, None, "application/json", key)
    }

    /// The vendor gave its stop reason: the answer is complete unless a tool call's arguments
    /// never closed (JSON cut short) without a `max_tokens` stop, which no tool can run.
    pub(super) fn finished(
        &self,
        decoder: &dyn StreamDecoder,
        key: Option<&str>,
    ) -> Result<StreamOutcome, RobotaError> {
        let acc = decoder.accumulated();
        // At `max_tokens` a cut call is expected: the engine reports it to the model.
        if acc.stop == Some(StopReason::MaxTokens) {
            return Ok(StreamOutcome::Complete);
        }
        for call in &acc.calls {
            let args = call.arguments.trim();
            if args.is_empty() {
                continue;
            }
            if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(args) {
                if e.is_eof() {
                    return Err(self.bad_body(
                        &format!(
                            "sent tool call `{}` ({}) whose arguments never close",
                            call.name, call.id
                        ),
                        args,
                        key,
                    ));
                }
            }
        }
        Ok(StreamOutcome::Complete)
    }

    /// A body the provider cannot use, named with the base URL and the start of the body.
    pub(super) fn bad_body(&self, problem: &str, body: &str, key: Option<&str>) -> RobotaError {
        let head: String = body.trim().chars().take(120).collect();
        let message = format!(
            "{} at {} {problem}: {}",
            who(&self.cfg),
            display_url(&self.cfg.base_url),
            if head.is_empty() {
                "(empty body)".to_string()
            } else {
                format!("`{head}`")
            }
        );
        RobotaError::Provider {
            provider: self.cfg.name.clone(),
            message: redact(&message, key),
            status: None,
            recoverable: false,
        }
    }

    /// The answer ended (its end marker, the end of the body or a read `error`): complete by
    /// [`Self::finished`] once the decoder holds the vendor's stop reason, else cut (an error
    /// that says how, from `events` read so far, `mid_event` when the body stopped inside one).
    pub(super) fn ended(
        &self,
        decoder: &dyn StreamDecoder,
        events: usize,
        mid_event: bool,
        error: Option<&reqwest::Error>,
        content_type: &str,
        key: Option<&str>,
    ) -> Result<StreamOutcome, RobotaError> {
        if decoder.complete() {
            return self.finished(decoder, key);
        }
        let mut message = if events == 0 && !mid_event {
            format!(
                "{} at {}: {EMPTY_STREAM} (an empty stream)",
                who(&self.cfg),
                display_url(&self.cfg.base_url),
            )
        } else {
            format!(
                "{} at {}: the stream ended without a stop reason (no `{}`): the answer is cut",
                who(&self.cfg),
                display_url(&self.cfg.base_url),
                decoder.stop_marker()
            )
        };
        let event_stream = content_type.starts_with("text/event-stream");
        if event_stream && mid_event {
            message.push_str(" (cut in the middle of an event)");
        }
        if let Some(e) = error {
            message.push_str(&format!(" ({})", strip_url(e)));
        }
        if !event_stream {
            message.push_str(&format!(
                " (the response was `{}`, not `text/event-stream`)",
                if content_type.is_empty() {
                    "without a content type"
                } else {
                    content_type
                }
            ));
        }
        Err(RobotaError::Provider {
            provider: self.cfg.name.clone(),
            message: redact(&message, key),
            status: None,
            // A server answering without SSE will not change its mind on a retry.
            recoverable: event_stream,
        })
    }
}
