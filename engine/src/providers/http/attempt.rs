//! One attempt of a streamed request, in its steps: the request with its headers, a refusal
//! (a status other than success) read into its error, a body that is not an event stream, and
//! the event stream read through the decoder until the finish rule says how it ended.

use reqwest::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::StatusCode;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{
    caller_client, AttemptError, AuthStyle, HttpTransport, StreamDecoder, StreamOutcome,
    StreamRequest, ANTHROPIC_VERSION, EVENT_STREAM, JSON, MAX_ERROR_BODY, MAX_WHOLE_BODY,
};
use crate::core::errors::RobotaError;
use crate::core::provider::StreamSink;
use crate::providers::errors::{parse_retry_after, redact, status_error, vendor_message, who};
use crate::providers::sse::{SseEvent, SseParser};
use crate::providers::stream::{feed_events, finish_events, raw_event};

impl HttpTransport {
    /// One attempt: sends the request and reads its answer (see the module doc).
    pub(super) async fn attempt(
        &self,
        request: &StreamRequest<'_>,
        key: Option<&str>,
        parser: &mut SseParser,
        decoder: &mut dyn StreamDecoder,
        sink: &mut dyn StreamSink,
    ) -> Result<StreamOutcome, AttemptError> {
        let StreamRequest { model, cancel, .. } = *request;
        let req = self.request(request, key)?;

        let idle = self.cfg.idle_timeout;
        let response = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Ok(StreamOutcome::Aborted),
            r = req.send() => r.map_err(|e| self.network(e, key))?,
            _ = tokio::time::sleep(idle) => return Err(self.idle_error("waiting for the response").into()),
        };
        let status = response.status();
        if !status.is_success() {
            return self.refused(response, status, cancel, model, key).await;
        }

