//! Decodes the Anthropic Messages event stream: `message_start` (input usage),
//! `content_block_start` / `_delta` / `_stop` (text, tool use, thinking, server tools and any
//! future block type), `message_delta` (stop reason, usage), `message_stop`, `ping`, `error`.
//!
//! Blocks must start in index order and deltas / stops must name a started, still open block;
//! anything else is a malformed stream. Blocks the universal message cannot hold (server-tool
//! use and results, unknown types) are kept, in order with the text and tool-use blocks, as the
//! response's [`crate::core::message::NativeContent`] so the next request sends them back verbatim.
//! The content-block events are applied in `block_events`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::blocks::{native_content, Block, Kind};
use super::fast_path::{fast_block_stop, fast_input_json_delta, fast_text_delta};
use super::wire::{
    BlockDelta, BlockStart, BlockStop, ErrorBody, ErrorEvent, MessageDelta, MessageStart,
    PlainBlockStart, Typed, Usage,
};
use crate::core::errors::RobotaError;
use crate::core::provider::{ChatResponse, StopReason, StreamSink};
use crate::providers::config::HttpProviderConfig;
use crate::providers::convert::Accumulated;
use crate::providers::errors::{malformed, who};
use crate::providers::http::StreamDecoder;
use crate::providers::sse::SseEvent;

mod block_events;

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
