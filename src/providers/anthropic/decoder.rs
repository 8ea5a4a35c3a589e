//! Decodes the Anthropic Messages event stream: `message_start` (input usage),
//! `content_block_start` / `_delta` / `_stop` (text, tool use, thinking, server tools and any
//! future block type), `message_delta` (stop reason, usage), `message_stop`, `ping`, `error`.
//!
//! Blocks must start in index order and deltas / stops must name a started, still open block;
//! anything else is a malformed stream. Blocks the universal message cannot hold (server-tool
//! use and results, unknown types) are kept, in order with the text and tool-use blocks, as the
//! response's [`NativeContent`] so the next request sends them back verbatim.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::fast_path::fast_text_delta;
use super::API_SURFACE;
use crate::core::errors::RobotaError;
use crate::core::message::NativeContent;
use crate::core::provider::{ChatResponse, StopReason, StreamSink};
use crate::providers::config::HttpProviderConfig;
use crate::providers::convert::{args_object, Accumulated, JsonStr, PartialCall};
use crate::providers::errors::{malformed, who};
use crate::providers::http::StreamDecoder;
use crate::providers::sse::SseEvent;

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
    content_block: Map<String, Value>,
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
    #[serde(default)]
    citation: Option<Value>,
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

/// What a content block holds.
#[derive(Debug)]
enum Kind {
    /// Text: the byte ranges of the accumulated content its deltas filled (one range unless
    /// blocks interleave) and the citations of its `citations_delta`s.
    Text {
        ranges: Vec<(usize, usize)>,
        citations: Vec<Value>,
    },
    Thinking,
    /// Index into `acc.calls`.
    Tool(usize),
    /// Any other block (server-tool use and results, future types) as it started, with the
    /// input JSON its `input_json_delta`s streamed.
    Native {
        block: Map<String, Value>,
        input: String,
    },
}

#[derive(Debug)]
struct Block {
    kind: Kind,
    open: bool,
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

    /// The response; vendor blocks the universal fields cannot hold go to `native`.
    pub fn into_response(self, aborted: bool) -> ChatResponse {
        let native = if aborted { None } else { self.native() };
        let mut r = self.acc.into_response(aborted);
        r.native = native;
        r
    }

