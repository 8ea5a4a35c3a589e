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
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::config::{HttpProviderConfig, ProviderKind};
use super::context_window::{discover, window_from_error, ContextWindows};
use super::convert::data_url;
use super::http::{AuthStyle, HttpTransport, StreamDecoder, StreamOutcome, EMPTY_STREAM};
use crate::core::errors::RobotaError;
use crate::core::message::{Message, Part, Role};
use crate::core::provider::{
    assert_native_web_tools_available, ChatRequest, ChatResponse, Provider, ProviderCapabilities,
    StreamSink,
};
use crate::core::tool_choice::ToolChoice;

mod decoder;
pub use decoder::OpenAiDecoder;

/// API surface label of raw payloads.
pub const API_SURFACE: &str = "chat-completions";

/// The OpenAI / OpenAI-compatible provider.
pub struct OpenAiProvider {
    http: HttpTransport,
    url: String,
    windows: Arc<ContextWindows>,
}

impl OpenAiProvider {
    /// A provider for this entry over the shared client.
    pub fn new(cfg: HttpProviderConfig, client: reqwest::Client) -> Self {
        let url = format!("{}/chat/completions", cfg.base_url);
        OpenAiProvider {
            http: HttpTransport::new(cfg, client),
            url,
            windows: Arc::new(ContextWindows::new()),
        }
    }

    /// Shares the runtime's cache of served context windows.
    pub fn with_windows(mut self, windows: Arc<ContextWindows>) -> Self {
        self.windows = windows;
        self
    }
}

fn user_content(m: &Message) -> Value {
    match &m.parts {
        Some(parts) => Value::Array(
            parts
                .iter()
                .map(|p| match p {
                    Part::Text { text } => json!({"type": "text", "text": text}),
                    Part::ImageInline { mime_type, data } => json!({
                        "type": "image_url", "image_url": {"url": data_url(mime_type, data)}
                    }),
                    Part::ImageUri { uri, .. } => {
                        json!({"type": "image_url", "image_url": {"url": uri}})
                    }
                })
                .collect(),
        ),
        None => Value::String(m.content.clone()),
    }
}

/// Converts the universal history to Chat Completions messages (tool-call ids kept as given:
/// the server that issued them, e.g. a reused `call_0`, expects them back).
pub fn convert_messages(messages: &[Arc<Message>]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| match m.role {
            Role::System => json!({"role": "system", "content": m.content}),
            Role::User => {
                let mut v = json!({"role": "user", "content": null});
                v["content"] = user_content(m);
                v
            }
            Role::Assistant => {
                let text = m.content_for_api();
                // Tool calls without text: `"content": ""`. OpenAI, vLLM, llama.cpp and Ollama
                // accept it; llama-cpp-python rejects `null` (a validation error) and its chat
                // templates fail on a missing key ("'dict object' has no attribute 'content'").
                let mut v = json!({"role": "assistant", "content": text});
                if !m.tool_calls.is_empty() {
                    v["tool_calls"] = m
                        .tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.function.name, "arguments": c.function.arguments},
                            })
                        })
                        .collect();
                }
                v
            }
            Role::Tool => json!({
                "role": "tool",
                "tool_call_id": m.tool_call_id.as_deref().unwrap_or_default(),
                "content": m.content,
            }),
        })
        .collect()
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

/// Builds the request body.
pub fn request_body(cfg: &HttpProviderConfig, request: &ChatRequest<'_>) -> Value {
    let mut body = json!({
        "model": request.model,
        "messages": null,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    // Moved in, not through `json!` (which would copy the whole converted history again).
    body["messages"] = Value::Array(convert_messages(request.messages));
    if let Some(n) = request.max_tokens.or(cfg.max_tokens) {
        let field = if cfg.kind == ProviderKind::OpenAi {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body[field] = json!(n);
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(e) = request
        .thinking_budget
        .and_then(|b| reasoning_effort(request.model, b))
    {
        body["reasoning_effort"] = json!(e);
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters
                }})
            })
            .collect();
        match request.tool_choice {
            ToolChoice::Auto => {}
            ToolChoice::None => body["tool_choice"] = json!("none"),
            ToolChoice::Required => body["tool_choice"] = json!("required"),
            ToolChoice::Tool(n) => {
                body["tool_choice"] = json!({"type": "function", "function": {"name": n}})
            }
        }
    }
    body
}

#[async_trait]
impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        &self.http.config().name
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
        let body = request_body(cfg, &request);
        let mut decoder = OpenAiDecoder::new(cfg.clone());
        let mut result = self
            .http
            .stream(
                &self.url,
                AuthStyle::Bearer,
                &body,
                request.model,
                API_SURFACE,
                &mut decoder,
                sink,
                &cancel,
            )
            .await;
        // An OpenAI-compatible server that answers a streamed request with an empty event
        // stream (llama-cpp-python does so for a prompt longer than its window) says why when
        // asked once without streaming; its answer, or its error, is the call's.
        if cfg.kind == ProviderKind::OpenAiCompatible
            && matches!(&result, Err(e) if e.to_string().contains(EMPTY_STREAM))
        {
            let mut plain = body.clone();
            if let Some(o) = plain.as_object_mut() {
                o.insert("stream".into(), Value::Bool(false));
                o.remove("stream_options");
            }
            decoder.reset();
            result = self
                .http
                .stream(
                    &self.url,
                    AuthStyle::Bearer,
                    &plain,
                    request.model,
                    API_SURFACE,
                    &mut decoder,
                    sink,
                    &cancel,
                )
                .await;
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
