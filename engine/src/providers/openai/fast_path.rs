//! Fast path for Chat Completions chunks: reads a chunk into the [`super::wire`] structs
//! without serde when every value is one the chunk structs read as a plain string, integer,
//! `null`, object or array of them — the content, tool-call, finish and usage chunks every
//! server streams, in any field order and spacing. The leading members a stream repeats in
//! every chunk (`id`, `object`, `created`…) are read once per stream, and the text, tool-argument
//! and finish chunks in the exact shape OpenAI sends are then read by comparisons.
//!
//! It accepts only valid JSON that serde would read to the same values: it answers `None` (the
//! caller then reads the chunk with serde, which reports any error with its own text) for a
//! repeated known field, a known field of another type, an escaped key, a number out of range
//! or with a fraction, a non-null `error`, nesting deeper than a few levels, anything after the
//! closing brace, and any text that is not JSON.

use std::borrow::Cow;

use super::wire::{Choice, Chunk, ChunkDelta, FunctionDelta, PromptDetails, ToolCallDelta, Usage};
use crate::providers::convert::JsonStr;
use crate::providers::json_reader::Reader;

/// The chunk, when `data` is valid JSON in a shape the fast reader knows; `None` otherwise.
///
/// `prefix` carries the leading ignored members (`{"id":…,"object":…,"created":…,` up to the
/// first known field) of the last chunk read from one stream: a chunk that starts with the same
/// bytes resumes after them, since the reading of those bytes is the same (a stream repeats
/// them in every chunk).
pub(super) fn fast_chunk<'a>(data: &'a str, prefix: &mut String) -> Option<Chunk<'a>> {
    let mut r = Reader { s: data, i: 0 };
    let mut chunk = Chunk {
        choices: None,
        usage: None,
        error: None,
    };
    let mut seen = 0u8;
    let resume = (!prefix.is_empty() && data.starts_with(prefix.as_str())).then_some(prefix.len());
    if let Some(chunk) = resume.and_then(|at| exact_chunk(data, at)) {
        return Some(chunk);
    }
    let read = |r: &mut Reader<'a>, key: &'a str, at: usize| {
        let known = matches!(key, "choices" | "usage" | "error");
        if known && seen == 0 && resume != Some(at) {
            prefix.clear();
            prefix.push_str(data.get(..at)?);
        }
        match key {
            "choices" => {
                once(&mut seen, 1)?;
                if !r.null() {
                    r.array(|r| {
                        let choice = r.choice()?;
                        if chunk.choices.is_none() && choice.index == 0 {
                            chunk.choices = Some(choice);
                        }
                        Some(())
                    })?;
                }
                Some(())
            }
            "usage" => {
                once(&mut seen, 2)?;
                chunk.usage = if r.null() { None } else { Some(r.usage()?) };
                Some(())
            }
            // A stream error: left to the full reading.
            "error" => {
                once(&mut seen, 4)?;
                r.null().then_some(())
            }
            _ => r.skip(0),
        }
    };
    match resume {
        Some(at) => {
            r.i = at;
            r.members(read)?;
        }
        None => r.object(read)?,
    }
    r.ws();
    (r.i == data.len()).then_some(chunk)
}

/// The hot chunks after the leading members, exactly as OpenAI and most servers send them,
/// read by comparisons and one string scan:
/// `"choices":[{"index":0,"delta":{D},"logprobs":null,"finish_reason":F}]}` where `D` is
/// `"content":"…"` or `"tool_calls":[{"index":N,"function":{"arguments":"…"}}]` (and `F` is
/// `null`), or `D` is empty and `F` a string. Anything else is `None`.
fn exact_chunk(data: &str, at: usize) -> Option<Chunk<'_>> {
    const HEAD: &str = r#""choices":[{"index":0,"delta":{"#;
    const TAIL: &str = r#","logprobs":null,"finish_reason":null}]}"#;
    const ARGS: &str = r#","function":{"arguments":"#;
    let rest = data.get(at..)?.strip_prefix(HEAD)?;
    let mut delta = ChunkDelta {
        content: None,
        refusal: None,
        reasoning_content: None,
        reasoning: None,
        tool_calls: None,
    };
    let mut finish_reason = None;
    let (mut r, end);
    if let Some(rest) = rest.strip_prefix(r#""content":"#) {
        let quoted = rest.strip_suffix(TAIL)?.strip_suffix('}')?;
        end = data.len() - TAIL.len() - 1;
        r = Reader::at(data, end - quoted.len());
        delta.content = Some(JsonStr(r.string()?));
    } else if let Some(rest) = rest.strip_prefix(r#""tool_calls":[{"index":"#) {
        let body = rest.strip_suffix(TAIL)?.strip_suffix("}}]}")?;
        end = data.len() - TAIL.len() - 4;
        r = Reader::at(data, end - body.len());
        let index = usize::try_from(r.uint()?).ok()?;
        if !data.get(r.i..)?.starts_with(ARGS) {
            return None;
        }
        r.i += ARGS.len();
        let arguments = r.string()?;
        delta.tool_calls = Some(vec![ToolCallDelta {
            index: Some(index),
            id: None,
            function: Some(FunctionDelta {
                name: None,
                arguments: Some(JsonStr(arguments)),
            }),
        }]);
    } else {
        let rest = rest.strip_prefix(r#"},"logprobs":null,"finish_reason":"#)?;
        let quoted = rest.strip_suffix("}]}")?;
        end = data.len() - 3;
        r = Reader::at(data, end - quoted.len());
        finish_reason = Some(JsonStr(r.string()?));
    }
    (r.i == end).then_some(Chunk {
        choices: Some(Choice {
            index: 0,
            delta: Some(delta),
            finish_reason,
        }),
        usage: None,
        error: None,
    })
}

