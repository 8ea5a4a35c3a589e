//! The Responses API stream decoder. Each event's `data` is a JSON object whose `type` names
//! it (the `event:` line repeats it):
//!
//! - `response.output_text.delta` → text; `response.refusal.delta` → text, and the answer is a
//!   refusal;
//! - `response.reasoning_summary_text.delta` (and `response.reasoning_text.delta`, the raw
//!   reasoning some servers stream) → thinking, summary parts separated by a blank line;
//! - `response.output_item.added` of type `function_call` starts a call (`call_id`, `name`),
//!   `response.function_call_arguments.delta` / `.done` fill its arguments (by `item_id`),
//!   `response.output_item.done` gives the finished item (a reasoning item is kept for the
//!   history with its `encrypted_content`);
//! - `response.completed` / `response.incomplete` end the answer with usage and the stop
//!   reason (`incomplete_details.reason`: `max_output_tokens` → max tokens, `content_filter` →
//!   refusal); `response.failed` and `error` are errors of the taxonomy.

use std::sync::Arc;

use serde_json::{json, Value};

use super::NATIVE_FORMAT;
use crate::core::errors::RobotaError;
use crate::core::message::NativeContent;
use crate::core::provider::{ChatResponse, StopReason, StreamSink};
use crate::providers::config::HttpProviderConfig;
use crate::providers::convert::{Accumulated, PartialCall};
use crate::providers::errors::{malformed, redact, who};
use crate::providers::http::StreamDecoder;
use crate::providers::sse::SseEvent;
use crate::providers::whole::WholeEvent;

/// Decodes one streamed Responses API answer.
pub struct ResponsesDecoder {
    cfg: Arc<HttpProviderConfig>,
    model: String,
    /// Accumulated response.
    pub acc: Accumulated,
    /// `item_id` of each function call → its position in `acc.calls`.
    call_items: Vec<(String, usize)>,
    /// The output items in order: reasoning items whole, the others as `{"type"}` markers
    /// (function calls with their `call_id`), for [`NativeContent`].
    items: Vec<Value>,
    refused: bool,
    done: bool,
}

impl ResponsesDecoder {
    /// A decoder for one call of `model`.
    pub fn new(cfg: impl Into<Arc<HttpProviderConfig>>, model: &str) -> Self {
        ResponsesDecoder {
            cfg: cfg.into(),
            model: model.to_string(),
            acc: Accumulated::default(),
            call_items: Vec::new(),
            items: Vec::new(),
            refused: false,
            done: false,
        }
    }

    /// The response; the reasoning items (with the order of all items) go to `native`.
    pub fn into_response(self, aborted: bool) -> ChatResponse {
        let native = (!aborted
            && self
                .items
                .iter()
                .any(|i| i.get("type").and_then(Value::as_str) == Some("reasoning")))
        .then(|| NativeContent {
            format: NATIVE_FORMAT.to_string(),
            blocks: self.items,
        });
        let mut r = self.acc.into_response(aborted);
        r.native = native;
        r
    }

    fn text(&mut self, delta: &str, refusal: bool, sink: &mut dyn StreamSink) {
        if delta.is_empty() {
            return;
        }
        self.refused |= refusal;
        self.acc.content.push_str(delta);
        self.acc.delivered = true;
        sink.on_text(delta);
    }

    fn thinking(&mut self, delta: &str, sink: &mut dyn StreamSink) {
        if !delta.is_empty() {
            self.acc.delivered = true;
            sink.on_thinking(delta);
        }
    }

    /// The call a `function_call_arguments` event belongs to.
    fn call_of(&mut self, data: &Value) -> Option<&mut PartialCall> {
        let item_id = data.get("item_id").and_then(Value::as_str)?;
        let pos = self.call_items.iter().find(|(id, _)| id == item_id)?.1;
        self.acc.calls.get_mut(pos)
    }

    /// A `function_call` item (added or done): its call, created on first sight.
    fn function_call(&mut self, item: &Value, done: bool) {
        let item_id = str_field(item, "id");
        let pos = match self.call_items.iter().find(|(id, _)| id == item_id) {
            Some((_, pos)) => *pos,
            None => {
                self.acc.calls.push(PartialCall::default());
                let pos = self.acc.calls.len() - 1;
                self.call_items.push((item_id.to_string(), pos));
                pos
            }
        };
        let call = &mut self.acc.calls[pos];
        for (field, value) in [("call_id", &mut call.id), ("name", &mut call.name)] {
            let v = str_field(item, field);
            if !v.is_empty() {
                *value = v.to_string();
            }
        }
        let args = str_field(item, "arguments");
        if done || !args.is_empty() {
            call.arguments = args.to_string();
        }
    }

