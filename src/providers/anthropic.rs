//! Anthropic Messages (`POST {base_url}/v1/messages`, `stream: true`).
//!
//! Stream events: `message_start` (input usage), `content_block_start` (`text`, `tool_use`,
//! `thinking`, `server_tool_use`, `web_search_tool_result`), `content_block_delta`
//! (`text_delta`, `input_json_delta`, `thinking_delta`, `signature_delta`),
//! `content_block_stop`, `message_delta` (stop reason, output usage), `message_stop`, `ping`,
//! `error`. The system prompt goes in the top-level `system`; tool results are `tool_result`
//! blocks in a user message.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::config::{HttpProviderConfig, DEFAULT_ANTHROPIC_MAX_TOKENS};
use super::convert::{args_object, system_text, Accumulated, JsonStr, PartialCall, ToolIdMap};
use super::errors::{malformed, who};
use super::http::{AuthStyle, HttpTransport, StreamDecoder, StreamOutcome};
use super::sse::SseEvent;
use crate::core::errors::RobotaError;
use crate::core::message::{Message, Part, Role};
use crate::core::provider::{
    assert_native_web_tools_available, ChatRequest, ChatResponse, NativeToolSupport, Provider,
    ProviderCapabilities, StopReason, StreamSink,
};

/// API surface label of raw payloads.
pub const API_SURFACE: &str = "anthropic-messages";
/// The native web search server tool type.
pub const WEB_SEARCH_TOOL: &str = "web_search_20250305";

/// The Anthropic provider.
pub struct AnthropicProvider {
    http: HttpTransport,
    url: String,
}

impl AnthropicProvider {
    /// A provider for this entry over the shared client.
    pub fn new(cfg: HttpProviderConfig, client: reqwest::Client) -> Self {
        let url = format!("{}/v1/messages", cfg.base_url);
        AnthropicProvider {
            http: HttpTransport::new(cfg, client),
            url,
        }
    }
}

fn user_blocks(m: &Message) -> Vec<Value> {
    match &m.parts {
        Some(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } if text.is_empty() => None,
                Part::Text { text } => Some(json!({"type": "text", "text": text})),
                Part::ImageInline { mime_type, data } => Some(json!({
                    "type": "image",
                    "source": {"type": "base64", "media_type": mime_type, "data": data}
                })),
                Part::ImageUri { uri, .. } => Some(json!({
                    "type": "image", "source": {"type": "url", "url": uri}
                })),
            })
            .collect(),
        None if m.content.is_empty() => Vec::new(),
        None => vec![json!({"type": "text", "text": m.content})],
    }
}

/// Converts the universal history to Anthropic `(system, messages)`.
pub fn convert_messages(messages: &[Arc<Message>]) -> (Option<String>, Vec<Value>) {
    let mut ids = ToolIdMap::default();
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in messages {
        let (role, blocks) = match m.role {
            Role::System => continue,
            Role::User => ("user", user_blocks(m)),
            Role::Assistant => {
                let mut blocks = Vec::new();
                let text = m.content_for_api();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for c in &m.tool_calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": ids.call(&c.id),
                        "name": c.function.name,
                        "input": args_object(&c.function.arguments),
                    }));
                }
                ("assistant", blocks)
            }
            Role::Tool => {
                let id = ids.result(m.tool_call_id.as_deref().unwrap_or_default());
                (
                    "user",
                    vec![json!({"type": "tool_result", "tool_use_id": id, "content": m.content})],
                )
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((r, b)) if *r == role => b.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    let msgs = out
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    (system_text(messages), msgs)
}

/// Builds the request body.
pub fn request_body(cfg: &HttpProviderConfig, request: &ChatRequest<'_>) -> Value {
    let (system, messages) = convert_messages(request.messages);
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_tokens.or(cfg.max_tokens).unwrap_or(DEFAULT_ANTHROPIC_MAX_TOKENS),
        "messages": messages,
        "stream": true,
    });
    if let Some(s) = system {
        body["system"] = Value::String(s);
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    if request.native_web_tools.web_search && cfg.web_search {
        tools.push(json!({"type": WEB_SEARCH_TOOL, "name": "web_search"}));
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    body
}

#[derive(Deserialize)]
struct Typed<'a> {
    #[serde(rename = "type", borrow)]
    kind: JsonStr<'a>,
}

#[derive(Deserialize, Default)]
struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct MessageStart {
    message: StartMessage,
}

