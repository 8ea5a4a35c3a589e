//! Fast paths for the hottest Anthropic events in their compact shapes: `text_delta` and
//! `input_json_delta` deltas and `content_block_stop`.

use std::borrow::Cow;

use crate::providers::json_reader::Reader;

/// Fast path for the hottest event, a compact text delta exactly as Anthropic sends it:
/// `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`.
/// Anything else (spacing, other field order, other delta types) returns `None` and goes
/// through the full decoder. Escaped text is decoded as `serde_json` decodes it.
pub(super) fn fast_text_delta(data: &str) -> Option<(usize, Cow<'_, str>)> {
    fast_delta(data, r#","delta":{"type":"text_delta","text":""#)
}

/// The same for a tool's streamed input:
/// `{"type":"content_block_delta","index":N,"delta":{"type":"input_json_delta","partial_json":"…"}}`.
pub(super) fn fast_input_json_delta(data: &str) -> Option<(usize, Cow<'_, str>)> {
    fast_delta(
        data,
        r#","delta":{"type":"input_json_delta","partial_json":""#,
    )
}

/// `{"type":"content_block_stop","index":N}` (one optional space after each `:` and `,`, and
/// before the closing brace); anything else is `None`.
pub(super) fn fast_block_stop(data: &str) -> Option<usize> {
    let rest = strip_json_prefix(data, r#"{"type":"content_block_stop","index":"#)?;
    let (index, rest) = index_prefix(rest)?;
    matches!(rest, "}" | " }").then_some(index)
}

/// A block index (1–9 digits, no leading zero: JSON has none) at the start of `s`, and what
/// follows it.
fn index_prefix(s: &str) -> Option<(usize, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 || (digits > 1 && s.starts_with('0')) {
        return None;
    }
    Some((s[..digits].parse().ok()?, &s[digits..]))
}

/// A `content_block_delta` whose delta is `mid` followed by one string and `"}}`.
fn fast_delta<'a>(data: &'a str, mid: &str) -> Option<(usize, Cow<'a, str>)> {
    const HEAD: &str = r#"{"type":"content_block_delta","index":"#;
    let rest = strip_json_prefix(data, HEAD)?;
    let (index, rest) = index_prefix(rest)?;
    let body = strip_json_prefix(rest, mid)?;
    // `mid` ends with the string's opening quote; the reader decodes it as serde would, and
    // refuses control characters and unterminated or invalid text (the full decoder reports
    // those).
    let mut r = Reader::at(data, data.len() - body.len() - 1);
    let text = r.string()?;
    matches!(data.get(r.i..)?, "}}" | "} }" | " }}" | " } }").then_some((index, text))
}

/// Strips `lit` from the front of `input`, allowing one space after each `:` and `,` of `lit`
/// (the compact form the API sends and the spaced form of its documentation).
fn strip_json_prefix<'a>(input: &'a str, lit: &str) -> Option<&'a str> {
    if let Some(rest) = input.strip_prefix(lit) {
        return Some(rest); // the compact form: one comparison
    }
    let (inp, lit) = (input.as_bytes(), lit.as_bytes());
    let mut i = 0;
    for &c in lit {
        if inp.get(i) != Some(&c) {
            return None;
        }
        i += 1;
        if (c == b':' || c == b',') && inp.get(i) == Some(&b' ') {
            i += 1;
        }
    }
    // `i` follows an ASCII byte of `lit`, so it is a char boundary.
    input.get(i..)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_path_matches_only_the_exact_shapes() {
        let f = |s: &str| fast_text_delta(s).map(|(i, t)| (i, t.into_owned()));
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"Hi there"}}"#
            ),
            Some((3, "Hi there".to_string()))
        );
        assert!(matches!(
            fast_text_delta(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"plain"}}"#
            ),
            Some((0, std::borrow::Cow::Borrowed("plain")))
        ));
        assert_eq!(
            f(
                r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a\n\"b\" \u00e9\\"}}"#
            ),
            Some((0, "a\n\"b\" é\\".to_string()))
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#
            ),
            Some((0, String::new()))
        );
        // Other shapes fall back to the full decoder.
        assert_eq!(
            f(
                r#"{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}"#
            ),
            None
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}"#
            ),
            None
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"x"}}"#
            ),
            None
        );
        assert_eq!(
            f(r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x\"#),
            None
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}"#
            ),
            None
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"x"}}"#
            ),
            None
        );
        assert_eq!(f("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\nb\"}}"), None);
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\é"}}"#
            ),
            None
        );
        // JSON numbers have no leading zero: left to the full decoder (which reports it).
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}"#
            ),
            None
        );
    }

    #[test]
    fn input_and_stop_fast_paths_match_only_the_exact_shapes() {
        let f = |s: &str| fast_input_json_delta(s).map(|(i, t)| (i, t.into_owned()));
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1"}}"#
            ),
            Some((1, r#"{"a":1"#.to_string()))
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#
            ),
            Some((1, String::new()))
        );
        assert_eq!(
            f(
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"x"}}"#
            ),
            None
        );
        assert_eq!(
            fast_text_delta(
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"x"}}"#
            ),
            None
        );
        assert_eq!(
            fast_block_stop(r#"{"type":"content_block_stop","index":3}"#),
            Some(3)
        );
        assert_eq!(
            fast_block_stop(r#"{"type": "content_block_stop", "index": 12 }"#),
            Some(12)
        );
        for other in [
            r#"{"index":3,"type":"content_block_stop"}"#,
            r#"{"type":"content_block_stop","index":3,"x":1}"#,
            r#"{"type":"content_block_stop","index":03}"#,
            r#"{"type":"content_block_stop","index":-3}"#,
            r#"{"type":"content_block_stop","index":3"#,
            r#"{"type":"content_block_stop","index":}"#,
        ] {
            assert_eq!(fast_block_stop(other), None, "{other}");
        }
    }
}
