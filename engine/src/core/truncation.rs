//! The one truncation policy for tool output (applied after the tool ran): text longer than the
//! limit keeps its first and last halves around a marker, never splits a UTF-8 code point,
//! and a JSON result stays valid JSON (its longest string values are shortened instead).
//! Built-in tools apply it to their own result documents; the session applies it to every
//! tool result before the model sees it.

use serde_json::Value;

use super::util::{format_thousands, truncate_middle};

/// Longest tool output passed to the model unchanged (characters; reference
/// `MAX_TOOL_OUTPUT_CHARS`).
pub const MAX_TOOL_OUTPUT_CHARS: usize = 30_000;

/// The marker that replaces the middle of a long output.
pub fn truncation_marker(total_chars: usize, keep_each: usize) -> String {
    format!(
        "\n\n[... output truncated: {} chars total, showing first and last {} chars ...]\n\n",
        format_thousands(total_chars as u64),
        format_thousands(keep_each as u64)
    )
}

/// Keeps `keep_each` characters at each end of `text` (which has `total` characters) around
/// the marker.
fn cut_middle(text: &str, total: usize, keep_each: usize) -> String {
    truncate_middle(
        text,
        keep_each * 2,
        keep_each,
        &truncation_marker(total, keep_each),
    )
    .unwrap_or_else(|| text.to_string())
}

fn longest_string_leaf(v: &mut Value) -> Option<&mut String> {
    match v {
        Value::String(s) => Some(s),
        Value::Array(items) => items
            .iter_mut()
            .filter_map(longest_string_leaf)
            .max_by_key(|s| s.len()),
        Value::Object(m) => m
            .values_mut()
            .filter_map(longest_string_leaf)
            .max_by_key(|s| s.len()),
        _ => None,
    }
}

/// Characters of `s` once encoded as a JSON string (quotes and escapes included).
fn encoded_chars(s: &str) -> usize {
    serde_json::to_string(s).map_or(usize::MAX, |e| e.chars().count())
}

/// Shortens the longest string values of `value` (each cut once, from its original text, so
/// the marker names its real length) until the JSON text fits `max_chars`; `None` when that
/// cannot be done (more than 8 long values, or only non-string bulk).
fn truncate_json(mut value: Value, max_chars: usize) -> Option<String> {
    for _ in 0..8 {
        let text = serde_json::to_string(&value).ok()?;
        let n = text.chars().count();
        if n <= max_chars {
            return Some(text);
        }
        let leaf = longest_string_leaf(&mut value)?;
        let original = std::mem::take(leaf);
        let total = original.chars().count();
        let leaf_json = encoded_chars(&original);
        if total == 0 {
            return None;
        }
        if leaf_json <= n - max_chars {
            // This value alone cannot absorb the excess (several long values, e.g. an MCP
            // result's text and its structured copy): it gets a small share, the next goes on.
            let keep_each = (max_chars / 16).min(total / 2);
            *leaf = cut_middle(&original, total, keep_each);
            continue;
        }
        // Escapes make the encoded leaf longer than its chars: scale each step by that ratio.
        let ratio = leaf_json as f64 / total as f64;
        let mut keep_each = ((leaf_json - (n - max_chars)) as f64 / ratio / 2.0) as usize;
        keep_each = keep_each.min(max_chars / 2);
        loop {
            let cut = cut_middle(&original, total, keep_each);
            let fitted = n - leaf_json + encoded_chars(&cut);
            if fitted <= max_chars || keep_each == 0 {
                *leaf = cut;
                break;
            }
            let step = ((fitted - max_chars) as f64 / ratio / 2.0) as usize + 1;
            keep_each = keep_each.saturating_sub(step);
        }
    }
    None
}

/// Truncates `text` when it has more than `max_chars` characters: a JSON object/array keeps
/// being valid JSON with its longest strings shortened; anything else keeps the first and last
/// `max_chars / 2` characters around [`truncation_marker`]. `None` when no cut is needed.
pub fn truncate_output(text: &str, max_chars: usize) -> Option<String> {
    let total = text.chars().count();
    if total <= max_chars {
        return None;
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            if let Some(t) = truncate_json(v, max_chars) {
                return Some(t);
            }
        }
    }
    Some(cut_middle(text, total, max_chars / 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_keeps_both_halves_and_code_points() {
        let s = "é".repeat(50);
        let t = truncate_output(&s, 10).unwrap();
        assert_eq!(t, format!("ééééé{}ééééé", truncation_marker(50, 5)));
        assert_eq!(truncate_output("short", 10), None);
    }

    #[test]
    fn json_stays_json() {
        let doc = serde_json::json!({"success": true, "output": "한\n".repeat(40_000)});
        let t = truncate_output(&doc.to_string(), MAX_TOOL_OUTPUT_CHARS).unwrap();
        assert!(t.chars().count() <= MAX_TOOL_OUTPUT_CHARS);
        let back: Value = serde_json::from_str(&t).unwrap();
        let out = back["output"].as_str().unwrap();
        assert!(out.starts_with("한\n한"));
        assert!(out.contains("[... output truncated: 80,000 chars total"));
        assert!(out.ends_with("한\n"));
    }
}