#[derive(Deserialize)]
struct StartMessage {
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct BlockStart {
    index: usize,
    content_block: StartBlock,
}

#[derive(Deserialize)]
struct StartBlock {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct BlockDelta<'a> {
    index: usize,
    #[serde(borrow)]
    delta: Delta<'a>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    kind: JsonStr<'a>,
    #[serde(default, borrow)]
    text: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    partial_json: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    thinking: Option<JsonStr<'a>>,
}

#[derive(Deserialize)]
struct BlockStop {
    index: usize,
}

#[derive(Deserialize)]
struct MessageDelta {
    #[serde(default)]
    delta: MessageDeltaBody,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize, Default)]
struct MessageDeltaBody {
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct ErrorEvent {
    error: ErrorBody,
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    message: String,
}

/// Fast path for the hottest event, a compact text delta exactly as Anthropic sends it:
/// `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`.
/// Anything else (spacing, other field order, other delta types) returns `None` and goes
/// through the full decoder. Escaped text is decoded by `serde_json`.
fn fast_text_delta(data: &str) -> Option<(usize, std::borrow::Cow<'_, str>)> {
    const HEAD: &str = r#"{"type":"content_block_delta","index":"#;
    const MID: &str = r#","delta":{"type":"text_delta","text":""#;
    let rest = strip_json_prefix(data, HEAD)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let index: usize = rest[..digits].parse().ok()?;
    let body = strip_json_prefix(&rest[digits..], MID)?;
    // Find the closing quote, skipping escaped characters.
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut escaped = false;
    loop {
        i += memchr::memchr2(b'"', b'\\', &bytes[i..])?;
        if bytes[i] == b'\\' {
            escaped = true;
            i += 2;
            if i > bytes.len() {
                return None;
            }
            continue;
        }
        break;
    }
    if !matches!(&body[i..], "\"}}" | "\"} }" | "\" }}" | "\" } }") {
        return None;
    }
    let raw = &body[..i];
    if raw.bytes().any(|b| b < 0x20) {
        return None; // not valid JSON: let the full decoder report it
    }
    if !escaped {
        return Some((index, std::borrow::Cow::Borrowed(raw)));
    }
    let start = data.len() - body.len() - 1;
    let quoted = &data[start..start + i + 2];
    serde_json::from_str::<String>(quoted)
        .ok()
        .map(|s| (index, std::borrow::Cow::Owned(s)))
}

/// Strips `lit` from the front of `input`, allowing one space after each `:` and `,` of `lit`
/// (the compact form the API sends and the spaced form of its documentation).
fn strip_json_prefix<'a>(input: &'a str, lit: &str) -> Option<&'a str> {
    if let Some(rest) = input.strip_prefix(lit) {
        return Some(rest); // the compact form: one comparison
    }
    let (inp, lit) = (input.as_bytes(), lit.as_bytes());
    let mut i = 0;
    for &c in lit {
        if inp.get(i) != Some(&c) {
            return None;
        }
        i += 1;
        if (c == b':' || c == b',') && inp.get(i) == Some(&b' ') {
            i += 1;
        }
    }
    // `i` follows an ASCII byte of `lit`, so it is a char boundary.
    input.get(i..)
}

/// What a content block index holds.
#[derive(Debug, Clone)]
enum Block {
    Text,
    Thinking,
    /// Index into `acc.calls`.
    Tool(usize),
    /// A server tool use: name and input JSON so far.
    Server(String, String),
    Other,
}

/// Decodes Anthropic stream events.
pub struct AnthropicDecoder {
    cfg: HttpProviderConfig,
    model: String,
    /// Accumulated response.
    pub acc: Accumulated,
    blocks: Vec<Block>,
    stopped: bool,
}

impl AnthropicDecoder {
    /// A decoder for one call.
    pub fn new(cfg: HttpProviderConfig, model: &str) -> Self {
        AnthropicDecoder {
            cfg,
            model: model.to_string(),
            acc: Accumulated::default(),
            blocks: Vec::new(),
            stopped: false,
        }
    }

    fn parse<'a, T: Deserialize<'a>>(&self, ev: &str, data: &'a str) -> Result<T, RobotaError> {
        serde_json::from_str(data)
            .map_err(|e| malformed(&self.cfg, &format!("bad JSON in `{ev}` event: {e}")))
    }

    fn apply_usage(&mut self, u: Usage) {
        let usage = self.acc.usage_mut();
        if let Some(v) = u.input_tokens {
            usage.input_tokens = v;
        }
        if let Some(v) = u.output_tokens {
            usage.output_tokens = v;
        }
        if let Some(v) = u.cache_creation_input_tokens {
            usage.cache_creation_tokens = v;
        }
        if let Some(v) = u.cache_read_input_tokens {
            usage.cache_read_tokens = v;
        }
    }

