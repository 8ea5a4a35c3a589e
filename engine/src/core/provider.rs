//! The `Provider` seam: stream one chat turn. Concrete providers live in `crate::providers`.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::errors::RobotaError;
use super::message::{Message, NativeContent, ToolCall};
use super::output_schema::OutputSchema;
use super::prompt_cache::PromptCache;
use super::tokens::TokenUsage;
use super::tool_choice::ToolChoice;

/// A tool schema as sent to providers: `{name, description, parameters}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    /// Tool name.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// Requested provider-native (server-side) web tools for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NativeWebToolRequest {
    /// Hosted web search.
    #[serde(default)]
    pub web_search: bool,
    /// Hosted web fetch.
    #[serde(default)]
    pub web_fetch: bool,
}

/// Support and enablement of one native web tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct NativeToolSupport {
    /// The provider has a documented hosted path.
    pub supported: bool,
    /// The hosted path is active for this provider instance.
    pub enabled: bool,
}

/// Provider-neutral capability report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ProviderCapabilities {
    /// Function calling.
    pub tools: bool,
    /// Hosted web search.
    pub web_search: NativeToolSupport,
    /// Hosted web fetch.
    pub web_fetch: NativeToolSupport,
}

impl Default for ProviderCapabilities {
    fn default() -> Self {
        ProviderCapabilities {
            tools: true,
            web_search: NativeToolSupport::default(),
            web_fetch: NativeToolSupport::default(),
        }
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Natural end.
    #[default]
    EndTurn,
    /// Wants tools.
    ToolUse,
    /// Hit max tokens: the output is cut.
    MaxTokens,
    /// The model refused (Anthropic `refusal`, OpenAI `delta.refusal`); the content holds the
    /// refusal text, if any.
    Refusal,
    /// Cancelled by the caller: the content is partial.
    Aborted,
    /// Anything else the vendor said.
    Other,
}

/// Phase of a provider-native payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RawPayloadKind {
    /// The request body.
    Request,
    /// A non-streamed response.
    Response,
    /// One stream event.
    StreamEvent,
}

/// A provider-native payload reported for replay-grade logs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RawPayloadEvent {
    /// Provider identifier.
    pub provider: String,
    /// API surface, e.g. `anthropic-messages`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_surface: Option<String>,
    /// Phase.
    pub payload_kind: RawPayloadKind,
    /// Provider's own sequence, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u64>,
    /// The payload.
    pub payload: Value,
}

/// One chat turn to stream.
#[derive(Clone, Copy)]
pub struct ChatRequest<'a> {
    /// Full history (system message first, if any). Providers apply
    /// [`Message::content_for_api`] when converting.
    pub messages: &'a [Arc<Message>],
    /// Tools the model may call (empty = none).
    pub tools: &'a [Arc<ToolSchema>],
    /// Model id.
    pub model: &'a str,
    /// Max output tokens.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Native web tools requested for this call.
    pub native_web_tools: NativeWebToolRequest,
    /// Extended thinking budget in tokens (Anthropic `thinking`, Gemini `thinkingConfig`).
    pub thinking_budget: Option<u32>,
    /// Whether the model may, must or must not call a tool (sent only with tools).
    pub tool_choice: &'a ToolChoice,
    /// The JSON Schema the answer must match, sent in the vendor's native form (only to a
    /// provider whose [`Provider::native_output_schema`] is true).
    pub output_schema: Option<&'a OutputSchema>,
    /// Prompt-cache hints: Anthropic `cache_control` breakpoints (and their TTL), OpenAI
    /// `prompt_cache_key`; [`PromptCache::Off`] sends none.
    pub prompt_cache: PromptCache,
    /// A stable key of the conversation (the same on every call of a session), sent as
    /// OpenAI's `prompt_cache_key` while caching is on.
    pub cache_key: Option<&'a str>,
}

#[cfg(test)]
impl<'a> ChatRequest<'a> {
    /// A request of `messages` to `model` with nothing else set (no tools, no options,
    /// caching off): the base the body tests override field by field.
    pub(crate) fn plain(messages: &'a [Arc<Message>], model: &'a str) -> Self {
        ChatRequest {
            messages,
            tools: &[],
            model,
            max_tokens: None,
            temperature: None,
            native_web_tools: NativeWebToolRequest::default(),
            thinking_budget: None,
            tool_choice: &ToolChoice::Auto,
            output_schema: None,
            prompt_cache: PromptCache::Off,
            cache_key: None,
        }
    }
}

