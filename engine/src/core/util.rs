//! Small shared helpers: ids, timestamps, number formatting, the unknown-key message.

use chrono::{DateTime, Datelike, SecondsFormat, Timelike, Utc};

/// A fresh random UUID (v4) as a string.
pub fn new_uuid() -> String {
    // The hyphenated lower-case form `to_string` writes, without the `fmt` machinery.
    let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
    uuid::Uuid::new_v4()
        .hyphenated()
        .encode_lower(&mut buf)
        .to_owned()
}

/// The current UTC time as an ISO-8601 string with milliseconds (`2026-01-01T00:00:00.000Z`).
pub fn now_iso() -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(since) => iso_since_epoch(since),
        Err(_) => iso_millis(Utc::now()),
    }
}

/// [`iso_millis`] of the time `since` the epoch. The text up to the second is formatted once
/// per second and thread (a turn takes several timestamps within one second); a call within
/// the same second only writes the milliseconds.
fn iso_since_epoch(since: std::time::Duration) -> String {
    use std::cell::Cell;
    thread_local! {
        /// The last second formatted on this thread and its text.
        static LAST: Cell<Option<(u64, [u8; 24])>> = const { Cell::new(None) };
    }
    let (secs, ms) = (since.as_secs(), since.subsec_millis());
    let exact = || {
        let t = i64::try_from(since.as_millis())
            .ok()
            .and_then(DateTime::<Utc>::from_timestamp_millis)
            .unwrap_or_default();
        iso_millis(t)
    };
    let mut text = match LAST.with(Cell::get) {
        Some((s, text)) if s == secs => text,
        _ => {
            let formatted = exact();
            let Ok(text) = <[u8; 24]>::try_from(formatted.as_bytes()) else {
                // Not the 24-byte form (a year past 9999): not cached.
                return formatted;
            };
            LAST.with(|l| l.set(Some((secs, text))));
            return formatted;
        }
    };
    // `ms` < 1000: each digit is below 10.
    text[20] = b'0' + (ms / 100) as u8;
    text[21] = b'0' + (ms / 10 % 10) as u8;
    text[22] = b'0' + (ms % 10) as u8;
    match std::str::from_utf8(&text) {
        Ok(s) => s.to_owned(),
        Err(_) => exact(),
    }
}

/// `t` exactly as `to_rfc3339_opts(SecondsFormat::Millis, true)` writes it, for years 0–9999
/// written digit by digit into one allocation (chrono's formatter goes through `fmt::Write`
/// piece by piece; timestamps are taken for every message and history entry). Other years
/// and leap seconds are left to chrono.
pub fn iso_millis(t: DateTime<Utc>) -> String {
    let (year, nanos) = (t.year(), t.nanosecond());
    let Ok(year) = u32::try_from(year) else {
        return t.to_rfc3339_opts(SecondsFormat::Millis, true);
    };
    if year > 9999 || nanos >= 1_000_000_000 {
        return t.to_rfc3339_opts(SecondsFormat::Millis, true);
    }
    let mut b = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut n: u32| {
        for i in (at..at + width).rev() {
            // `n % 10` < 10: the cast cannot truncate.
            b[i] = b'0' + (n % 10) as u8;
            n /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, t.month());
    put(8, 2, t.day());
    put(11, 2, t.hour());
    put(14, 2, t.minute());
    put(17, 2, t.second());
    put(20, 3, nanos / 1_000_000);
    // Only ASCII digits and separators were written.
    match std::str::from_utf8(&b) {
        Ok(s) => s.to_owned(),
        Err(_) => t.to_rfc3339_opts(SecondsFormat::Millis, true),
    }
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
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
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

/// The one rule for unknown keys in a JSON document the library is given: the message tail
/// `field "<key>" is not a known field (known: a, b, …)` for the first key of `map` (in key
/// order) that is not in `known`, or `None` when every key is known. Every document uses it
/// (through [`crate::sdk::config::check_strict`] or, in the provider layer, directly).
pub fn unknown_field(
    map: &serde_json::Map<String, serde_json::Value>,
    known: &[&str],
) -> Option<String> {
    map.keys()
        .find(|k| !known.contains(&k.as_str()))
        .map(|k| unknown_field_message(k, known))
}

/// `field "<key>" is not a known field (known: a, b, …)` (see [`unknown_field`]).
pub fn unknown_field_message(key: &str, known: &[&str]) -> String {
    format!(
        "field \"{key}\" is not a known field (known: {})",
        known.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_hyphenated_lower_case_v4() {
        for _ in 0..100 {
            let u = new_uuid();
            let parsed = uuid::Uuid::parse_str(&u).map(|p| p.to_string());
            assert_eq!(parsed.as_deref(), Ok(u.as_str()));
            assert_eq!(u.len(), 36);
            assert_eq!(&u[14..15], "4");
        }
    }

    #[test]
    fn now_iso_writes_what_chrono_writes_within_and_across_seconds() {
        let chrono_text = |ms: u64| {
            DateTime::<Utc>::from_timestamp_millis(ms as i64)
                .unwrap()
                .to_rfc3339_opts(SecondsFormat::Millis, true)
        };
        // Within one second (the cached part reused), into the next, back to an earlier one,
        // and far ahead.
        let times: [u64; 9] = [
            1_767_225_598_001,
            1_767_225_598_999,
            1_767_225_598_500,
            1_767_225_599_000,
            1_767_225_599_999,
            1_767_225_600_000,
            1_767_225_598_042,
            253_402_300_799_999,
            0,
        ];
        for ms in times {
            let since = std::time::Duration::from_millis(ms);
            assert_eq!(iso_since_epoch(since), chrono_text(ms), "{ms}");
        }
        let now = now_iso();
        assert_eq!(now.len(), 24, "{now}");
        assert!(DateTime::parse_from_rfc3339(&now).is_ok(), "{now}");
    }

    #[test]
    fn iso_millis_writes_what_chrono_writes() {
        let chrono_text = |t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
        let mut ms: Vec<i64> = vec![
            0,
            1,
            999,
            1_000,
            59_999,
            951_782_400_000,     // 2000-02-29
            1_767_225_599_999,   // 2025-12-31T23:59:59.999
            1_767_225_600_000,   // 2026-01-01
            -62_167_219_200_000, // 0000-01-01
            253_402_300_799_999, // 9999-12-31T23:59:59.999
            253_402_300_800_000, // 10000-01-01: chrono's form
            -62_167_219_200_001, // year -1: chrono's form
        ];
        let mut x: i64 = 1_700_000_000_123;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ms.push(x.rem_euclid(253_402_300_800_000));
        }
        for m in ms {
            let Some(t) = DateTime::<Utc>::from_timestamp_millis(m) else {
                continue;
            };
            assert_eq!(iso_millis(t), chrono_text(t), "{m}");
        }
        // A leap second (nanoseconds ≥ 1e9) is chrono's to write.
        let leap = DateTime::<Utc>::from_timestamp(1_483_228_799, 1_500_000_000);
        if let Some(t) = leap {
            assert_eq!(iso_millis(t), chrono_text(t));
        }
        assert_eq!(now_iso().len(), 24);
    }

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
