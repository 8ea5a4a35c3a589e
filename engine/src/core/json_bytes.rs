//! Byte-level help for JSON strings without a parser or serializer: where a string's run of
//! plain bytes ends, and a string written exactly as `serde_json` writes it.

/// Whether `c` ends a run of a JSON string's plain bytes: `"`, `\` or a control character
/// (the bytes `serde_json` escapes).
pub const fn is_string_special(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// [`is_string_special`] of every byte.
pub static STRING_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = is_string_special(c as u8);
        c += 1;
    }
    t
};

/// Where the first [`STRING_SPECIAL`] byte of `s` is: eight bytes at a time (in a word, the
/// lowest byte that the usual "has a zero byte" / "has a byte below n" tests flag is exact:
/// only bytes above a true hit can be flagged wrongly), the rest byte by byte. For the short
/// strings of events and chunks, where `memchr`'s set-up does not pay.
#[inline(always)]
pub fn first_string_special(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(Ok(word)) = s.get(at..at + 8).map(<[u8; 8]>::try_from) {
        let x = u64::from_le_bytes(word);
        let quote = x ^ (ONES * u64::from(b'"'));
        let backslash = x ^ (ONES * u64::from(b'\\'));
        let hits = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (x.wrapping_sub(ONES * 0x20) & !x);
        let hits = hits & HIGH;
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    s[at..]
        .iter()
        .position(|&c| STRING_SPECIAL[usize::from(c)])
        .map(|n| at + n)
}

/// Appends the UTF-8 text `s` as a JSON string, byte for byte what `serde_json` writes for it:
/// `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00xx` (lower-case hex) for the other
/// control characters, every other byte as it is.
pub fn push_json_string(w: &mut Vec<u8>, s: &[u8]) {
    w.reserve(s.len() + 2);
    w.push(b'"');
    // Without an early exit, so that the check is one vectorised pass.
    if !s.iter().fold(false, |any, &c| any | is_string_special(c)) {
        w.extend_from_slice(s);
    } else {
        let mut start = 0;
        for (i, &c) in s.iter().enumerate() {
            if !is_string_special(c) {
                continue;
            }
            w.extend_from_slice(&s[start..i]);
            start = i + 1;
            let short = match c {
                b'"' => b'"',
                b'\\' => b'\\',
                0x08 => b'b',
                0x0c => b'f',
                b'\n' => b'n',
                b'\r' => b'r',
                b'\t' => b't',
                _ => 0,
            };
            if short != 0 {
                w.extend_from_slice(&[b'\\', short]);
            } else {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                w.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(c >> 4)],
                    HEX[usize::from(c & 0xf)],
                ]);
            }
        }
        w.extend_from_slice(&s[start..]);
    }
    w.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut texts: Vec<String> = (0u32..0x80)
            .filter_map(char::from_u32)
            .map(|c| format!("a{c}b"))
            .collect();
        texts.extend(
            [
                "",
                "plain",
                "é \"q\" \n\u{1f}\u{7f}",
                "\\\\",
                "日本語\t",
                "\u{2028}x",
            ]
            .map(String::from),
        );
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..2000 {
            let n = rng.usize(0..48);
            texts.push(
                (0..n)
                    .map(|_| {
                        rng.choice(['a', '"', '\\', '\n', '\u{1}', 'é', '😀', ' '])
                            .unwrap_or('a')
                    })
                    .collect(),
            );
        }
        for t in texts {
            let mut w = b"x".to_vec();
            push_json_string(&mut w, t.as_bytes());
            assert_eq!(w[1..], serde_json::to_vec(&t).unwrap()[..], "{t:?}");
        }
    }

    #[test]
    fn the_word_scan_finds_the_first_special_byte() {
        let mut bytes: Vec<u8> = (0u8..=255).collect();
        bytes.extend((0u8..=255).rev());
        for len in 0..40 {
            for start in 0..bytes.len() - len {
                let s = &bytes[start..start + len];
                let want = s.iter().position(|&c| c < 0x20 || c == b'"' || c == b'\\');
                assert_eq!(first_string_special(s), want, "{s:?}");
            }
        }
        for c in [0u8, 0x1f, b'"', b'\\'] {
            for at in 0..32 {
                let mut s = vec![b'a'; 32];
                s[at] = c;
                if at + 1 < 32 {
                    s[at + 1] = 0;
                }
                assert_eq!(first_string_special(&s), Some(at));
            }
        }
    }
}
