//! Google Gemini (`POST {base_url}/models/{model}:streamGenerateContent?alt=sse`,
//! `x-goog-api-key`).
//!
//! Every SSE `data:` is a `GenerateContentResponse` (`candidates[0].content.parts[]` with
//! `text` / `functionCall`, `finishReason`, `usageMetadata`); there is no end sentinel, so a
//! stream closing before any `finishReason` is reported as cut. Requests carry `contents`
//! (roles `user` / `model`), `systemInstruction`, `tools[].functionDeclarations` and
//! `generationConfig`; tool results go back as `functionResponse` parts.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::config::HttpProviderConfig;
use super::convert::{first_indexed, Accumulated, Indexed, JsonStr, PartialCall};
use super::errors::{malformed, vendor_message, who};
use super::http::{
    AuthStyle, Endpoint, HttpTransport, StreamDecoder, StreamOutcome, StreamRequest,
};
use super::sse::SseEvent;
use crate::core::errors::RobotaError;
use crate::core::provider::{
    assert_native_web_tools_available, ChatRequest, ChatResponse, Provider, ProviderCapabilities,
    StopReason, StreamSink,
};

mod body;
#[cfg(test)]
mod body_tests;
#[cfg(test)]
mod tree;

pub use body::RequestBody;

/// API surface label of raw payloads.
pub const API_SURFACE: &str = "gemini-generate-content";
/// Prefix of tool-call ids Robota generates (Gemini calls without their own `id`).
pub const GENERATED_ID_PREFIX: &str = "gcall_";
/// Bound of the thought-signature cache.
const MAX_SIGNATURES: usize = 4096;

/// The Gemini provider.
pub struct GeminiProvider {
    http: HttpTransport,
    /// Tool-call id → `thoughtSignature`, sent back with the call in later requests.
    signatures: Mutex<HashMap<String, String>>,
}

impl GeminiProvider {
    /// A provider for this entry over the shared client.
    pub fn new(cfg: HttpProviderConfig, client: reqwest::Client) -> Self {
        GeminiProvider {
            http: HttpTransport::new(cfg, client),
            signatures: Mutex::new(HashMap::new()),
        }
    }

    fn url(&self, model: &str) -> String {
        let model = model.strip_prefix("models/").unwrap_or(model);
        format!(
            "{}/models/{model}:streamGenerateContent?alt=sse",
            self.http.config().base_url
        )
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response<'a> {
    #[serde(default, borrow, deserialize_with = "first_indexed")]
    candidates: Option<Candidate<'a>>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
    #[serde(default)]
    prompt_feedback: Option<PromptFeedback>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate<'a> {
    #[serde(default, borrow)]
    content: Option<Content<'a>>,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    index: Option<u32>,
}

impl Indexed for Candidate<'_> {
    fn index(&self) -> u32 {
        self.index.unwrap_or(0)
    }
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(default, borrow)]
    parts: Option<Vec<WirePart<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WirePart<'a> {
    #[serde(default, borrow)]
    text: Option<JsonStr<'a>>,
    #[serde(default)]
    thought: Option<bool>,
    #[serde(default)]
    function_call: Option<FunctionCall>,
    #[serde(default)]
    thought_signature: Option<String>,
}

#[derive(Deserialize)]
struct FunctionCall {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default)]
    args: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    thoughts_token_count: u64,
    #[serde(default)]
    total_token_count: Option<u64>,
    #[serde(default)]
    cached_content_token_count: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    #[serde(default)]
    block_reason: Option<String>,
}

/// Decodes Gemini stream responses.
pub struct GeminiDecoder {
    cfg: HttpProviderConfig,
    /// Accumulated response.
    pub acc: Accumulated,
    /// Thought signatures of the calls of this response (call id → signature).
    pub signatures: Vec<(String, String)>,
}

impl GeminiDecoder {
    /// A decoder for one call.
    pub fn new(cfg: HttpProviderConfig) -> Self {
        GeminiDecoder {
            cfg,
            acc: Accumulated::default(),
            signatures: Vec::new(),
        }
    }
}

