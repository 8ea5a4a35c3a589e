//! Decodes the Anthropic Messages event stream: `message_start` (input usage),
//! `content_block_start` / `_delta` / `_stop` (text, tool use, thinking, server tools and any
//! future block type), `message_delta` (stop reason, usage), `message_stop`, `ping`, `error`.
//!
//! Blocks must start in index order and deltas / stops must name a started, still open block;
//! anything else is a malformed stream. Blocks the universal message cannot hold (server-tool
//! use and results, unknown types) are kept, in order with the text and tool-use blocks, as the
//! response's [`crate::core::message::NativeContent`] so the next request sends them back verbatim.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::blocks::{kind_label, native_content, parse_input, Block, Kind};
use super::fast_path::{fast_block_stop, fast_input_json_delta, fast_text_delta};
use super::wire::{
    BlockDelta, BlockStart, BlockStop, ErrorBody, ErrorEvent, MessageDelta, MessageStart,
    PlainBlockStart, Typed, Usage,
};
use crate::core::errors::RobotaError;
use crate::core::provider::{ChatResponse, StopReason, StreamSink};
use crate::providers::config::HttpProviderConfig;
use crate::providers::convert::{Accumulated, JsonStr, PartialCall};
use crate::providers::errors::{malformed, who};
use crate::providers::http::StreamDecoder;
use crate::providers::sse::SseEvent;

/// Decodes Anthropic stream events.
pub struct AnthropicDecoder {
    cfg: Arc<HttpProviderConfig>,
    model: String,
    /// Accumulated response.
    pub acc: Accumulated,
    blocks: Vec<Block>,
    stopped: bool,
}

impl AnthropicDecoder {
    /// A decoder for one call (`cfg` owned or shared: it is only read for error texts).
    pub fn new(cfg: impl Into<Arc<HttpProviderConfig>>, model: &str) -> Self {
        AnthropicDecoder {
            cfg: cfg.into(),
            model: model.to_string(),
            acc: Accumulated::default(),
            blocks: Vec::new(),
            stopped: false,
        }
    }

