//! The OpenAI Chat Completions stream decoder: `data: {chunk}` lines into text, refusal,
//! reasoning and tool-call deltas, the finish reason and usage (wire shapes borrowed, no copy).

use std::sync::Arc;

use serde_json::{json, Value};

use super::super::config::HttpProviderConfig;
use super::super::convert::{Accumulated, PartialCall};
use super::super::errors::{malformed, redact, vendor_message, who};
use super::super::http::StreamDecoder;
use super::super::sse::SseEvent;
use crate::core::errors::RobotaError;
use crate::core::provider::{StopReason, StreamSink};

use super::fast_path::fast_chunk;
use super::wire::{Chunk, ToolCallDelta};

/// Decodes Chat Completions chunks.
pub struct OpenAiDecoder {
    cfg: Arc<HttpProviderConfig>,
    /// Accumulated response.
    pub acc: Accumulated,
    /// `tool_calls[].index` → position in `acc.calls`.
    slots: Vec<(usize, usize)>,
    /// `delta.refusal` text came: the answer is a refusal.
    refused: bool,
    done: bool,
    /// The leading members the fast path read in the last chunk (see [`fast_chunk`]).
    prefix: String,
}

impl OpenAiDecoder {
    /// A decoder for one call (`cfg` owned or shared: it is only read for error texts).
    pub fn new(cfg: impl Into<Arc<HttpProviderConfig>>) -> Self {
        OpenAiDecoder {
            cfg: cfg.into(),
            acc: Accumulated::default(),
            slots: Vec::new(),
            refused: false,
            done: false,
            prefix: String::new(),
        }
    }

    fn tool_delta(&mut self, t: ToolCallDelta<'_>) {
        let pos = match t.index {
            Some(index) => match self.slots.iter().find(|(i, _)| *i == index) {
                Some((_, p)) => *p,
                None => {
                    self.acc.calls.push(PartialCall::default());
                    self.slots.push((index, self.acc.calls.len() - 1));
                    self.acc.calls.len() - 1
                }
            },
            // Servers that omit `index`: a new id starts a new call, else continue the last.
            None => match (&t.id, self.acc.calls.last()) {
                (None, Some(_)) => self.acc.calls.len() - 1,
                (Some(id), Some(last)) if last.id == *id => self.acc.calls.len() - 1,
                _ => {
                    self.acc.calls.push(PartialCall::default());
                    self.acc.calls.len() - 1
                }
            },
        };
        let call = &mut self.acc.calls[pos];
        if let Some(id) = t.id.filter(|s| !s.is_empty()) {
            call.id = id;
        }
        if let Some(f) = t.function {
            if let Some(n) = f.name.filter(|s| !s.is_empty()) {
                call.name = n;
            }
            if let Some(a) = f.arguments {
                call.arguments.push_str(&a);
            }
        }
    }
}

impl StreamDecoder for OpenAiDecoder {
    fn event(&mut self, ev: SseEvent<'_>, sink: &mut dyn StreamSink) -> Result<(), RobotaError> {
        let data = ev.data.trim_end();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        // The compact common shapes without serde; any other shape, and every error, by serde.
        let chunk: Chunk<'_> = match fast_chunk(data, &mut self.prefix) {
            Some(chunk) => chunk,
            None => serde_json::from_str(data)
                .map_err(|e| malformed(&self.cfg, &format!("bad JSON in a chunk: {e}")))?,
        };
        if let Some(err) = chunk.error {
            let message = redact(&vendor_message(&json!({"error": err}).to_string()), None);
            return Err(RobotaError::Provider {
                provider: self.cfg.name.clone(),
                message: format!("{} stream error: {message}", who(&self.cfg)),
                status: None,
                recoverable: true,
            });
        }
        if let Some(choice) = chunk.choices {
            if let Some(d) = choice.delta {
                if let Some(r) = d.reasoning_content.or(d.reasoning) {
                    if !r.is_empty() {
                        self.acc.delivered = true;
                        sink.on_thinking(&r);
                    }
                }
                // A refusal is the answer's text, streamed like content.
                for (c, refusal) in [(d.content, false), (d.refusal, true)] {
                    if let Some(c) = c.filter(|c| !c.is_empty()) {
                        self.refused |= refusal;
                        self.acc.content.push_str(&c);
                        self.acc.delivered = true;
                        sink.on_text(&c);
                    }
                }
                for t in d.tool_calls.into_iter().flatten() {
                    self.tool_delta(t);
                }
            }
            if let Some(r) = choice.finish_reason {
                self.acc.stop = Some(match &*r {
                    "stop" if self.refused => StopReason::Refusal,
                    "stop" => StopReason::EndTurn,
                    "tool_calls" | "function_call" => StopReason::ToolUse,
                    "length" => StopReason::MaxTokens,
                    _ => StopReason::Other,
                });
            }
        }
        if let Some(u) = chunk.usage {
            let usage = self.acc.usage_mut();
            let cached = u.prompt_tokens_details.and_then(|d| d.cached_tokens);
            usage.set_prompt(u.prompt_tokens, cached.unwrap_or(0));
            usage.output_tokens = u.completion_tokens;
            usage.total_tokens = u.total_tokens;
        }
        Ok(())
    }

    fn accumulated(&self) -> &Accumulated {
        &self.acc
    }

    fn done(&self) -> bool {
        self.done
    }

    fn stop_marker(&self) -> &'static str {
        "finish_reason"
    }

    fn whole_response(&self, body: Value) -> Vec<crate::providers::whole::WholeEvent> {
        crate::providers::whole::openai(body)
    }

    fn reset(&mut self) {
        self.acc.reset();
        self.slots.clear();
        self.refused = false;
        self.done = false;
        self.prefix.clear();
    }
}