impl StreamDecoder for GeminiDecoder {
    fn event(&mut self, ev: SseEvent<'_>, sink: &mut dyn StreamSink) -> Result<(), RobotaError> {
        if ev.data.trim().is_empty() {
            return Ok(());
        }
        let r: Response<'_> = serde_json::from_str(ev.data)
            .map_err(|e| malformed(&self.cfg, &format!("bad JSON in a response chunk: {e}")))?;
        if let Some(err) = r.error {
            let message = vendor_message(&json!({ "error": err }).to_string());
            return Err(RobotaError::Provider {
                provider: self.cfg.name.clone(),
                message: format!("{} stream error: {message}", who(&self.cfg)),
                status: None,
                recoverable: true,
            });
        }
        if let Some(cand) = r.candidates {
            let parts = cand.content.and_then(|c| c.parts).unwrap_or_default();
            for p in parts {
                if let Some(fc) = p.function_call {
                    let id = fc.id.filter(|s| !s.is_empty()).unwrap_or_else(|| {
                        format!("{GENERATED_ID_PREFIX}{}", crate::core::util::new_uuid())
                    });
                    if let Some(sig) = p.thought_signature {
                        self.signatures.push((id.clone(), sig));
                    }
                    let arguments = match fc.args {
                        Some(v @ Value::Object(_)) => v.to_string(),
                        _ => "{}".to_string(),
                    };
                    self.acc.calls.push(PartialCall {
                        id,
                        name: fc.name,
                        arguments,
                    });
                } else if let Some(t) = p.text {
                    if t.is_empty() {
                        continue;
                    }
                    self.acc.delivered = true;
                    if p.thought == Some(true) {
                        sink.on_thinking(&t);
                    } else {
                        self.acc.content.push_str(&t);
                        sink.on_text(&t);
                    }
                }
            }
            if let Some(fr) = cand.finish_reason {
                self.acc.stop = Some(match fr.as_str() {
                    "STOP" if !self.acc.calls.is_empty() => StopReason::ToolUse,
                    "STOP" => StopReason::EndTurn,
                    "MAX_TOKENS" => StopReason::MaxTokens,
                    "SAFETY" | "PROHIBITED_CONTENT" | "BLOCKLIST" | "SPII" => StopReason::Refusal,
                    _ => StopReason::Other,
                });
            }
        }
        if let Some(reason) = r.prompt_feedback.and_then(|f| f.block_reason) {
            return Err(RobotaError::Provider {
                provider: self.cfg.name.clone(),
                message: format!("{} blocked the prompt: {reason}", who(&self.cfg)),
                status: None,
                recoverable: false,
            });
        }
        if let Some(u) = r.usage_metadata {
            let usage = self.acc.usage_mut();
            usage.set_prompt(u.prompt_token_count, u.cached_content_token_count);
            usage.output_tokens = u.candidates_token_count + u.thoughts_token_count;
            usage.total_tokens = u.total_token_count;
        }
        Ok(())
    }

    fn accumulated(&self) -> &Accumulated {
        &self.acc
    }

    fn done(&self) -> bool {
        false // no end sentinel: read until the server closes (usage may follow)
    }

    fn stop_marker(&self) -> &'static str {
        "finishReason"
    }

    fn whole_response(&self, body: Value) -> Vec<crate::providers::whole::WholeEvent> {
        crate::providers::whole::gemini(body)
    }

    fn reset(&mut self) {
        self.acc.reset();
        self.signatures.clear();
    }
}

#[async_trait]
impl Provider for GeminiProvider {
    fn name(&self) -> &str {
        &self.http.config().name
    }

    fn native_output_schema(&self) -> bool {
        true
    }

    fn capabilities(&self) -> ProviderCapabilities {
        ProviderCapabilities::default()
    }

    async fn chat(
        &self,
        request: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, RobotaError> {
        assert_native_web_tools_available(self, request.native_web_tools)?;
        let cfg = self.http.config();
        let body = {
            let sigs = self.signatures.lock().unwrap_or_else(|p| p.into_inner());
            self.http.encode(&RequestBody::new(cfg, &request, &|id| {
                sigs.get(id).cloned()
            }))?
        };
        let mut decoder = GeminiDecoder::new(cfg.clone());
        let outcome = self
            .http
            .stream(
                &StreamRequest {
                    url: &Endpoint::new(self.url(request.model)),
                    auth: AuthStyle::GoogApiKey,
                    body: &body,
                    model: request.model,
                    api_surface: API_SURFACE,
                    cancel: &cancel,
                },
                &mut decoder,
                sink,
            )
            .await?;
        if !decoder.signatures.is_empty() {
            let mut sigs = self.signatures.lock().unwrap_or_else(|p| p.into_inner());
            if sigs.len() + decoder.signatures.len() > MAX_SIGNATURES {
                sigs.clear();
            }
            sigs.extend(decoder.signatures.drain(..));
        }
        Ok(decoder.acc.into_response(outcome == StreamOutcome::Aborted))
    }
}
