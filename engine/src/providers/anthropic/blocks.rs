//! Content blocks of one Anthropic response as the decoder tracks them, and the
//! [`NativeContent`] built from them when a block needs to go back verbatim.

use serde_json::{json, Map, Value};

use super::API_SURFACE;
use crate::core::message::NativeContent;
use crate::providers::convert::{args_object, PartialCall};

/// What a content block holds.
#[derive(Debug)]
pub(super) enum Kind {
    /// Text: the byte ranges of the accumulated content its deltas filled (one range unless
    /// blocks interleave) and the citations of its `citations_delta`s.
    Text {
        ranges: Vec<(usize, usize)>,
        citations: Vec<Value>,
    },
    /// Extended thinking: its text and signature, sent back on the next request as the API
    /// requires (a `redacted_thinking` block is kept as a native block).
    Thinking { text: String, signature: String },
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
pub(super) struct Block {
    pub(super) kind: Kind,
    pub(super) open: bool,
}

pub(super) fn kind_label(kind: &Kind) -> &'static str {
    match kind {
        Kind::Text { .. } => "text",
        Kind::Thinking { .. } => "thinking",
        Kind::Tool(_) => "tool_use",
        Kind::Native { .. } => "server or unknown",
    }
}

/// A native block's input: the streamed JSON when any came (kept as a string when it does not
/// parse), else the input it started with, else `{}`.
pub(super) fn parse_input(block: &Map<String, Value>, input: &str) -> Value {
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

/// Every block in order (thinking with its signature, text, tool use and native blocks) when
/// at least one of them is a native-only block (thinking included: the API wants an assistant
/// turn's thinking blocks back, unchanged, when tool results follow it); `content` and `calls`
/// are the accumulated text and calls.
pub(super) fn native_content(
    blocks: &[Block],
    content: &str,
    calls: &[PartialCall],
) -> Option<NativeContent> {
    if !blocks
        .iter()
        .any(|b| matches!(b.kind, Kind::Native { .. } | Kind::Thinking { .. }))
    {
        return None;
    }
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        match &b.kind {
            Kind::Text { ranges, citations } => {
                let text: String = ranges
                    .iter()
                    .filter_map(|&(s, e)| content.get(s..e))
                    .collect();
                if text.is_empty() {
                    continue; // the API rejects empty text blocks
                }
                let mut block = json!({"type": "text", "text": text});
                if !citations.is_empty() {
                    block["citations"] = Value::Array(citations.clone());
                }
                out.push(block);
            }
            Kind::Thinking { text, signature } => {
                out.push(json!({"type": "thinking", "thinking": text, "signature": signature}))
            }
            Kind::Tool(i) => {
                if let Some(c) = calls.get(*i) {
                    out.push(json!({"type": "tool_use", "id": c.id, "name": c.name,
                                    "input": args_object(&c.arguments)}));
                }
            }
            Kind::Native { block, input } => out.push(finish_native(block, input)),
        }
    }
    Some(NativeContent {
        format: API_SURFACE.to_string(),
        blocks: out,
    })
}