/// Receives what a provider streams. Called on the provider's task, in order.
pub trait StreamSink: Send {
    /// A text delta (ends on a code-point boundary).
    fn on_text(&mut self, delta: &str);
    /// A thinking delta.
    fn on_thinking(&mut self, _delta: &str) {}
    /// A provider-native payload (only when [`StreamSink::wants_raw_payloads`]).
    fn on_raw_payload(&mut self, _event: RawPayloadEvent) {}
    /// Whether raw payloads should be built at all (they cost allocations).
    fn wants_raw_payloads(&self) -> bool {
        false
    }
    /// A server-side tool use (e.g. native web search) with its input.
    fn on_server_tool(&mut self, _name: &str, _input: &Value) {}
    /// Any byte of activity (used for idle timeouts); text deltas count automatically.
    fn on_activity(&mut self) {}
}

/// The provider's answer for one turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatResponse {
    /// Full text (also streamed through the sink).
    pub content: String,
    /// Tool calls, ids as the provider gave them.
    pub tool_calls: Vec<ToolCall>,
    /// Usage, when reported.
    pub usage: Option<TokenUsage>,
    /// Why it stopped; `Aborted` when cancelled (content is then partial).
    pub stop_reason: StopReason,
    /// Content the universal fields cannot hold, to be kept in history and sent back verbatim.
    pub native: Option<NativeContent>,
}

/// A model provider: streams one chat turn.
#[async_trait]
pub trait Provider: Send + Sync {
    /// Provider name (e.g. `anthropic`, `scripted`).
    fn name(&self) -> &str;

    /// What the provider can do.
    fn capabilities(&self) -> ProviderCapabilities {
        ProviderCapabilities::default()
    }

    /// Whether the provider sends [`ChatRequest::output_schema`] in its vendor's native form;
    /// when false, the engine asks for the answer through a forced `final_answer` tool.
    fn native_output_schema(&self) -> bool {
        false
    }

    /// The context window the provider's server serves `model` with, when it tells
    /// (OpenAI-compatible servers; asked once per runtime and model, then cached). `None` when
    /// the server tells nothing: the caller falls back to the model table.
    async fn context_window(&self, _model: &str) -> Option<u64> {
        None
    }

    /// Streams one turn. On cancellation, returns the partial content with
    /// [`StopReason::Aborted`] instead of an error.
    async fn chat(
        &self,
        request: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, RobotaError>;
}

/// `assertProviderNativeWebToolsAvailable`: fails before transport when a requested native
/// web tool is unsupported or disabled.
pub fn assert_native_web_tools_available(
    provider: &dyn Provider,
    request: NativeWebToolRequest,
) -> Result<(), RobotaError> {
    let caps = provider.capabilities();
    let check = |wanted: bool, s: NativeToolSupport, what: &str| {
        if wanted && !(s.supported && s.enabled) {
            Err(RobotaError::Configuration(format!(
                "Provider \"{}\" does not support native {what}{}",
                provider.name(),
                if s.supported { " (disabled)" } else { "" }
            )))
        } else {
            Ok(())
        }
    };
    check(request.web_search, caps.web_search, "web search")?;
    check(request.web_fetch, caps.web_fetch, "web fetch")
}

struct Discard;

impl StreamSink for Discard {
    fn on_text(&mut self, _delta: &str) {}
}

/// One tool-less call with a single user message (`prompt`) to `model`, streamed deltas
/// discarded: the answer (compaction summaries, prompt hooks).
pub async fn complete(
    provider: &dyn Provider,
    model: &str,
    prompt: String,
    cancel: CancellationToken,
) -> Result<ChatResponse, RobotaError> {
    let messages = [Arc::new(Message::user(prompt))];
    let request = ChatRequest {
        messages: &messages,
        tools: &[],
        model,
        max_tokens: None,
        temperature: None,
        thinking_budget: None,
        native_web_tools: NativeWebToolRequest::default(),
        tool_choice: &ToolChoice::Auto,
        output_schema: None,
        // A one-off prompt (compaction summaries, prompt hooks): nothing would read a cache
        // write back, which costs more than plain input.
        prompt_cache: PromptCache::Off,
        cache_key: None,
    };
    provider.chat(request, &mut Discard, cancel).await
}