/// Marks a known field as seen; `None` when it was already (serde rejects a repeated field).
fn once(seen: &mut u8, bit: u8) -> Option<()> {
    (*seen & bit == 0).then(|| *seen |= bit)
}

/// The readings of the chunk structs.
impl<'a> Reader<'a> {
    fn choice(&mut self) -> Option<Choice<'a>> {
        let mut c = Choice {
            index: 0,
            delta: None,
            finish_reason: None,
        };
        let mut seen = 0u8;
        self.object(|r, key, _| {
            match key {
                "index" => {
                    once(&mut seen, 1)?;
                    c.index = u32::try_from(r.uint()?).ok()?;
                }
                "delta" => {
                    once(&mut seen, 2)?;
                    c.delta = if r.null() { None } else { Some(r.delta()?) };
                }
                "finish_reason" => {
                    once(&mut seen, 4)?;
                    c.finish_reason = r.opt_str()?.map(JsonStr);
                }
                _ => r.skip(0)?,
            }
            Some(())
        })?;
        Some(c)
    }

    fn delta(&mut self) -> Option<ChunkDelta<'a>> {
        let mut d = ChunkDelta {
            content: None,
            refusal: None,
            reasoning_content: None,
            reasoning: None,
            tool_calls: None,
        };
        let mut seen = 0u8;
        self.object(|r, key, _| {
            let (bit, slot) = match key {
                "content" => (1, &mut d.content),
                "refusal" => (2, &mut d.refusal),
                "reasoning_content" => (4, &mut d.reasoning_content),
                "reasoning" => (8, &mut d.reasoning),
                "tool_calls" => {
                    once(&mut seen, 16)?;
                    if !r.null() {
                        let mut calls = Vec::new();
                        r.array(|r| r.tool_call().map(|t| calls.push(t)))?;
                        d.tool_calls = Some(calls);
                    }
                    return Some(());
                }
                _ => return r.skip(0),
            };
            once(&mut seen, bit)?;
            *slot = r.opt_str()?.map(JsonStr);
            Some(())
        })?;
        Some(d)
    }

    fn tool_call(&mut self) -> Option<ToolCallDelta<'a>> {
        let mut t = ToolCallDelta {
            index: None,
            id: None,
            function: None,
        };
        let mut seen = 0u8;
        self.object(|r, key, _| {
            match key {
                "index" => {
                    once(&mut seen, 1)?;
                    t.index = match r.opt_uint()? {
                        Some(n) => Some(usize::try_from(n).ok()?),
                        None => None,
                    };
                }
                "id" => {
                    once(&mut seen, 2)?;
                    t.id = r.opt_str()?.map(Cow::into_owned);
                }
                "function" => {
                    once(&mut seen, 4)?;
                    t.function = if r.null() { None } else { Some(r.function()?) };
                }
                _ => r.skip(0)?,
            }
            Some(())
        })?;
        Some(t)
    }

    fn function(&mut self) -> Option<FunctionDelta<'a>> {
        let mut f = FunctionDelta {
            name: None,
            arguments: None,
        };
        let mut seen = 0u8;
        self.object(|r, key, _| {
            match key {
                "name" => {
                    once(&mut seen, 1)?;
                    f.name = r.opt_str()?.map(Cow::into_owned);
                }
                "arguments" => {
                    once(&mut seen, 2)?;
                    f.arguments = r.opt_str()?.map(JsonStr);
                }
                _ => r.skip(0)?,
            }
            Some(())
        })?;
        Some(f)
    }

    fn usage(&mut self) -> Option<Usage> {
        let mut u = Usage {
            prompt_tokens: 0,
            completion_tokens: 0,
            total_tokens: None,
            prompt_tokens_details: None,
        };
        let mut seen = 0u8;
        self.object(|r, key, _| {
            match key {
                "prompt_tokens" => {
                    once(&mut seen, 1)?;
                    u.prompt_tokens = r.uint()?;
                }
                "completion_tokens" => {
                    once(&mut seen, 2)?;
                    u.completion_tokens = r.uint()?;
                }
                "total_tokens" => {
                    once(&mut seen, 4)?;
                    u.total_tokens = r.opt_uint()?;
                }
                "prompt_tokens_details" => {
                    once(&mut seen, 8)?;
                    if !r.null() {
                        let mut details = PromptDetails {
                            cached_tokens: None,
                        };
                        let mut cached = 0u8;
                        r.object(|r, key, _| match key {
                            "cached_tokens" => {
                                once(&mut cached, 1)?;
                                details.cached_tokens = r.opt_uint()?;
                                Some(())
                            }
                            _ => r.skip(0),
                        })?;
                        u.prompt_tokens_details = Some(details);
                    }
                }
                _ => r.skip(0)?,
            }
            Some(())
        })?;
        Some(u)
    }
}
