//! The built-in tools' result document `{success, output, error?, exitCode?, startLine?}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::tool::ToolResult;
use crate::core::truncation::truncate_output;

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

    /// The JSON text; past `max_chars` characters its `output` is cut in the middle by the
    /// one truncation policy ([`truncate_output`]), so it stays valid JSON.
    pub fn to_json(&self, max_chars: usize) -> String {
        let full = serde_json::to_string(self).unwrap_or_default();
        truncate_output(&full, max_chars).unwrap_or(full)
    }

    /// `Ok(Value::String(json))` as the tool protocol wants it (see [`to_json`](Self::to_json)).
    pub fn into_result(self, max_chars: usize) -> ToolResult {
        Ok(Value::String(self.to_json(max_chars)))
    }
}

/// `Ok(output)` succeeds with that output; `Err(error)` fails with that error.
impl From<Result<String, String>> for ToolOutput {
    fn from(result: Result<String, String>) -> Self {
        match result {
            Ok(output) => ToolOutput::ok(output),
            Err(error) => ToolOutput::fail(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::truncation::MAX_TOOL_OUTPUT_CHARS;

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
}
