//! The fast path of a transcript line for an event that is already JSON text (the hot events:
//! `message`, `tool_start`, `tool_end`, `context_update`, `turn_started`, `turn_completed`):
//! the object's members are copied into the line as they are, without parsing the text into a
//! map and writing it again. One scan proves that the copy is byte for byte what the exact path
//! ([`super::Transcript::record`] on the parsed map) would write; anything it cannot
//! prove sends the event to the exact path:
//!
//! - the text is what `serde_json` writes (no whitespace, its escapes only, numbers that it
//!   would print the same after parsing them, no key twice in one object), so parsing and
//!   writing it again gives the same bytes;
//! - no key below the top level is a secret key and no `arguments` string (whose JSON text the
//!   exact path redacts inside) holds a backslash or any of `key`, `token`, `secret`,
//!   `password`, `authorization` in any case (every secret key contains one; a key inside the
//!   text can only hide its letters behind a `\u` escape, which needs a backslash);
//! - no top-level value is longer than the payload limit (those go to payload files).
//!
//! Top-level members get what the exact path does to them: `v`, `type` and (when the line has
//! a turn) `turn_id` are left out, `timestamp` / `sessionId` / `event` are renamed
//! `payload_<name>`, a secret key's value is written as `"[REDACTED]"`.

use super::format::is_line_key;
use super::{is_secret_key_bytes, REDACTED};
use crate::core::json_bytes::first_string_special;

/// Nesting deeper than this goes to the exact path (whose parser stops at 128).
const MAX_DEPTH: usize = 100;

/// The words one of which every secret key contains (lower case).
const SECRET_WORDS: [&[u8]; 5] = [b"key", b"token", b"secret", b"password", b"authorization"];

/// Appends the members of the JSON object `text` to a line of turn `turn_id` (each as
/// `,"key":value`, then `}\n`), or returns `false` when the exact path must write them (what
/// was appended is then to be cut off by the caller). `keys`: scratch space, kept between
/// calls so that a line allocates nothing.
pub(super) fn splice(
    text: &[u8],
    turn_id: u64,
    limit: usize,
    w: &mut Vec<u8>,
    keys: &mut Vec<(usize, usize)>,
) -> bool {
    keys.clear();
    let mut s = Scan {
        b: text,
        i: 0,
        keys,
    };
    s.top(turn_id, limit, w).is_some()
}

struct Scan<'a, 'k> {
    b: &'a [u8],
    i: usize,
    /// Where the keys of the objects being scanned are in `b` (to find a key given twice).
    keys: &'k mut Vec<(usize, usize)>,
}