    /// Every block in order when at least one of them is a native-only block.
    fn native(&self) -> Option<NativeContent> {
        if !self
            .blocks
            .iter()
            .any(|b| matches!(b.kind, Kind::Native { .. }))
        {
            return None;
        }
        let mut blocks = Vec::with_capacity(self.blocks.len());
        for b in &self.blocks {
            match &b.kind {
                Kind::Text { ranges, citations } => {
                    let text: String = ranges
                        .iter()
                        .filter_map(|&(s, e)| self.acc.content.get(s..e))
                        .collect();
                    if text.is_empty() {
                        continue; // the API rejects empty text blocks
                    }
                    let mut block = json!({"type": "text", "text": text});
                    if !citations.is_empty() {
                        block["citations"] = Value::Array(citations.clone());
                    }
                    blocks.push(block);
                }
                Kind::Thinking => {}
                Kind::Tool(i) => {
                    if let Some(c) = self.acc.calls.get(*i) {
                        blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name,
                                           "input": args_object(&c.arguments)}));
                    }
                }
                Kind::Native { block, input } => blocks.push(finish_native(block, input)),
            }
        }
        Some(NativeContent {
            format: API_SURFACE.to_string(),
            blocks,
        })
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

    /// Checks that block `index` started and has not stopped (else a malformed stream).
    fn check_open(&self, index: usize, event: &str) -> Result<(), RobotaError> {
        match self.blocks.get(index) {
            Some(b) if b.open => Ok(()),
            Some(_) => Err(malformed(
                &self.cfg,
                &format!("`{event}` for content block {index}, which already stopped"),
            )),
            None => Err(malformed(
                &self.cfg,
                &format!("`{event}` for content block {index}, which never started"),
            )),
        }
    }

    fn push_text(&mut self, index: usize, text: &str, sink: &mut dyn StreamSink) {
        let start = self.acc.content.len();
        self.acc.content.push_str(text);
        let end = self.acc.content.len();
        self.acc.delivered = true;
        if let Some(Block {
            kind: Kind::Text { ranges, .. },
            ..
        }) = self.blocks.get_mut(index)
        {
            match ranges.last_mut() {
                Some((_, e)) if *e == start => *e = end,
                _ => ranges.push((start, end)),
            }
        }
        sink.on_text(text);
    }

    fn block_start(&mut self, b: BlockStart, sink: &mut dyn StreamSink) -> Result<(), RobotaError> {
        if b.index != self.blocks.len() {
            return Err(malformed(
                &self.cfg,
                &format!(
                    "content block {} started out of order (expected block {})",
                    b.index,
                    self.blocks.len()
                ),
            ));
        }
        let mut block = b.content_block;
        let text = |v: Option<Value>| match v {
            Some(Value::String(s)) => s,
            _ => String::new(),
        };
        let (kind, initial) = match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => (
                Kind::Text {
                    ranges: Vec::new(),
                    citations: Vec::new(),
                },
                text(block.remove("text")),
            ),
            "thinking" | "redacted_thinking" => (Kind::Thinking, String::new()),
            "tool_use" => {
                let arguments = match block.remove("input") {
                    Some(Value::Object(m)) if !m.is_empty() => Value::Object(m).to_string(),
                    _ => String::new(),
                };
                self.acc.calls.push(PartialCall {
                    id: text(block.remove("id")),
                    name: text(block.remove("name")),
                    arguments,
                });
                (Kind::Tool(self.acc.calls.len() - 1), String::new())
            }
            _ => (
                Kind::Native {
                    block,
                    input: String::new(),
                },
                String::new(),
            ),
        };
        self.blocks.push(Block { kind, open: true });
        if !initial.is_empty() {
            self.push_text(b.index, &initial, sink);
        }
        Ok(())
    }

    fn block_delta(
        &mut self,
        d: BlockDelta<'_>,
        sink: &mut dyn StreamSink,
    ) -> Result<(), RobotaError> {
        let index = d.index;
        self.check_open(index, "content_block_delta")?;
        let delta_kind = &*d.delta.kind;
        let label = kind_label(&self.blocks[index].kind);
        let wrong = |cfg: &HttpProviderConfig| {
            malformed(
                cfg,
                &format!("`{delta_kind}` for content block {index}, which is a {label} block"),
            )
        };
        match delta_kind {
            "text_delta" => {
                if label != "text" {
                    return Err(wrong(&self.cfg));
                }
                if let Some(t) = d.delta.text.filter(|t| !t.is_empty()) {
                    self.push_text(index, &t, sink);
                }
            }
            "citations_delta" => match (&mut self.blocks[index].kind, d.delta.citation) {
                (Kind::Text { citations, .. }, Some(c)) => citations.push(c),
                (Kind::Text { .. }, None) => {}
                _ => return Err(wrong(&self.cfg)),
            },
            "thinking_delta" => {
                if let Some(t) = d.delta.thinking {
                    self.acc.delivered = true;
                    sink.on_thinking(&t);
                }
            }
            "input_json_delta" => {
                let part = d.delta.partial_json.map(|p| p.0).unwrap_or_default();
                match &mut self.blocks[index].kind {
                    Kind::Tool(i) => {
                        if let Some(c) = self.acc.calls.get_mut(*i) {
                            c.arguments.push_str(&part);
                        }
                    }
                    Kind::Native { input, .. } => input.push_str(&part),
                    _ => return Err(wrong(&self.cfg)),
                }
            }
            _ => {} // signature_delta and future delta types
        }
        Ok(())
    }

    fn block_stop(&mut self, index: usize, sink: &mut dyn StreamSink) -> Result<(), RobotaError> {
        self.check_open(index, "content_block_stop")?;
        let block = &mut self.blocks[index];
        block.open = false;
        if let Kind::Native { block, input } = &block.kind {
            let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
            if let (true, Some(name)) = (
                kind.ends_with("tool_use"),
                block.get("name").and_then(Value::as_str),
            ) {
                let value = parse_input(block, input);
                self.acc.delivered = true;
                sink.on_server_tool(name, &value);
            }
        }
        Ok(())
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

fn kind_label(kind: &Kind) -> &'static str {
    match kind {
        Kind::Text { .. } => "text",
        Kind::Thinking => "thinking",
        Kind::Tool(_) => "tool_use",
        Kind::Native { .. } => "server or unknown",
    }
}

/// A native block's input: the streamed JSON when any came (kept as a string when it does not
/// parse), else the input it started with, else `{}`.
fn parse_input(block: &Map<String, Value>, input: &str) -> Value {
    if input.trim().is_empty() {
        return block.get("input").cloned().unwrap_or_else(|| json!({}));
    }
    serde_json::from_str(input).unwrap_or_else(|_| Value::String(input.to_string()))
}

