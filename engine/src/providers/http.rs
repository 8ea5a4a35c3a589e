//! The one retrying HTTP layer of every HTTP provider: shared connection pool, auth header from
//! an inline key or `$ENV:NAME` (resolved at use, never logged or echoed), extra headers, idle
//! timeout (no byte for N ms, reset on every chunk), retries with exponential backoff and
//! jitter on 429/5xx/connection errors honouring `Retry-After` (never once streamed content
//! reached the caller), and cancellation that drops the request at once. One attempt's steps
//! are in `attempt`, how a call ends in `finish`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{HeaderName, HeaderValue};
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

mod attempt;
mod caller_client;
mod finish;
mod tls;

pub use caller_client::{set_thread_client, with_caller_client};

use super::config::{HttpProviderConfig, MAX_RETRY_DELAY};
use super::errors::{redact, scrub, who};
use super::sse::SseParser;
pub use super::stream::{StreamDecoder, StreamOutcome};
use crate::core::env_ref::{is_env_reference, ENV_REFERENCE_PREFIX};
use crate::core::errors::RobotaError;
use crate::core::provider::{RawPayloadEvent, RawPayloadKind, StreamSink};

/// Connect timeout of the shared client.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The headers every streamed request sends, checked at compile time (a `&str` header name or
/// value is parsed, checked and copied into a new allocation on every request).
const JSON: HeaderValue = HeaderValue::from_static("application/json");
const EVENT_STREAM: HeaderValue = HeaderValue::from_static("text/event-stream");
const ANTHROPIC_VERSION: HeaderName = HeaderName::from_static("anthropic-version");

/// Largest error body read (the rest is ignored).
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Text of the error for a `200` event stream that carried no event at all.
pub const EMPTY_STREAM: &str = "the response ended without any event";
/// Largest capacity a request body starts with (the last body's length is only a hint).
const MAX_BODY_HINT: usize = 256 * 1024;
/// Largest non-streamed (`application/json`) answer read.
const MAX_WHOLE_BODY: usize = 32 * 1024 * 1024;

/// Builds the per-runtime client: one connection pool shared by all its sessions.
pub fn new_http_client() -> Result<reqwest::Client, RobotaError> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .pool_idle_timeout(Duration::from_secs(90))
        .tcp_nodelay(true)
        .user_agent(concat!("robota-native/", env!("CARGO_PKG_VERSION")))
        .use_preconfigured_tls(tls::shared_tls_config()?)
        .build()
        .map_err(|e| RobotaError::Configuration(format!("cannot create the HTTP client: {e}")))
}

/// A request URL, parsed once when the provider is built (reqwest would parse a text URL
/// again on every request); a text that does not parse is kept and fails per request as
/// before.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// Parsed.
    Parsed(reqwest::Url),
    /// Not a URL reqwest can parse: the request fails with reqwest's error.
    Text(String),
}

impl Endpoint {
    /// Parses `text`.
    pub fn new(text: String) -> Self {
        match reqwest::Url::parse(&text) {
            Ok(u) => Endpoint::Parsed(u),
            Err(_) => Endpoint::Text(text),
        }
    }

    fn post(&self, client: &reqwest::Client) -> reqwest::RequestBuilder {
        match self {
            Endpoint::Parsed(u) => client.post(u.clone()),
            Endpoint::Text(t) => client.post(t.as_str()),
        }
    }
}

/// How the API key is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthStyle {
    /// `x-api-key: KEY` (Anthropic).
    XApiKey,
    /// `Authorization: Bearer KEY` (OpenAI and compatible).
    Bearer,
    /// `x-goog-api-key: KEY` (Gemini).
    GoogApiKey,
    /// `api-key: KEY` (Azure OpenAI).
    ApiKey,
}

/// What one streamed model request sends: built by a provider, read by
/// [`HttpTransport::stream`] (which retries it as a whole).
#[derive(Clone, Copy)]
pub struct StreamRequest<'a> {
    /// Where to POST.
    pub url: &'a Endpoint,
    /// How the API key is sent.
    pub auth: AuthStyle,
    /// The JSON request body, already serialised.
    pub body: &'a Bytes,
    /// The model asked for (named in status errors).
    pub model: &'a str,
    /// Labels raw payloads.
    pub api_surface: &'static str,
    /// Cancelling drops the request at once.
    pub cancel: &'a CancellationToken,
}

/// One provider's HTTP transport.
#[derive(Clone)]
pub struct HttpTransport {
    cfg: Arc<HttpProviderConfig>,
    client: reqwest::Client,
    /// Length of the last request body encoded: the next one starts with that capacity
    /// (a conversation's bodies grow round by round).
    body_len: Arc<AtomicUsize>,
}

/// A failed attempt.
struct AttemptError {
    error: RobotaError,
    retry_after: Option<Duration>,
}

impl From<RobotaError> for AttemptError {
    fn from(error: RobotaError) -> Self {
        AttemptError {
            error,
            retry_after: None,
        }
    }
}