impl<'a> Scan<'a, '_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    fn top(&mut self, turn_id: u64, limit: usize, w: &mut Vec<u8>) -> Option<()> {
        self.eat(b'{')?;
        let mut seen = 0;
        // Members written as they are, one after the other, are copied as one run.
        let mut run: Option<(usize, usize)> = None;
        if self.peek()? != b'}' {
            loop {
                let member = self.i;
                let key = self.key(0, &mut seen)?;
                let at = self.i;
                self.value(key == b"arguments", 1)?;
                let value = &self.b[at..self.i];
                let left_out = key == b"v" || key == b"type" || (key == b"turn_id" && turn_id != 0);
                if !left_out && as_it_is(key, value, limit)? {
                    run = Some((run.map_or(member, |(start, _)| start), self.i));
                } else {
                    self.flush(run.take(), w);
                    if !left_out {
                        emit(w, key, value, limit)?;
                    }
                }
                if self.peek()? == b',' {
                    self.i += 1;
                } else {
                    break;
                }
            }
        }
        self.eat(b'}')?;
        if self.i != self.b.len() {
            return None;
        }
        self.flush(run, w);
        w.extend_from_slice(b"}\n");
        Some(())
    }

    /// Appends the members `b[start..end]` (a run of members copied as they are) after a comma.
    fn flush(&self, run: Option<(usize, usize)>, w: &mut Vec<u8>) {
        if let Some((start, end)) = run {
            w.push(b',');
            w.extend_from_slice(&self.b[start..end]);
        }
    }

    /// A key and its `:`; `base`: where the keys of its object start in `self.keys`, `seen`:
    /// a bit per hash of the keys so far (the keys are only compared when a bit is set).
    #[inline(always)]
    fn key(&mut self, base: usize, seen: &mut u64) -> Option<&'a [u8]> {
        let at = self.i + 1;
        let key = self.string()?;
        self.eat(b':')?;
        let hash = match key {
            [] => 0,
            [one] => *one as usize,
            [first, .., last] => *first as usize ^ (*last as usize) << 1 ^ key.len() << 2,
        };
        let bit = 1u64 << (hash % 64);
        let b = self.b;
        if *seen & bit != 0
            && self.keys[base..]
                .iter()
                .any(|&(k, n)| n == key.len() && b[k..k + n] == *key)
        {
            return None;
        }
        *seen |= bit;
        self.keys.push((at, key.len()));
        Some(key)
    }

    fn value(&mut self, arguments: bool, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'{' => self.object(depth),
            b'[' => {
                self.i += 1;
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.value(false, depth + 1)?;
                    match self.peek()? {
                        b',' => self.i += 1,
                        b']' => break,
                        _ => return None,
                    }
                }
                self.i += 1;
                Some(())
            }
            b'"' => {
                let s = self.string()?;
                if arguments && !plain_arguments(s) {
                    return None;
                }
                Some(())
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        self.i += 1;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        let (base, mut seen) = (self.keys.len(), 0);
        loop {
            let key = self.key(base, &mut seen)?;
            if is_secret_key_bytes(key) {
                return None;
            }
            self.value(key == b"arguments", depth + 1)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => break,
                _ => return None,
            }
        }
        self.i += 1;
        self.keys.truncate(base);
        Some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }

    /// A string as `serde_json` writes it (its escapes only); returns what is between the
    /// quotes.
    #[inline(always)]
    fn string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.i;
        loop {
            let run = self.b.get(self.i..)?;
            // Keys and short values eight bytes at a time; a long run with memchr, then its
            // control characters looked for without an early exit (a vectorised loop).
            let n = match first_string_special(&run[..run.len().min(32)]) {
                Some(n) => n,
                None => {
                    let n = memchr::memchr2(b'"', b'\\', run)?;
                    if run[..n].iter().fold(false, |c, &x| c | (x < 0x20)) {
                        return None;
                    }
                    n
                }
            };
            self.i += n;
            match self.b[self.i] {
                b'"' => break,
                b'\\' => self.escape()?,
                _ => return None,
            }
        }
        let s = &self.b[start..self.i];
        self.i += 1;
        Some(s)
    }

    /// `serde_json` writes `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` and `\u00xx` (lower-case
    /// hex) for the other control characters, nothing else.
    #[cold]
    fn escape(&mut self) -> Option<()> {
        match *self.b.get(self.i + 1)? {
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
            b'u' => {
                let h = self.b.get(self.i + 2..self.i + 6)?;
                let c = hex(h[2])? * 16 + hex(h[3])?;
                if &h[..2] != b"00" || c >= 0x20 || matches!(c, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                    return None;
                }
                self.i += 6;
            }
            _ => return None,
        }
        Some(())
    }

    /// A number that parses and prints back to the same text.
    fn number(&mut self) -> Option<()> {
        let start = self.i;
        while matches!(
            self.peek(),
            Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
        ) {
            self.i += 1;
        }
        let token = &self.b[start..self.i];
        let digits = token.strip_prefix(b"-").unwrap_or(token);
        let plain_integer = matches!(digits, [b'1'..=b'9', ..])
            && digits.len() <= 18
            && digits.iter().all(u8::is_ascii_digit);
        if plain_integer || token == b"0" || short_decimal(digits) {
            return Some(());
        }
        // A float (or an unusual integer): what the exact path's parse and print give.
        let parsed: serde_json::Value = serde_json::from_slice(token).ok()?;
        let mut buf = [0u8; 40];
        let mut rest = &mut buf[..];
        serde_json::to_writer(&mut rest, &parsed).ok()?;
        let n = 40 - rest.len();
        (buf[..n] == *token).then_some(())
    }
}

