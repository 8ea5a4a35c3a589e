//! The `content_block_start` / `_delta` / `_stop` events applied to the decoder's content
//! blocks: blocks start in index order, deltas and stops must name a started, still open block
//! of the right kind, and text, thinking, tool input and server-tool use reach the sink.

use serde_json::Value;

use super::AnthropicDecoder;
use crate::core::errors::RobotaError;
use crate::core::provider::StreamSink;
use crate::providers::anthropic::blocks::{kind_label, parse_input, Block, Kind};
use crate::providers::anthropic::wire::{BlockDelta, BlockStart, PlainBlockStart};
use crate::providers::config::HttpProviderConfig;
use crate::providers::convert::{JsonStr, PartialCall};
use crate::providers::errors::malformed;

impl AnthropicDecoder {
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

    /// Appends text of text block `index` to the content (growing the block's last range) and
    /// hands it to the sink.
    pub(super) fn push_text(&mut self, index: usize, text: &str, sink: &mut dyn StreamSink) {
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
    pub(super) fn plain_block_start(
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

    /// A `content_block_start` in any shape: text, thinking, tool use, or a block kept verbatim.
    pub(super) fn block_start(
        &mut self,
        b: BlockStart,
        sink: &mut dyn StreamSink,
    ) -> Result<(), RobotaError> {
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

    /// A `content_block_delta` for a started, open block of the delta's kind (future delta
    /// types are ignored).
    pub(super) fn block_delta(
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
    pub(super) fn push_input(&mut self, index: usize, part: &str) -> bool {
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

    /// A `content_block_stop`: the block closes; a server-tool use reaches the sink with its
    /// input.
    pub(super) fn block_stop(
        &mut self,
        index: usize,
        sink: &mut dyn StreamSink,
    ) -> Result<(), RobotaError> {
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
}
