//! A small JSON reader over an SSE event's text for the providers' fast paths (the OpenAI
//! chunk reader, the Anthropic deltas' string): whitespace, strings
//! (scanned eight bytes at a time, short escapes decoded here, `\\u` ones by serde), unsigned
//! integers, objects, arrays and ignored values. Every reading answers `None` for anything it
//! does not take or that is not JSON, and never reads a text differently from serde.

use std::borrow::Cow;

use serde::de::IgnoredAny;

/// How deep an ignored value may nest before the text is left to serde.
const MAX_DEPTH: u8 = 8;

/// The position of the first `"`, `\\` or control byte of `b` from `j`.
fn special(b: &[u8], j: usize) -> Option<usize> {
    crate::core::json_bytes::first_string_special(b.get(j..)?).map(|p| j + p)
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

/// A position in an event's text.
pub(crate) struct Reader<'a> {
    pub(crate) s: &'a str,
    pub(crate) i: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn at(s: &'a str, i: usize) -> Self {
        Reader { s, i }
    }

    pub(crate) fn ws(&mut self) {
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
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.as_bytes().get(self.i).copied()
    }

    pub(crate) fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    pub(crate) fn word(&mut self, w: &str) -> Option<()> {
        self.ws();
        let rest = self.s.as_bytes().get(self.i..)?;
        rest.starts_with(w.as_bytes()).then(|| self.i += w.len())
    }

    /// Consumes a `null` if one comes next.
    pub(crate) fn null(&mut self) -> bool {
        self.word("null").is_some()
    }

    /// A string: its text between the quotes, and whether it has escapes. `None` for a control
    /// character or a missing closing quote.
    pub(crate) fn raw_str(&mut self) -> Option<(&'a str, bool)> {
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
    pub(crate) fn string(&mut self) -> Option<Cow<'a, str>> {
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
    pub(crate) fn opt_str(&mut self) -> Option<Option<Cow<'a, str>>> {
        if self.null() {
            return Some(None);
        }
        self.string().map(Some)
    }

    /// An unsigned integer of up to 19 digits (always a `u64`) without a leading zero.
    pub(crate) fn uint(&mut self) -> Option<u64> {
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
    pub(crate) fn opt_uint(&mut self) -> Option<Option<u64>> {
        if self.null() {
            return Some(None);
        }
        self.uint().map(Some)
    }

    /// An object, each member's value read by `member` (given the key, unescaped, and where
    /// the member starts).
    pub(crate) fn object(
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
    pub(crate) fn members(
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
            if self.separator_or(b'}')? {
                return Some(());
            }
        }
    }

    /// After a member or element: a `,` (false: another follows) or `close` (true: the object or
    /// array ends); anything else is `None`.
    fn separator_or(&mut self, close: u8) -> Option<bool> {
        let b = self.peek()?;
        if b != b',' && b != close {
            return None;
        }
        self.i += 1;
        Some(b == close)
    }

    /// An array, each element read by `item`.
    pub(crate) fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            item(self)?;
            if self.separator_or(b']')? {
                return Some(());
            }
        }
    }

    /// Skips a value the structs ignore (checking it is JSON, as serde does).
    pub(crate) fn skip(&mut self, depth: u8) -> Option<()> {
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
    pub(crate) fn number(&mut self) -> Option<()> {
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
}
