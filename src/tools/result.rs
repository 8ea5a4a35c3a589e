//! The built-in tools' result document `{success, output, error?, exitCode?, startLine?}` and
//! UTF-8/JSON-safe middle truncation of long results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::tool::ToolResult;
use crate::core::util::{format_thousands, truncate_middle};

/// The Session's limit on a tool result (reference `MAX_TOOL_OUTPUT_CHARS`).
pub const MAX_TOOL_OUTPUT_CHARS: usize = 30_000;

/// Result of a built-in tool (serialized camelCase; absent optionals omitted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// Whether the operation succeeded.
    pub success: bool,
    /// The output text (empty on most failures).
    pub output: String,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Exit code of a shell command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// 1-based line of the first edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
}

impl ToolOutput {
    /// `{success:true, output}`.
    pub fn ok(output: impl Into<String>) -> Self {
        ToolOutput {
            success: true,
            output: output.into(),
            error: None,
            exit_code: None,
            start_line: None,
        }
    }

    /// `{success:false, output:"", error}`.
    pub fn fail(error: impl Into<String>) -> Self {
        ToolOutput {
            success: false,
            output: String::new(),
            error: Some(error.into()),
            exit_code: None,
            start_line: None,
        }
    }

    /// The JSON text, with `output` truncated in the middle so the whole text stays within
    /// `max_chars` characters (when that is possible) and remains valid JSON.
    pub fn to_json(&self, max_chars: usize) -> String {
        let full = serde_json::to_string(self).unwrap_or_default();
        if full.chars().count() <= max_chars {
            return full;
        }
        let total = self.output.chars().count();
        let mut keep_each = max_chars / 2;
        let mut best = full;
        for _ in 0..24 {
            let mut copy = self.clone();
            copy.output = cut(&self.output, total, keep_each);
            let text = serde_json::to_string(&copy).unwrap_or_default();
            let len = text.chars().count();
            best = text;
            if len <= max_chars || keep_each == 0 {
                break;
            }
            let excess = len - max_chars;
            keep_each = keep_each.saturating_sub(excess / 2 + 1);
        }
        best
    }

    /// `Ok(Value::String(json))` as the tool protocol wants it (see [`to_json`](Self::to_json)).
    pub fn into_result(self, max_chars: usize) -> ToolResult {
        Ok(Value::String(self.to_json(max_chars)))
    }
}

/// The marker that replaces the middle of a long output.
pub fn truncation_marker(total_chars: usize, keep_each: usize) -> String {
    format!(
        "\n\n[... output truncated: {} chars total, showing first and last {} chars ...]\n\n",
        format_thousands(total_chars as u64),
        format_thousands(keep_each as u64)
    )
}

fn cut(text: &str, total: usize, keep_each: usize) -> String {
    if total <= keep_each * 2 {
        return text.to_string();
    }
    let marker = truncation_marker(total, keep_each);
    truncate_middle(text, keep_each * 2, keep_each, &marker).unwrap_or_else(|| text.to_string())
}

/// Truncates plain text longer than `max_chars` in the middle: keeps the first and last
/// `max_chars / 2` characters around [`truncation_marker`]. UTF-8 safe.
pub fn truncate_text(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_string();
    }
    cut(text, total, max_chars / 2)
}

/// Truncates a tool result text for the model without breaking it: a built-in result document
/// (JSON object with `success` and a string `output`) keeps being valid JSON with its `output`
/// shortened ([`ToolOutput::to_json`]); any other text is cut in the middle ([`truncate_text`]).
/// Returns the text unchanged when it is within `max_chars`.
pub fn truncate_result_text(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    if text.starts_with('{') {
        if let Ok(doc) = serde_json::from_str::<ToolOutput>(text) {
            let fitted = doc.to_json(max_chars);
            if fitted.chars().count() <= max_chars {
                return fitted;
            }
        }
    }
    truncate_text(text, max_chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape_and_omitted_fields() {
        let mut o = ToolOutput::ok("hi");
        assert_eq!(o.to_json(100), r#"{"success":true,"output":"hi"}"#);
        o.exit_code = Some(2);
        assert_eq!(
            o.to_json(100),
            r#"{"success":true,"output":"hi","exitCode":2}"#
        );
        assert_eq!(
            ToolOutput::fail("nope").to_json(100),
            r#"{"success":false,"output":"","error":"nope"}"#
        );
    }

    #[test]
    fn long_output_fits_and_stays_json() {
        let o = ToolOutput::ok("한\n".repeat(40_000));
        let text = o.to_json(MAX_TOOL_OUTPUT_CHARS);
        assert!(text.chars().count() <= MAX_TOOL_OUTPUT_CHARS);
        let back: ToolOutput = serde_json::from_str(&text).unwrap();
        assert!(back.output.starts_with("한\n한"));
        assert!(back
            .output
            .contains("[... output truncated: 80,000 chars total"));
        assert!(back.output.ends_with("한\n"));
    }

    #[test]
    fn plain_text_truncation() {
        let s = "é".repeat(50);
        let t = truncate_text(&s, 10);
        assert_eq!(t, format!("ééééé{}ééééé", truncation_marker(50, 5)));
        assert_eq!(truncate_result_text("short", 10), "short");
    }
}