    fn block_start(&mut self, b: BlockStart, sink: &mut dyn StreamSink) {
        let block = match b.content_block.kind.as_str() {
            "text" => Block::Text,
            "thinking" | "redacted_thinking" => Block::Thinking,
            "tool_use" => {
                let arguments = match b.content_block.input {
                    Some(Value::Object(m)) if !m.is_empty() => Value::Object(m).to_string(),
                    _ => String::new(),
                };
                self.acc.calls.push(PartialCall {
                    id: b.content_block.id.unwrap_or_default(),
                    name: b.content_block.name.unwrap_or_default(),
                    arguments,
                });
                Block::Tool(self.acc.calls.len() - 1)
            }
            "server_tool_use" => Block::Server(
                b.content_block.name.unwrap_or_default(),
                match b.content_block.input {
                    Some(Value::Object(m)) if !m.is_empty() => Value::Object(m).to_string(),
                    _ => String::new(),
                },
            ),
            _ => Block::Other,
        };
        if let Some(t) = b.content_block.text.filter(|t| !t.is_empty()) {
            if matches!(block, Block::Text) {
                self.acc.content.push_str(&t);
                self.acc.delivered = true;
                sink.on_text(&t);
            }
        }
        if self.blocks.len() <= b.index {
            self.blocks.resize(b.index + 1, Block::Other);
        }
        self.blocks[b.index] = block;
    }

    fn block_delta(
        &mut self,
        d: BlockDelta<'_>,
        sink: &mut dyn StreamSink,
    ) -> Result<(), RobotaError> {
        match &*d.delta.kind {
            "text_delta" => {
                if let Some(t) = d.delta.text {
                    if !t.is_empty() {
                        self.acc.content.push_str(&t);
                        self.acc.delivered = true;
                        sink.on_text(&t);
                    }
                }
            }
            "thinking_delta" => {
                if let Some(t) = d.delta.thinking {
                    self.acc.delivered = true;
                    sink.on_thinking(&t);
                }
            }
            "input_json_delta" => {
                let part = d.delta.partial_json.map(|p| p.0).unwrap_or_default();
                match self.blocks.get_mut(d.index) {
                    Some(Block::Tool(i)) => {
                        let i = *i;
                        if let Some(c) = self.acc.calls.get_mut(i) {
                            c.arguments.push_str(&part);
                        }
                    }
                    Some(Block::Server(_, input)) => input.push_str(&part),
                    _ => {
                        return Err(malformed(
                            &self.cfg,
                            &format!(
                                "`input_json_delta` for content block {} which is not a tool use",
                                d.index
                            ),
                        ))
                    }
                }
            }
            _ => {} // signature_delta, citations_delta
        }
        Ok(())
    }

    fn block_stop(&mut self, index: usize, sink: &mut dyn StreamSink) {
        if let Some(Block::Server(name, input)) = self.blocks.get(index) {
            let value: Value = if input.trim().is_empty() {
                json!({})
            } else {
                serde_json::from_str(input).unwrap_or_else(|_| Value::String(input.clone()))
            };
            self.acc.delivered = true;
            sink.on_server_tool(name, &value);
        }
    }

    fn stream_error(&self, e: ErrorBody) -> RobotaError {
        let text = format!("{} stream error {}: {}", who(&self.cfg), e.kind, e.message);
        match e.kind.as_str() {
            "authentication_error" | "permission_error" => RobotaError::Authentication(text),
            "rate_limit_error" => RobotaError::RateLimit {
                message: text,
                retry_after: None,
            },
            "not_found_error" => RobotaError::ModelNotAvailable {
                model: self.model.clone(),
                provider: self.cfg.name.clone(),
            },
            "invalid_request_error" => RobotaError::Provider {
                provider: self.cfg.name.clone(),
                message: text,
                status: None,
                recoverable: false,
            },
            _ => RobotaError::Provider {
                provider: self.cfg.name.clone(),
                message: text,
                status: None,
                recoverable: true,
            },
        }
    }
}