impl HttpTransport {
    /// A transport over the shared `client`.
    pub fn new(cfg: HttpProviderConfig, client: reqwest::Client) -> Self {
        HttpTransport {
            cfg: Arc::new(cfg),
            client,
            body_len: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Serialises a request body straight to bytes (no `serde_json::Value` tree in between).
    pub fn encode<T: Serialize + ?Sized>(&self, body: &T) -> Result<Bytes, RobotaError> {
        let hint = self.body_len.load(Ordering::Relaxed);
        let mut out = Vec::with_capacity((hint + hint / 4).clamp(1024, MAX_BODY_HINT));
        serde_json::to_writer(&mut out, body).map_err(|e| {
            RobotaError::provider(&self.cfg.name, format!("cannot encode the request: {e}"))
        })?;
        self.body_len.store(out.len(), Ordering::Relaxed);
        Ok(Bytes::from(out))
    }

    /// The provider entry.
    pub fn config(&self) -> &HttpProviderConfig {
        &self.cfg
    }

    /// The configuration, shared (a decoder keeps it for its error texts; no copy per call).
    pub fn shared_config(&self) -> Arc<HttpProviderConfig> {
        self.cfg.clone()
    }

    /// The shared client.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Resolves the key now (`$ENV:NAME` is read at every call). An unset variable is an
    /// authentication error naming the variable, never its value.
    pub fn api_key(&self) -> Result<Option<String>, RobotaError> {
        match self.cfg.api_key.as_deref() {
            None => Ok(None),
            Some(k) if is_env_reference(k) => match self.cfg.env.resolve(k) {
                Some(v) => Ok(Some(v)),
                None => Err(RobotaError::Authentication(format!(
                    "{}: the API key environment variable \"{}\" is not set",
                    who(&self.cfg),
                    &k[ENV_REFERENCE_PREFIX.len()..]
                ))),
            },
            Some(k) => Ok(Some(k.to_string())),
        }
    }

    fn network(&self, e: reqwest::Error, key: Option<&str>) -> RobotaError {
        let e = e.without_url();
        let mut text = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            text.push_str(": ");
            text.push_str(&s.to_string());
            src = s.source();
        }
        RobotaError::Network(redact(
            &format!(
                "{}: cannot reach {}: {text}",
                who(&self.cfg),
                self.cfg.base_url
            ),
            key,
        ))
    }

    fn idle_error(&self, phase: &str) -> RobotaError {
        RobotaError::Provider {
            provider: self.cfg.name.clone(),
            message: format!(
                "{}: idle timeout: no data for {} ms {phase}",
                who(&self.cfg),
                self.cfg.idle_timeout.as_millis()
            ),
            status: None,
            recoverable: true,
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.cfg.retry_base_delay.as_millis() as u64;
        let exp = base.saturating_mul(1u64 << attempt.min(16)).min(30_000);
        // Equal jitter: half fixed, half random.
        let half = exp / 2;
        Duration::from_millis(half + fastrand::u64(0..=half))
    }

    /// POSTs `req.body` to `req.url` and streams the SSE response through `decoder`, retrying as
    /// the module doc says. The request's raw payload is parsed from the body only when the sink
    /// wants it.
    pub async fn stream(
        &self,
        req: &StreamRequest<'_>,
        decoder: &mut dyn StreamDecoder,
        sink: &mut dyn StreamSink,
    ) -> Result<StreamOutcome, RobotaError> {
        let StreamRequest {
            body,
            api_surface,
            cancel,
            ..
        } = *req;
        let key = self.api_key()?;
        if sink.wants_raw_payloads() {
            sink.on_raw_payload(RawPayloadEvent {
                provider: self.cfg.name.clone(),
                api_surface: Some(api_surface.to_string()),
                payload_kind: RawPayloadKind::Request,
                sequence: None,
                payload: serde_json::from_slice(body).unwrap_or(Value::Null),
            });
        }
        let mut parser = SseParser::new();
        let mut attempt = 0u32;
        loop {
            if cancel.is_cancelled() {
                return Ok(StreamOutcome::Aborted);
            }
            let result = self
                .attempt(req, key.as_deref(), &mut parser, decoder, sink)
                .await;
            let mut failure = match result {
                Ok(outcome) => return Ok(outcome),
                Err(f) => f,
            };
            failure.error = scrub(failure.error, key.as_deref());
            let retryable = failure.error.is_recoverable() && !decoder.delivered();
            if !retryable || attempt >= self.cfg.max_retries {
                return Err(failure.error);
            }
            let delay = failure.retry_after.unwrap_or_else(|| self.backoff(attempt));
            if delay > MAX_RETRY_DELAY {
                return Err(failure.error);
            }
            crate::log_at!(
                crate::core::log::DEBUG,
                "robota::providers",
                "provider \"{}\": attempt {} failed ({}), retry {} of {} in {} ms",
                self.cfg.name,
                attempt + 1,
                failure.error.code(),
                attempt + 1,
                self.cfg.max_retries,
                delay.as_millis()
            );
            tokio::select! {
                _ = cancel.cancelled() => return Ok(StreamOutcome::Aborted),
                _ = tokio::time::sleep(delay) => {}
            }
            attempt += 1;
            parser.reset();
            decoder.reset();
        }
    }
}
