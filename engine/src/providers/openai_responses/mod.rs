//! OpenAI Responses API (`POST {base_url}/responses`, `stream: true`), kind
//! `openai-responses`: the API OpenAI's reasoning models are built around. The conversation is
//! kept by the library (`store: false`); the reasoning items an answer returns are kept in its
//! history message (native content of format [`NATIVE_FORMAT`]) and sent back with their
//! `encrypted_content` on every later request, so the model keeps its reasoning across tool
//! rounds. The request shape is in [`body`], the stream's events in [`ResponsesDecoder`].

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use super::config::HttpProviderConfig;
use super::http::{AuthStyle, Endpoint, HttpTransport, StreamOutcome, StreamRequest};
use crate::core::errors::RobotaError;
use crate::core::provider::{
    assert_native_web_tools_available, ChatRequest, ChatResponse, Provider, StreamSink,
};

pub mod body;
#[cfg(test)]
mod body_tests;
mod decoder;
#[cfg(test)]
mod decoder_tests;
mod whole;

pub use decoder::ResponsesDecoder;

/// API surface label of raw payloads.
pub const API_SURFACE: &str = "responses";
/// The native-content format of an answer's output items (reasoning items kept whole).
pub const NATIVE_FORMAT: &str = "openai-responses";

/// The OpenAI Responses API provider.
pub struct OpenAiResponsesProvider {
    http: HttpTransport,
    url: Endpoint,
}

impl OpenAiResponsesProvider {
    /// A provider for this entry over the shared client, posting to `{base_url}/responses`.
    pub fn new(cfg: HttpProviderConfig, client: reqwest::Client) -> Self {
        let url = Endpoint::new(format!("{}/responses", cfg.base_url));
        OpenAiResponsesProvider {
            http: HttpTransport::new(cfg, client),
            url,
        }
    }
}

#[async_trait]
impl Provider for OpenAiResponsesProvider {
    fn native_output_schema(&self) -> bool {
        true
    }

    fn name(&self) -> &str {
        &self.http.config().name
    }

    async fn chat(
        &self,
        request: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, RobotaError> {
        assert_native_web_tools_available(self, request.native_web_tools)?;
        let body = body::request_body(self.http.config(), &request);
        let mut decoder = ResponsesDecoder::new(self.http.shared_config(), request.model);
        let encoded = self.http.encode(&body)?;
        let req = StreamRequest {
            url: &self.url,
            auth: AuthStyle::Bearer,
            body: &encoded,
            model: request.model,
            api_surface: API_SURFACE,
            cancel: &cancel,
        };
        let outcome = self.http.stream(&req, &mut decoder, sink).await?;
        Ok(decoder.into_response(outcome == StreamOutcome::Aborted))
    }
}
