//! Anthropic Messages (`POST {base_url}/v1/messages`, `stream: true`).
//!
//! The stream is decoded by [`AnthropicDecoder`]. The system prompt goes in the top-level
//! `system`; tool results are `tool_result` blocks in a user message; an assistant message that
//! kept vendor blocks ([`crate::core::message::NativeContent`], e.g. server-tool use and
//! results) is sent back block for block.

mod blocks;
mod body;
#[cfg(test)]
mod body_tests;
mod cache;
#[cfg(test)]
mod cache_tests;
mod decoder;
#[cfg(test)]
mod decoder_tests;
mod fast_path;
#[cfg(test)]
mod tree;
mod wire;

pub use body::RequestBody;
pub use decoder::AnthropicDecoder;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use super::config::HttpProviderConfig;
use super::http::{AuthStyle, Endpoint, HttpTransport, StreamOutcome, StreamRequest};
use crate::core::errors::RobotaError;
use crate::core::provider::{
    assert_native_web_tools_available, ChatRequest, ChatResponse, NativeToolSupport, Provider,
    ProviderCapabilities, StreamSink,
};

/// API surface label of raw payloads.
pub const API_SURFACE: &str = "anthropic-messages";
/// The native web search server tool type.
pub const WEB_SEARCH_TOOL: &str = "web_search_20250305";

/// The Anthropic provider.
pub struct AnthropicProvider {
    http: HttpTransport,
    url: Endpoint,
}

impl AnthropicProvider {
    /// A provider for this entry over the shared client.
    pub fn new(cfg: HttpProviderConfig, client: reqwest::Client) -> Self {
        let url = Endpoint::new(format!("{}/v1/messages", cfg.base_url));
        AnthropicProvider {
            http: HttpTransport::new(cfg, client),
            url,
        }
    }
}

#[async_trait]
impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        &self.http.config().name
    }

    fn native_output_schema(&self) -> bool {
        true
    }

    fn capabilities(&self) -> ProviderCapabilities {
        ProviderCapabilities {
            tools: true,
            web_search: NativeToolSupport {
                supported: true,
                enabled: self.http.config().web_search,
            },
            web_fetch: NativeToolSupport::default(),
        }
    }

    async fn chat(
        &self,
        request: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, RobotaError> {
        assert_native_web_tools_available(self, request.native_web_tools)?;
        let cfg = self.http.config();
        let body = self.http.encode(&RequestBody::new(cfg, &request))?;
        let mut decoder = AnthropicDecoder::new(self.http.shared_config(), request.model);
        let outcome = self
            .http
            .stream(
                &StreamRequest {
                    url: &self.url,
                    auth: AuthStyle::XApiKey,
                    body: &body,
                    model: request.model,
                    api_surface: API_SURFACE,
                    cancel: &cancel,
                },
                &mut decoder,
                sink,
            )
            .await?;
        Ok(decoder.into_response(outcome == StreamOutcome::Aborted))
    }
}