impl StreamDecoder for AnthropicDecoder {
    fn event(&mut self, ev: SseEvent<'_>, sink: &mut dyn StreamSink) -> Result<(), RobotaError> {
        let owned_kind;
        let kind: &str = if ev.event.is_empty() || ev.event == "message" {
            owned_kind = self
                .parse::<Typed<'_>>("message", ev.data)?
                .kind
                .0
                .into_owned();
            &owned_kind
        } else {
            ev.event
        };
        match kind {
            "content_block_delta" => {
                if let Some((index, text)) = fast_text_delta(ev.data) {
                    if matches!(self.blocks.get(index), Some(Block::Text)) {
                        if !text.is_empty() {
                            self.acc.content.push_str(&text);
                            self.acc.delivered = true;
                            sink.on_text(&text);
                        }
                        return Ok(());
                    }
                }
                let d: BlockDelta<'_> = self.parse(kind, ev.data)?;
                self.block_delta(d, sink)?;
            }
            "message_start" => {
                let s: MessageStart = self.parse(kind, ev.data)?;
                if let Some(u) = s.message.usage {
                    self.apply_usage(u);
                }
            }
            "content_block_start" => {
                let b: BlockStart = self.parse(kind, ev.data)?;
                self.block_start(b, sink);
            }
            "content_block_stop" => {
                let b: BlockStop = self.parse(kind, ev.data)?;
                self.block_stop(b.index, sink);
            }
            "message_delta" => {
                let d: MessageDelta = self.parse(kind, ev.data)?;
                if let Some(u) = d.usage {
                    self.apply_usage(u);
                }
                if let Some(r) = d.delta.stop_reason {
                    self.acc.stop = Some(match r.as_str() {
                        "end_turn" | "stop_sequence" => StopReason::EndTurn,
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" => StopReason::MaxTokens,
                        _ => StopReason::Other,
                    });
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let e: ErrorEvent = self.parse(kind, ev.data)?;
                return Err(self.stream_error(e.error));
            }
            _ => {} // ping and future event types
        }
        Ok(())
    }

    fn delivered(&self) -> bool {
        self.acc.delivered
    }

    fn complete(&self) -> bool {
        self.stopped
    }

    fn end_marker(&self) -> &'static str {
        "message_stop"
    }

    fn reset(&mut self) {
        self.acc.reset();
        self.blocks.clear();
        self.stopped = false;
    }
}

#[async_trait]
impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        &self.http.config().name
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
        let body = request_body(cfg, &request);
        let mut decoder = AnthropicDecoder::new(cfg.clone(), request.model);
        let outcome = self
            .http
            .stream(
                &self.url,
                AuthStyle::XApiKey,
                &body,
                request.model,
                API_SURFACE,
                &mut decoder,
                sink,
                &cancel,
            )
            .await?;
        Ok(decoder.acc.into_response(outcome == StreamOutcome::Aborted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_path_matches_only_the_exact_shapes() {
        let f = |s: &str| fast_text_delta(s).map(|(i, t)| (i, t.into_owned()));
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"Hi there"}}"#
            ),
            Some((3, "Hi there".to_string()))
        );
        assert!(matches!(
            fast_text_delta(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"plain"}}"#
            ),
            Some((0, std::borrow::Cow::Borrowed("plain")))
        ));
        assert_eq!(
            f(
                r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a\n\"b\" \u00e9\\"}}"#
            ),
            Some((0, "a\n\"b\" é\\".to_string()))
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#
            ),
            Some((0, String::new()))
        );
        // Other shapes fall back to the full decoder.
        assert_eq!(
            f(
                r#"{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}"#
            ),
            None
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}"#
            ),
            None
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"x"}}"#
            ),
            None
        );
        assert_eq!(
            f(r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x\"#),
            None
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}"#
            ),
            None
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"x"}}"#
            ),
            None
        );
        assert_eq!(f("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\nb\"}}"), None);
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\é"}}"#
            ),
            None
        );
    }

    #[test]
    fn fast_and_full_paths_agree() {
        let cfg = HttpProviderConfig::parse(
            "a",
            super::super::config::ProviderKind::Anthropic,
            &json!({}),
        )
        .unwrap();
        struct S(String);
        impl StreamSink for S {
            fn on_text(&mut self, d: &str) {
                self.0.push_str(d);
            }
        }
        for text in ["plain", r#"esc\n\"q\""#, r"\u00e9t\u00e9", ""] {
            let mut d = AnthropicDecoder::new(cfg.clone(), "m");
            let mut sink = S(String::new());
            let start = r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#;
            d.event(
                SseEvent {
                    event: "content_block_start",
                    data: start,
                    id: "",
                },
                &mut sink,
            )
            .unwrap();
            for data in [
                format!(
                    r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{text}"}}}}"#
                ),
                format!(
                    r#"{{"delta":{{"text":"{text}","type":"text_delta"}},"index":0,"type":"content_block_delta"}}"#
                ),
            ] {
                d.event(
                    SseEvent {
                        event: "content_block_delta",
                        data: &data,
                        id: "",
                    },
                    &mut sink,
                )
                .unwrap();
            }
            let want: String = serde_json::from_str(&format!("\"{text}\"")).unwrap();
            assert_eq!(sink.0, format!("{want}{want}"));
            assert_eq!(d.acc.content, sink.0);
        }
    }
}
