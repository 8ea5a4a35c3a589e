//! Fast path for Chat Completions chunks: reads a chunk into the [`super::wire`] structs
//! without serde when every value is one the chunk structs read as a plain string, integer,
//! `null`, object or array of them — the content, tool-call, finish and usage chunks every
//! server streams, in any field order and spacing.
//!
//! The reader accepts only valid JSON that serde would read to the same values: it answers
//! `None` (the caller then reads the chunk with serde, which reports any error with its own
//! text) for a repeated known field, a known field of another type, an escaped key, a number
//! out of range or with a fraction, a non-null `error`, nesting deeper than a few levels,
//! anything after the closing brace, and any text that is not JSON. Escaped strings are
//! decoded (and checked) by serde.

use std::borrow::Cow;

use serde::de::IgnoredAny;

use super::wire::{Choice, Chunk, ChunkDelta, FunctionDelta, PromptDetails, ToolCallDelta, Usage};
use crate::providers::convert::JsonStr;

/// How deep an ignored value may nest before the chunk is left to serde.
const MAX_DEPTH: u8 = 8;

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

/// The position of the first `"`, `\\` or control byte of `b` from `j`, eight bytes at a time
/// (the strings of a chunk are mostly too short for `memchr`'s set-up to pay).
fn special(b: &[u8], mut j: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(word) = b.get(j..j + 8) {
        let x = u64::from_le_bytes(word.try_into().ok()?);
        let (quote, backslash) = (x ^ (ONES * 0x22), x ^ (ONES * 0x5c));
        // The high bit of each byte that is zero in `quote` or `backslash` or below 0x20 in
        // `x`; bits above a match may be wrong (borrows), the lowest is exact.
        let hits = (quote.wrapping_sub(ONES) & !quote
            | backslash.wrapping_sub(ONES) & !backslash
            | x.wrapping_sub(ONES * 0x20) & !x)
            & HIGH;
        if hits != 0 {
            return Some(j + (hits.trailing_zeros() / 8) as usize);
        }
        j += 8;
    }
    let tail = b
        .get(j..)?
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20);
    tail.map(|p| j + p)
}

/// The text of a string's contents whose escapes are all short ones (`\\"`, `\\n`…); `None`
/// for a `\\u` escape (decoded, and checked, by serde) or an invalid one (reported by serde).
fn unescape(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(k) = rest.find('\\') {
        out.push_str(&rest[..k]);
        out.push(match rest.as_bytes().get(k + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            _ => return None,
        });
        // The escape's two bytes are ASCII: `k + 2` is a character boundary.
        rest = rest.get(k + 2..)?;
    }
    out.push_str(rest);
    Some(out)
}

/// A position in the chunk's text.
struct Reader<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Reader<'a> {
    fn at(s: &'a str, i: usize) -> Self {
        Reader { s, i }
    }

    fn ws(&mut self) {
        let b = self.s.as_bytes();
        // Usually none: one comparison for any byte above the space.
        while let Some(&c) = b.get(self.i) {
            if c > b' ' || !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                return;
            }
            self.i += 1;
        }
    }

    /// The next byte after whitespace.
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.as_bytes().get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    fn word(&mut self, w: &str) -> Option<()> {
        self.ws();
        let rest = self.s.as_bytes().get(self.i..)?;
        rest.starts_with(w.as_bytes()).then(|| self.i += w.len())
    }

    /// Consumes a `null` if one comes next.
    fn null(&mut self) -> bool {
        self.word("null").is_some()
    }

    /// A string: its text between the quotes, and whether it has escapes. `None` for a control
    /// character or a missing closing quote.
    fn raw_str(&mut self) -> Option<(&'a str, bool)> {
        self.eat(b'"')?;
        let (b, start) = (self.s.as_bytes(), self.i);
        let mut escaped = false;
        let mut j = start;
        loop {
            j = special(b, j)?;
            match b[j] {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    j += 2;
                }
                _ => return None,
            }
        }
        self.i = j + 1;
        Some((self.s.get(start..j)?, escaped))
    }

    /// A string's value (escapes decoded by serde, which also checks them).
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let (raw, escaped) = self.raw_str()?;
        if !escaped {
            return Some(Cow::Borrowed(raw));
        }
        if let Some(text) = unescape(raw) {
            return Some(Cow::Owned(text));
        }
        let quoted = &self.s[self.i - raw.len() - 2..self.i];
        serde_json::from_str::<String>(quoted).ok().map(Cow::Owned)
    }

    /// `null` or a string.
    fn opt_str(&mut self) -> Option<Option<Cow<'a, str>>> {
        if self.null() {
            return Some(None);
        }
        self.string().map(Some)
    }

    /// An unsigned integer of up to 19 digits (always a `u64`) without a leading zero.
    fn uint(&mut self) -> Option<u64> {
        self.ws();
        let rest = self.s.as_bytes().get(self.i..)?;
        let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 19 || (n > 1 && rest[0] == b'0') {
            return None;
        }
        let v = self.s.get(self.i..self.i + n)?.parse().ok()?;
        self.i += n;
        Some(v)
    }

    /// `null` or an unsigned integer.
    fn opt_uint(&mut self) -> Option<Option<u64>> {
        if self.null() {
            return Some(None);
        }
        self.uint().map(Some)
    }

    /// An object, each member's value read by `member` (given the key, unescaped, and where
    /// the member starts).
    fn object(
        &mut self,
        member: impl FnMut(&mut Self, &'a str, usize) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        self.members(member)
    }

    /// The members of an object whose `{` and any members before are read, up to its `}`.
    fn members(
        &mut self,
        mut member: impl FnMut(&mut Self, &'a str, usize) -> Option<()>,
    ) -> Option<()> {
        loop {
            let at = self.i;
            let (key, escaped) = self.raw_str()?;
            if escaped {
                return None;
            }
            self.eat(b':')?;
            member(self, key, at)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An array, each element read by `item`.
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            item(self)?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Skips a value the structs ignore (checking it is JSON, as serde does).
    fn skip(&mut self, depth: u8) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => {
                let (raw, escaped) = self.raw_str()?;
                if escaped {
                    let quoted = &self.s[self.i - raw.len() - 2..self.i];
                    serde_json::from_str::<IgnoredAny>(quoted).ok()?;
                }
                Some(())
            }
            b'{' => self.object(|r, _, _| r.skip(depth + 1)),
            b'[' => self.array(|r| r.skip(depth + 1)),
            b't' => self.word("true"),
            b'f' => self.word("false"),
            b'n' => self.word("null"),
            _ => self.number(),
        }
    }

    /// A JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        let b = self.s.as_bytes();
        let digits = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut i = self.i + usize::from(b.get(self.i) == Some(&b'-'));
        let n = digits(i);
        if n == 0 || (n > 1 && b[i] == b'0') {
            return None;
        }
        i += n;
        if b.get(i) == Some(&b'.') {
            let n = digits(i + 1);
            if n == 0 {
                return None;
            }
            i += 1 + n;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1 + usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
            let n = digits(i);
            if n == 0 {
                return None;
            }
            i += n;
        }
        self.i = i;
        Some(())
    }

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