    fn item_done(&mut self, item: &Value) {
        match str_field(item, "type") {
            "function_call" => {
                self.function_call(item, true);
                self.items
                    .push(json!({"type": "function_call", "call_id": item.get("call_id")}));
            }
            "reasoning" => self.items.push(item.clone()),
            other => self.items.push(json!({ "type": other })),
        }
    }

    /// `response.completed` / `response.incomplete`: usage and the stop reason.
    fn finish(&mut self, response: &Value, incomplete: bool) {
        if let Some(u) = response.get("usage").filter(|u| u.is_object()) {
            let usage = self.acc.usage_mut();
            // `input_tokens` includes the cached part: split as for every vendor.
            usage.set_prompt(
                u64_at(u, "/input_tokens"),
                u64_at(u, "/input_tokens_details/cached_tokens"),
            );
            usage.output_tokens = u64_at(u, "/output_tokens");
            usage.total_tokens = u.get("total_tokens").and_then(Value::as_u64);
        }
        let reason = response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str);
        self.acc.stop = Some(match (incomplete, reason) {
            (true, Some("max_output_tokens")) => StopReason::MaxTokens,
            (true, Some("content_filter")) => StopReason::Refusal,
            (true, _) => StopReason::Other,
            _ if !self.acc.calls.is_empty() => StopReason::ToolUse,
            _ if self.refused => StopReason::Refusal,
            _ => StopReason::EndTurn,
        });
        self.done = true;
    }

    /// A `response.failed` error or an `error` event, by its `code`.
    fn error(&self, code: &str, message: &str) -> RobotaError {
        let message = redact(message, None);
        let text = if code.is_empty() {
            format!("{} stream error: {message}", who(&self.cfg))
        } else {
            format!("{} stream error {code}: {message}", who(&self.cfg))
        };
        let provider = self.cfg.name.clone();
        match code {
            "rate_limit_exceeded" => RobotaError::RateLimit {
                message: text,
                retry_after: None,
            },
            "invalid_api_key" => RobotaError::Authentication(text),
            "model_not_found" => RobotaError::ModelNotAvailable {
                model: self.model.clone(),
                provider,
            },
            // The same request may succeed later.
            "" | "server_error" | "vector_store_timeout" => RobotaError::Provider {
                provider,
                message: text,
                status: None,
                recoverable: true,
            },
            _ => RobotaError::Provider {
                provider,
                message: text,
                status: None,
                recoverable: false,
            },
        }
    }
}

fn str_field<'a>(v: &'a Value, field: &str) -> &'a str {
    v.get(field).and_then(Value::as_str).unwrap_or_default()
}

fn u64_at(v: &Value, pointer: &str) -> u64 {
    v.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

impl StreamDecoder for ResponsesDecoder {
    fn event(&mut self, ev: SseEvent<'_>, sink: &mut dyn StreamSink) -> Result<(), RobotaError> {
        let data = ev.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let data: Value = serde_json::from_str(data)
            .map_err(|e| malformed(&self.cfg, &format!("bad JSON in an event: {e}")))?;
        let delta = str_field(&data, "delta");
        match str_field(&data, "type") {
            "response.output_text.delta" => self.text(delta, false, sink),
            "response.refusal.delta" => self.text(delta, true, sink),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.thinking(delta, sink)
            }
            "response.reasoning_summary_part.added"
                if data.get("summary_index").and_then(Value::as_u64) > Some(0) =>
            {
                self.thinking("\n\n", sink)
            }
            "response.output_item.added" => {
                let item = data.get("item").unwrap_or(&Value::Null);
                if str_field(item, "type") == "function_call" {
                    self.function_call(item, false);
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(call) = self.call_of(&data) {
                    call.arguments.push_str(delta);
                }
            }
            "response.function_call_arguments.done" => {
                let args = str_field(&data, "arguments").to_string();
                if let Some(call) = self.call_of(&data) {
                    call.arguments = args;
                }
            }
            "response.output_item.done" => {
                self.item_done(data.get("item").unwrap_or(&Value::Null));
            }
            "response.completed" => self.finish(&data["response"], false),
            "response.incomplete" => self.finish(&data["response"], true),
            "response.failed" => {
                let e = &data["response"]["error"];
                return Err(self.error(str_field(e, "code"), str_field(e, "message")));
            }
            "error" => {
                // `{"type":"error","code","message","param"}`; some servers nest an `error`.
                let e = data.get("error").filter(|e| e.is_object()).unwrap_or(&data);
                return Err(self.error(str_field(e, "code"), str_field(e, "message")));
            }
            _ => {}
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
        "response.completed"
    }

    fn whole_response(&self, body: Value) -> Vec<WholeEvent> {
        super::whole::events(body)
    }

    fn reset(&mut self) {
        self.acc.reset();
        self.call_items.clear();
        self.items.clear();
        self.refused = false;
        self.done = false;
    }
}
