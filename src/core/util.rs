//! Small shared helpers: ids, timestamps, number formatting.

use chrono::{SecondsFormat, Utc};

/// A fresh random UUID (v4) as a string.
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The current UTC time as an ISO-8601 string with milliseconds (`2026-01-01T00:00:00.000Z`).
pub fn now_iso() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    u64::try_from(Utc::now().timestamp_millis()).unwrap_or(0)
}

/// `<prefix>_<epochMs>_<9 base-36 chars>`, the id shape Robota uses for conversations and sessions.
/// Written straight into one allocation: sessions are created often, `format!` costs several
/// times more.
pub fn prefixed_id(prefix: &str) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut id = String::with_capacity(prefix.len() + 32);
    id.push_str(prefix);
    id.push('_');
    id.push_str(decimal(now_ms(), &mut [0; 20]));
    id.push('_');
    for _ in 0..9 {
        id.push(char::from(ALPHABET[fastrand::usize(..ALPHABET.len())]));
    }
    id
}

/// `n` in decimal, written into the end of `buf` (no allocation, no formatter).
pub fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        // `n % 10` < 10: the cast cannot truncate.
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&buf[at..]).unwrap_or("0")
}

/// Formats an integer with en-US thousands separators (`1234567` → `1,234,567`).
pub fn format_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Rounds to two decimals (as JavaScript's `Math.round(x * 100) / 100`).
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Truncates `text` in the middle so that it keeps at most `keep_each` chars at each end,
/// inserting `marker` between; never splits a UTF-8 code point. Returns `None` if no cut is needed.
pub fn truncate_middle(
    text: &str,
    max_chars: usize,
    keep_each: usize,
    marker: &str,
) -> Option<String> {
    let total = text.chars().count();
    if total <= max_chars {
        return None;
    }
    let head_end = text
        .char_indices()
        .nth(keep_each)
        .map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(total.saturating_sub(keep_each))
        .map_or(text.len(), |(i, _)| i);
    let mut out = String::with_capacity(head_end + marker.len() + (text.len() - tail_start));
    out.push_str(&text[..head_end]);
    out.push_str(marker);
    out.push_str(&text[tail_start..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixed_ids() {
        for n in [0, 7, 10, 1_700_000_000_123, u64::MAX] {
            assert_eq!(decimal(n, &mut [0; 20]), n.to_string());
        }
        let before = now_ms();
        let id = prefixed_id("session");
        let parts: Vec<&str> = id.split('_').collect();
        assert_eq!(parts.len(), 3, "{id}");
        assert_eq!(parts[0], "session");
        let ms: u64 = parts[1].parse().unwrap();
        assert!(ms >= before && ms <= now_ms(), "{id}");
        assert_eq!(parts[2].len(), 9);
        assert!(parts[2]
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
        assert_ne!(prefixed_id("session"), id);
    }

    #[test]
    fn thousands() {
        assert_eq!(format_thousands(0), "0");
        assert_eq!(format_thousands(999), "999");
        assert_eq!(format_thousands(1000), "1,000");
        assert_eq!(format_thousands(1234567), "1,234,567");
    }

    #[test]
    fn truncate_keeps_code_points() {
        let s = "é".repeat(10);
        let t = truncate_middle(&s, 4, 2, "|").unwrap_or_default();
        assert_eq!(t, "éé|éé");
        assert!(truncate_middle("abc", 4, 2, "|").is_none());
    }
}