/// A native block as it is sent back: as started, with its streamed input (if it has one).
fn finish_native(block: &Map<String, Value>, input: &str) -> Value {
    let mut out = block.clone();
    if !input.trim().is_empty() || out.contains_key("input") {
        out.insert("input".into(), parse_input(block, input));
    }
    Value::Object(out)
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
                    if let Some(Block {
                        kind: Kind::Text { .. },
                        open: true,
                    }) = self.blocks.get(index)
                    {
                        if !text.is_empty() {
                            self.push_text(index, &text, sink);
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
                self.block_start(b, sink)?;
            }
            "content_block_stop" => {
                let b: BlockStop = self.parse(kind, ev.data)?;
                self.block_stop(b.index, sink)?;
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
                        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
                        "refusal" => StopReason::Refusal,
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

    /// `message_stop`, or the final `message_delta` with its stop reason: the official SDKs
    /// accept a stream that closes right after it.
    fn complete(&self) -> bool {
        self.stopped || self.acc.stop.is_some()
    }

    fn done(&self) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::config::ProviderKind;

    struct S(String);
    impl StreamSink for S {
        fn on_text(&mut self, d: &str) {
            self.0.push_str(d);
        }
    }

    fn cfg() -> HttpProviderConfig {
        HttpProviderConfig::parse("a", ProviderKind::Anthropic, &json!({})).unwrap()
    }

    fn feed(d: &mut AnthropicDecoder, sink: &mut S, event: &str, data: &str) -> Result<(), String> {
        d.event(
            SseEvent {
                event,
                data,
                id: "",
            },
            sink,
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn fast_and_full_paths_agree() {
        for text in ["plain", r#"esc\n\"q\""#, r"\u00e9t\u00e9", ""] {
            let mut d = AnthropicDecoder::new(cfg(), "m");
            let mut sink = S(String::new());
            let start = r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#;
            feed(&mut d, &mut sink, "content_block_start", start).unwrap();
            for data in [
                format!(
                    r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{text}"}}}}"#
                ),
                format!(
                    r#"{{"delta":{{"text":"{text}","type":"text_delta"}},"index":0,"type":"content_block_delta"}}"#
                ),
            ] {
                feed(&mut d, &mut sink, "content_block_delta", &data).unwrap();
            }
            let want: String = serde_json::from_str(&format!("\"{text}\"")).unwrap();
            assert_eq!(sink.0, format!("{want}{want}"));
            assert_eq!(d.acc.content, sink.0);
        }
    }

    #[test]
    fn interleaved_text_blocks_keep_their_own_text() {
        let mut d = AnthropicDecoder::new(cfg(), "m");
        let mut sink = S(String::new());
        let start = |i: usize, t: &str| {
            format!(r#"{{"type":"content_block_start","index":{i},"content_block":{t}}}"#)
        };
        let text = |i: usize, t: &str| {
            format!(
                r#"{{"type":"content_block_delta","index":{i},"delta":{{"type":"text_delta","text":"{t}"}}}}"#
            )
        };
        let f =
            |d: &mut AnthropicDecoder, s: &mut S, e: &str, x: String| feed(d, s, e, &x).unwrap();
        f(
            &mut d,
            &mut sink,
            "content_block_start",
            start(0, r#"{"type":"text","text":"A"}"#),
        );
        f(
            &mut d,
            &mut sink,
            "content_block_start",
            start(
                1,
                r#"{"type":"web_search_tool_result","tool_use_id":"s","content":[]}"#,
            ),
        );
        f(
            &mut d,
            &mut sink,
            "content_block_start",
            start(2, r#"{"type":"text","text":""}"#),
        );
        f(&mut d, &mut sink, "content_block_delta", text(2, "b"));
        f(&mut d, &mut sink, "content_block_delta", text(0, "a"));
        f(&mut d, &mut sink, "content_block_delta", text(2, "c"));
        assert_eq!(sink.0, "Abac");
        let n = d.into_response(false).native.unwrap();
        assert_eq!(
            n.blocks,
            vec![
                json!({"type":"text","text":"Aa"}),
                json!({"type":"web_search_tool_result","tool_use_id":"s","content":[]}),
                json!({"type":"text","text":"bc"}),
            ]
        );
    }
}
