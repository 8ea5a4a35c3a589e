//! Byte-level help for reading JSON text without a parser: where a string's run of plain
//! bytes ends.

/// The bytes that end a run of a JSON string's plain bytes: `"`, `\` and the control
/// characters.
pub static STRING_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
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

#[cfg(test)]
mod tests {
    use super::*;

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