    /// The response; vendor blocks the universal fields cannot hold go to `native`.
    pub fn into_response(self, aborted: bool) -> ChatResponse {
        let native = if aborted {
            None
        } else {
            native_content(&self.blocks, &self.acc.content, &self.acc.calls)
        };
        let mut r = self.acc.into_response(aborted);
        r.native = native;
        r
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

    /// Checks that `index` is the next block (blocks start in order).
    fn check_next(&self, index: usize) -> Result<(), RobotaError> {
        if index == self.blocks.len() {
            return Ok(());
        }
        Err(malformed(
            &self.cfg,
            &format!(
                "content block {} started out of order (expected block {})",
                index,
                self.blocks.len()
            ),
        ))
    }

    /// Opens block `index` of `kind`, streaming the text it starts with.
    fn open_block(&mut self, index: usize, kind: Kind, initial: &str, sink: &mut dyn StreamSink) {
        self.blocks.push(Block { kind, open: true });
        if !initial.is_empty() {
            self.push_text(index, initial, sink);
        }
    }

    /// Opens a tool-use block.
    fn open_tool(&mut self, id: String, name: String, arguments: String) -> Kind {
        self.acc.calls.push(PartialCall {
            id,
            name,
            arguments,
        });
        Kind::Tool(self.acc.calls.len() - 1)
    }

    /// A text or tool-use block start in the plain shape (no `Map` of the block is built);
    /// `Ok(false)` when it is neither, and the full [`BlockStart`] must be read.
    fn plain_block_start(
        &mut self,
        b: PlainBlockStart<'_>,
        sink: &mut dyn StreamSink,
    ) -> Result<bool, RobotaError> {
        let owned = |v: Option<JsonStr<'_>>| v.map(|s| s.0.into_owned()).unwrap_or_default();
        let block = b.content_block;
        if !matches!(&*block.kind, "text" | "tool_use") {
            return Ok(false);
        }
        self.check_next(b.index)?;
        let (kind, initial) = if &*block.kind == "text" {
            let kind = Kind::Text {
                ranges: Vec::new(),
                citations: Vec::new(),
            };
            (kind, block.text)
        } else {
            let tool = self.open_tool(owned(block.id), owned(block.name), String::new());
            (tool, None)
        };
        self.open_block(b.index, kind, initial.as_deref().unwrap_or(""), sink);
        Ok(true)
    }

    fn block_start(&mut self, b: BlockStart, sink: &mut dyn StreamSink) -> Result<(), RobotaError> {
        self.check_next(b.index)?;
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
            "thinking" => (
                Kind::Thinking {
                    text: text(block.remove("thinking")),
                    signature: text(block.remove("signature")),
                },
                String::new(),
            ),
            "tool_use" => {
                let arguments = match block.remove("input") {
                    Some(Value::Object(m)) if !m.is_empty() => Value::Object(m).to_string(),
                    _ => String::new(),
                };
                let (id, name) = (text(block.remove("id")), text(block.remove("name")));
                (self.open_tool(id, name, arguments), String::new())
            }
            _ => (
                Kind::Native {
                    block,
                    input: String::new(),
                },
                String::new(),
            ),
        };
        self.open_block(b.index, kind, &initial, sink);
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
                    if let Kind::Thinking { text, .. } = &mut self.blocks[index].kind {
                        text.push_str(&t);
                    }
                    self.acc.delivered = true;
                    sink.on_thinking(&t);
                }
            }
            "signature_delta" => {
                if let (Kind::Thinking { signature, .. }, Some(sig)) =
                    (&mut self.blocks[index].kind, d.delta.signature)
                {
                    signature.push_str(&sig);
                }
            }
            "input_json_delta" => {
                let part = d.delta.partial_json.map(|p| p.0).unwrap_or_default();
                if !self.push_input(index, &part) {
                    return Err(wrong(&self.cfg));
                }
            }
            _ => {} // future delta types
        }
        Ok(())
    }

    /// Appends streamed input JSON to open tool-use or native block `index`; false (nothing
    /// done) for any other block, left to [`Self::block_delta`] and its errors.
    fn push_input(&mut self, index: usize, part: &str) -> bool {
        match self.blocks.get_mut(index) {
            Some(Block {
                kind: Kind::Tool(i),
                open: true,
            }) => {
                if let Some(c) = self.acc.calls.get_mut(*i) {
                    c.arguments.push_str(part);
                }
                true
            }
            Some(Block {
                kind: Kind::Native { input, .. },
                open: true,
            }) => {
                input.push_str(part);
                true
            }
            _ => false,
        }
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
                if let Some((index, part)) = fast_input_json_delta(ev.data) {
                    if self.push_input(index, &part) {
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
                let plain = match serde_json::from_str::<PlainBlockStart<'_>>(ev.data) {
                    Ok(b) => self.plain_block_start(b, sink)?,
                    Err(_) => false,
                };
                if !plain {
                    let b: BlockStart = self.parse(kind, ev.data)?;
                    self.block_start(b, sink)?;
                }
            }
            "content_block_stop" => {
                let index = match fast_block_stop(ev.data) {
                    Some(index) => index,
                    None => self.parse::<BlockStop>(kind, ev.data)?.index,
                };
                self.block_stop(index, sink)?;
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

    fn accumulated(&self) -> &Accumulated {
        &self.acc
    }

    fn done(&self) -> bool {
        self.stopped
    }

    fn stop_marker(&self) -> &'static str {
        "message_delta.stop_reason"
    }

    fn whole_response(&self, body: Value) -> Vec<crate::providers::whole::WholeEvent> {
        crate::providers::whole::anthropic(body)
    }

    fn reset(&mut self) {
        self.acc.reset();
        self.blocks.clear();
        self.stopped = false;
    }
}
