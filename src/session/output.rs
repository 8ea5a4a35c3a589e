//! Tool-result texts of the enforcer: failure JSON, and middle truncation of long outputs
//! (reference §11.3 step 6) that never breaks UTF-8 and, for JSON results, never cuts a JSON
//! string in half (the long string values are shortened instead and the JSON stays valid).

use serde_json::Value;

use crate::core::util::{format_thousands, truncate_middle};

/// Longest tool output passed to the model unchanged (characters).
pub const MAX_TOOL_OUTPUT_CHARS: usize = 30_000;
/// Characters kept at each end of a truncated output.
pub const TRUNCATE_KEEP_EACH: usize = 15_000;
/// The denial text (reference wording; more detail may follow it).
pub const PERMISSION_DENIED: &str = "Permission denied. The user did not approve this action.";
/// Prefix of a PreToolUse block.
pub const BLOCKED_BY_HOOK_PREFIX: &str = "Blocked by hook: ";

/// `{"success":false,"output":"","error":<message>}` with the reference's key order.
pub fn failure_json(message: &str) -> String {
    let quoted = serde_json::to_string(message).unwrap_or_else(|_| "\"\"".to_string());
    format!("{{\"success\":false,\"output\":\"\",\"error\":{quoted}}}")
}

/// The marker put between the kept ends.
pub fn truncation_marker(total_chars: usize, keep_each: usize) -> String {
    format!(
        "\n\n[... output truncated: {} chars total, showing first and last {} chars ...]\n\n",
        format_thousands(total_chars as u64),
        format_thousands(keep_each as u64)
    )
}

fn truncate_text(text: &str, total: usize, keep_each: usize) -> String {
    truncate_middle(text, 0, keep_each, &truncation_marker(total, keep_each))
        .unwrap_or_else(|| text.to_string())
}

fn longest_string_leaf(v: &mut Value) -> Option<&mut String> {
    match v {
        Value::String(_) => match v {
            Value::String(s) => Some(s),
            _ => None,
        },
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

fn truncate_json(mut value: Value) -> Option<String> {
    for _ in 0..8 {
        let text = serde_json::to_string(&value).ok()?;
        let n = text.chars().count();
        if n <= MAX_TOOL_OUTPUT_CHARS {
            return Some(text);
        }
        let leaf = longest_string_leaf(&mut value)?;
        let leaf_chars = leaf.chars().count();
        let leaf_json = serde_json::to_string(leaf.as_str()).ok()?.chars().count();
        // Escaping makes the encoded leaf longer than its chars: scale the cut accordingly.
        let excess = n - MAX_TOOL_OUTPUT_CHARS + 200;
        if leaf_json <= excess {
            return None;
        }
        let keep_ratio = (leaf_json - excess) as f64 / leaf_json as f64;
        let keep_each = ((leaf_chars as f64 * keep_ratio) / 2.0) as usize;
        let keep_each = keep_each.min(TRUNCATE_KEEP_EACH);
        *leaf = truncate_text(leaf, leaf_chars, keep_each);
    }
    None
}

/// Truncates `text` when it has more than [`MAX_TOOL_OUTPUT_CHARS`] characters: plain text
/// keeps the first and last 15,000 chars around the marker; a JSON object/array result has its
/// longest string values shortened so the JSON stays valid. `None` when no cut is needed.
pub fn truncate_output(text: &str) -> Option<String> {
    let total = text.chars().count();
    if total <= MAX_TOOL_OUTPUT_CHARS {
        return None;
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            if let Some(t) = truncate_json(v) {
                return Some(t);
            }
        }
    }
    Some(truncate_text(text, total, TRUNCATE_KEEP_EACH))
}