/// Whether `d` (a number without its sign) is a decimal that `serde_json` parses exactly and
/// prints back the same: `<int>.<frac>` without exponent, at most 15 significant digits (so
/// the shortest text of the nearest `f64` is these digits: 15 digits survive the round trip,
/// and a parse of at most 15 digits times a power of ten up to 10^22 is exact), the last one
/// not a zero (or `.0` after a non-zero integer), and at most four zeros after `0.` (where
/// `serde_json` switches to an exponent).
fn short_decimal(d: &[u8]) -> bool {
    let Some(dot) = memchr::memchr(b'.', d) else {
        return false;
    };
    let (int, frac) = (&d[..dot], &d[dot + 1..]);
    if !int.iter().all(u8::is_ascii_digit) || !frac.iter().all(u8::is_ascii_digit) {
        return false;
    }
    match (int, frac) {
        (_, []) | ([], _) => false,
        ([b'0'], _) => {
            let zeros = frac.iter().take_while(|&&c| c == b'0').count();
            zeros <= 4 && frac.len() - zeros <= 15 && frac.last() != Some(&b'0')
        }
        ([b'0', ..], _) => false,
        (_, [b'0']) => int.len() <= 15,
        _ => int.len() + frac.len() <= 15 && frac.last() != Some(&b'0'),
    }
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Whether the raw text of an `arguments` string surely holds no secret key (see the module).
fn plain_arguments(raw: &[u8]) -> bool {
    if raw.windows(2).any(|p| p == b"\\\\") {
        return false;
    }
    !(0..raw.len()).any(|i| {
        SECRET_WORDS.iter().any(|word| {
            raw.get(i..i + word.len())
                .is_some_and(|part| part.eq_ignore_ascii_case(word))
        })
    })
}

/// Whether a top-level member is written as it is (not renamed, not redacted); `None` for a
/// value that would go to a payload file.
fn as_it_is(key: &[u8], value: &[u8], limit: usize) -> Option<bool> {
    if is_secret_key_bytes(key) || is_line_key(key) {
        return Some(false);
    }
    (value.len() <= limit).then_some(true)
}

/// Writes one top-level member as the exact path does; `None` for a value that would go to a
/// payload file.
fn emit(w: &mut Vec<u8>, key: &[u8], value: &[u8], limit: usize) -> Option<()> {
    let secret = is_secret_key_bytes(key);
    if !secret && value.len() > limit {
        return None;
    }
    w.push(b',');
    if is_line_key(key) {
        w.extend_from_slice(b"\"payload_");
    } else {
        w.push(b'"');
    }
    w.extend_from_slice(key);
    w.extend_from_slice(b"\":");
    if secret {
        w.push(b'"');
        w.extend_from_slice(REDACTED.as_bytes());
        w.push(b'"');
    } else {
        w.extend_from_slice(value);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fast(text: &str, turn_id: u64) -> Option<String> {
        let mut w = Vec::new();
        splice(text.as_bytes(), turn_id, 64, &mut w, &mut Vec::new())
            .then(|| String::from_utf8(w).unwrap())
    }

    #[test]
    fn the_hot_events_take_the_fast_path() {
        assert_eq!(
            fast(r#"{"v":1,"type":"message","role":"assistant","content":"é \"q\" \n\u001f","tool_calls":[{"function":{"arguments":"{\"path\":\"a\"}"}}]}"#, 2),
            Some(r#","role":"assistant","content":"é \"q\" \n\u001f","tool_calls":[{"function":{"arguments":"{\"path\":\"a\"}"}}]}"#.to_string() + "\n")
        );
        assert_eq!(
            fast(
                r#"{"v":1,"type":"turn_completed","turn_id":3,"context_state":{"used_tokens":12,"used_percentage":0.62},"usage":null}"#,
                3
            ),
            Some(
                r#","context_state":{"used_tokens":12,"used_percentage":0.62},"usage":null}"#
                    .to_string()
                    + "\n"
            )
        );
        assert_eq!(
            fast(
                r#"{"v":1,"type":"x","turn_id":3,"timestamp":"t","api_key":{"a":1}}"#,
                0
            ),
            Some(
                r#","turn_id":3,"payload_timestamp":"t","api_key":"[REDACTED]"}"#.to_string()
                    + "\n"
            )
        );
        assert_eq!(fast(r#"{"v":1,"type":"x"}"#, 0), Some("}\n".into()));
    }

    #[test]
    fn anything_unproven_goes_to_the_exact_path() {
        for text in [
            r#"{"a":{"api_key":1}}"#,
            r#"{"a":{"arguments":"{\"token\":1}"}}"#,
            r#"{"a":{"arguments":"{\"a\":\"x\\\\y\"}"}}"#,
            r#"{"a":"x","a":"y"}"#,
            r#"{"a":{"b":1,"b":1}}"#,
            r#"{"a":"\u0041"}"#,
            r#"{"a":"\/"}"#,
            r#"{ "a":1}"#,
            r#"{"a":1.50}"#,
            r#"{"a":-0}"#,
            r#"{"a":123456789012345678901}"#,
            r#"{"a":"this value is longer than the limit of sixty-four bytes in this test"}"#,
            r#"{"a":1}}"#,
            r#"[1]"#,
        ] {
            assert_eq!(fast(text, 1), None, "{text}");
        }
    }
}