        self.answer(response, request, key, parser, decoder, sink)
            .await
    }

    /// The POST of `request` with its content headers, the API key as `request.auth` sends it
    /// (marked sensitive) and the entry's extra headers.
    fn request(
        &self,
        request: &StreamRequest<'_>,
        key: Option<&str>,
    ) -> Result<reqwest::RequestBuilder, RobotaError> {
        let StreamRequest {
            url, auth, body, ..
        } = *request;
        let mut req = caller_client::with_client(&self.client, |c| url.post(c))
            .header(CONTENT_TYPE, JSON)
            .header(ACCEPT, EVENT_STREAM);
        if auth == AuthStyle::XApiKey {
            req = req.header(ANTHROPIC_VERSION, self.cfg.anthropic_version.as_str());
        }
        if let Some(k) = key {
            let (name, value) = match auth {
                AuthStyle::XApiKey => ("x-api-key", HeaderValue::from_str(k)),
                AuthStyle::GoogApiKey => ("x-goog-api-key", HeaderValue::from_str(k)),
                AuthStyle::ApiKey => ("api-key", HeaderValue::from_str(k)),
                AuthStyle::Bearer => (
                    "authorization",
                    HeaderValue::from_str(&format!("Bearer {k}")),
                ),
            };
            let mut value = value.map_err(|_| {
                RobotaError::Authentication(format!(
                    "{}: the API key contains characters not allowed in an HTTP header",
                    who(&self.cfg)
                ))
            })?;
            value.set_sensitive(true);
            req = req.header(name, value);
        }
        Ok(req.headers(self.cfg.headers.clone()).body(body.clone()))
    }

    /// A response whose `status` is not a success: its body (bounded, redacted) read into the
    /// status error, with the `Retry-After` it gave.
    async fn refused(
        &self,
        response: reqwest::Response,
        status: StatusCode,
        cancel: &CancellationToken,
        model: &str,
        key: Option<&str>,
    ) -> Result<StreamOutcome, AttemptError> {
        let retry_after = parse_retry_after(response.headers());
        let text = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Ok(StreamOutcome::Aborted),
            t = read_limited(response, MAX_ERROR_BODY) => t,
            _ = tokio::time::sleep(self.cfg.idle_timeout) => String::new(),
        };
        let mut message = redact(&vendor_message(&text), key);
        if message.is_empty() {
            message = status.canonical_reason().unwrap_or("error").to_string();
        }
        Err(AttemptError {
            error: status_error(&self.cfg, status.as_u16(), &message, model, retry_after),
            retry_after,
        })
    }

    /// Reads a successful response: a body that is not an event stream as such
    /// ([`Self::not_streamed`]), else the event stream chunk by chunk through `parser` and
    /// `decoder` (the idle timer reset on every chunk) until it ends, is cut or stalls.
    async fn answer(
        &self,
        mut response: reqwest::Response,
        request: &StreamRequest<'_>,
        key: Option<&str>,
        parser: &mut SseParser,
        decoder: &mut dyn StreamDecoder,
        sink: &mut dyn StreamSink,
    ) -> Result<StreamOutcome, AttemptError> {
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        if content_type.starts_with("text/html") || content_type.starts_with("application/json") {
            return self
                .not_streamed(response, &content_type, request, key, decoder, sink)
                .await;
        }
        let StreamRequest {
            api_surface,
            cancel,
            ..
        } = *request;
        let idle = self.cfg.idle_timeout;
        let sleep = tokio::time::sleep(idle);
        tokio::pin!(sleep);
        let wants_raw = sink.wants_raw_payloads();
        let mut seq = 0u64;
        let name = &self.cfg.name;
        let mut raw = |ev: &SseEvent<'_>, sink: &mut dyn StreamSink| {
            if wants_raw {
                raw_event(name, api_surface, ev, &mut seq, sink);
            }
        };
        let mut events = 0usize;
        loop {
            let chunk = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Ok(StreamOutcome::Aborted),
                c = response.chunk() => c,
                // A stream that stalls after its final event (no `message_stop` / `[DONE]`
                // yet) already holds the whole answer.
                _ = &mut sleep => {
                    if decoder.complete() {
                        return self.finished(decoder, key).map_err(AttemptError::from);
                    }
                    return Err(self.idle_error("while streaming").into());
                }
            };
            match chunk {
                Ok(Some(bytes)) => {
                    sleep.as_mut().reset(Instant::now() + idle);
                    sink.on_activity();
                    feed_events(parser, &bytes, decoder, sink, |ev, sink| {
                        events += 1;
                        raw(ev, sink);
                    })?;
                    if decoder.done() {
                        return self
                            .ended(decoder, events, false, None, &content_type, key)
                            .map_err(AttemptError::from);
                    }
                }
                // The end of the body, or a read error: a last event without its blank line
                // still counts.
                end => {
                    let mid_event = finish_events(parser, decoder, sink, &mut raw)?;
                    let error = end.err();
                    return self
                        .ended(
                            decoder,
                            events,
                            mid_event,
                            error.as_ref(),
                            &content_type,
                            key,
                        )
                        .map_err(AttemptError::from);
                }
            }
        }
    }

    /// A `text/html` answer (a web page, not the API: an error naming it) or an
    /// `application/json` one (a non-streamed answer used as the complete response).
    async fn not_streamed(
        &self,
        response: reqwest::Response,
        content_type: &str,
        request: &StreamRequest<'_>,
        key: Option<&str>,
        decoder: &mut dyn StreamDecoder,
        sink: &mut dyn StreamSink,
    ) -> Result<StreamOutcome, AttemptError> {
        let StreamRequest {
            api_surface,
            cancel,
            ..
        } = *request;
        let idle = self.cfg.idle_timeout;
        if content_type.starts_with("text/html") {
            let text = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Ok(StreamOutcome::Aborted),
                t = read_limited(response, MAX_ERROR_BODY) => t,
                _ = tokio::time::sleep(idle) => String::new(),
            };
            return Err(self
                .bad_body(
                    "answered a web page (`text/html`), not an event stream: check base_url",
                    &text,
                    key,
                )
                .into());
        }
        let text = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Ok(StreamOutcome::Aborted),
            t = read_limited(response, MAX_WHOLE_BODY) => t,
            _ = tokio::time::sleep(idle) => return Err(self.idle_error("reading the response").into()),
        };
        self.whole(&text, decoder, sink, api_surface, key)
            .map_err(AttemptError::from)
    }
}

/// The body of `response`, at most `limit` bytes of it, as text (a read error ends it).
async fn read_limited(mut response: reqwest::Response, limit: usize) -> String {
    let mut buf = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        buf.extend_from_slice(&chunk);
        if buf.len() >= limit {
            buf.truncate(limit);
            break;
        }
    }
    String::from_utf8_lossy(&buf).into_owned()
}
