//! OpenAI Chat Completions (`POST {base_url}/chat/completions`, `stream: true`,
//! `stream_options.include_usage`), also serving every OpenAI-compatible server (kind
//! `openai-compatible`: Ollama, llama.cpp server, vLLM, LM Studio, proxies) by `base_url`.
//!
//! Stream: `data: {chunk}` lines with `choices[].delta.content`, `delta.tool_calls[]` whose
//! `function.arguments` arrive in fragments keyed by `index`, `delta.refusal` (the refusal text:
//! streamed as the answer, stop reason `refusal`), `finish_reason`, a final usage-only chunk
//! (`choices: []`), then `data: [DONE]`.

use std::sync::Arc;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use super::config::{HttpProviderConfig, ProviderKind};
use super::context_window::{discover, window_from_error, ContextWindows};
use super::http::{
    AuthStyle, Endpoint, HttpTransport, StreamDecoder, StreamOutcome, StreamRequest, EMPTY_STREAM,
};
use crate::core::errors::RobotaError;
use crate::core::provider::{
    assert_native_web_tools_available, ChatRequest, ChatResponse, Provider, ProviderCapabilities,
    StreamSink,
};

mod body;
pub(crate) use body::prompt_cache_key;
#[cfg(test)]
mod body_tests;
mod decoder;
mod fast_path;
#[cfg(test)]
mod fast_path_fallback_tests;
#[cfg(test)]
mod fast_path_tests;
#[cfg(test)]
mod tree;
mod wire;
pub use body::RequestBody;
pub use decoder::OpenAiDecoder;

/// API surface label of raw payloads.
pub const API_SURFACE: &str = "chat-completions";

/// The OpenAI / OpenAI-compatible provider.
pub struct OpenAiProvider {
    http: HttpTransport,
    url: Endpoint,
    auth: AuthStyle,
    windows: Arc<ContextWindows>,
}

impl OpenAiProvider {
    /// A provider for this entry over the shared client.
    pub fn new(cfg: HttpProviderConfig, client: reqwest::Client) -> Self {
        let url = Endpoint::new(format!("{}/chat/completions", cfg.base_url));
        Self::at(cfg, client, url, AuthStyle::Bearer)
    }

    /// A provider posting to `url` with the key sent as `auth` says (Azure's deployment URLs).
    pub fn at(
        cfg: HttpProviderConfig,
        client: reqwest::Client,
        url: Endpoint,
        auth: AuthStyle,
    ) -> Self {
        OpenAiProvider {
            http: HttpTransport::new(cfg, client),
            url,
            auth,
            windows: Arc::new(ContextWindows::new()),
        }
    }

    /// Shares the runtime's cache of served context windows.
    pub fn with_windows(mut self, windows: Arc<ContextWindows>) -> Self {
        self.windows = windows;
        self
    }
}

/// OpenAI's `reasoning_effort` for a thinking budget, for reasoning models only (`o1`, `o3`,
/// `o4`, `gpt-5` families, with or without a `vendor/` prefix; other models get no field):
/// under 4,096 tokens `low`, under 16,384 `medium`, else `high`.
pub fn reasoning_effort(model: &str, budget_tokens: u32) -> Option<&'static str> {
    let base = model.rsplit('/').next().unwrap_or(model);
    let reasoning = ["o1", "o3", "o4", "gpt-5"].iter().any(|f| {
        base.strip_prefix(f)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.']))
    });
    reasoning.then_some(match budget_tokens {
        0..=4095 => "low",
        4096..=16383 => "medium",
        _ => "high",
    })
}

#[async_trait]
impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        &self.http.config().name
    }

    fn native_output_schema(&self) -> bool {
        true
    }

    fn capabilities(&self) -> ProviderCapabilities {
        ProviderCapabilities::default()
    }

    async fn context_window(&self, model: &str) -> Option<u64> {
        let cfg = self.http.config();
        if let Some(known) = self.windows.get(&cfg.base_url, model) {
            return known;
        }
        if cfg.kind != ProviderKind::OpenAiCompatible {
            return None;
        }
        let key = self.http.api_key().ok().flatten();
        let headers = cfg.headers.clone();
        let auth = move |r: reqwest::RequestBuilder| {
            let r = r.headers(headers.clone());
            match &key {
                Some(k) => r.bearer_auth(k),
                None => r,
            }
        };
        let found = discover(self.http.client(), &cfg.base_url, model, &auth).await;
        self.windows.learn(&cfg.base_url, model, found);
        self.windows.get(&cfg.base_url, model).flatten()
    }

    async fn chat(
        &self,
        request: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, RobotaError> {
        assert_native_web_tools_available(self, request.native_web_tools)?;
        let cfg = self.http.config();
        let body = RequestBody::new(cfg, &request);
        let mut decoder = OpenAiDecoder::new(self.http.shared_config());
        let streamed = self.http.encode(&body)?;
        let req = StreamRequest {
            url: &self.url,
            auth: self.auth,
            body: &streamed,
            model: request.model,
            api_surface: API_SURFACE,
            cancel: &cancel,
        };
        let mut result = self.http.stream(&req, &mut decoder, sink).await;
        // An OpenAI-compatible server that answers a streamed request with an empty event
        // stream (llama-cpp-python does so for a prompt longer than its window) says why when
        // asked once without streaming; its answer, or its error, is the call's.
        if cfg.kind == ProviderKind::OpenAiCompatible
            && matches!(&result, Err(e) if e.to_string().contains(EMPTY_STREAM))
        {
            let plain = self.http.encode(&body.without_streaming())?;
            decoder.reset();
            let req = StreamRequest {
                body: &plain,
                ..req
            };
            result = self.http.stream(&req, &mut decoder, sink).await;
        }
        let outcome = result.inspect_err(|e| {
            // "This model's maximum context length is N tokens": the served window.
            if let Some(n) = window_from_error(&e.to_string()) {
                self.windows.learn(&cfg.base_url, request.model, Some(n));
            }
        })?;
        Ok(decoder.acc.into_response(outcome == StreamOutcome::Aborted))
    }
}
