//! The `{ok, reason}` verdict shared by the hook executors that ask something else to decide:
//! `http` (the response body), `prompt` (the session's model) and `agent` (a subagent).
//!
//! `ok` is read with JavaScript truthiness; truthy → exit 0 with the JSON as stdout; otherwise
//! exit 2 (block) with `reason`, or the executor's default reason when `reason` is missing or
//! empty. A model's reply may wrap the JSON in a fenced block.

use serde_json::Value;

use super::types::{HookResult, EXIT_BLOCK};

/// The sentence appended to prompt and agent hook questions.
pub const RESPOND_WITH_JSON: &str = "Respond with JSON: { \"ok\": boolean, \"reason\"?: string }";

/// JavaScript truthiness of an optional JSON value (`ok` of hook answers).
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

/// The JSON text of a model's reply: the inside of its first fenced block (```` ``` ```` or
/// ```` ```json ````), else the trimmed reply.
pub fn json_text(reply: &str) -> &str {
    let Some(start) = reply.find("```") else {
        return reply.trim();
    };
    let rest = &reply[start + 3..];
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    match rest.find("```") {
        Some(end) => rest[..end].trim(),
        None => reply.trim(),
    }
}

/// The hook result of a parsed `{ok, reason}` answer; `default_block` is the reason of a block
/// that gives none.
pub fn from_json(answer: &Value, default_block: &str) -> HookResult {
    if truthy(answer.get("ok")) {
        return HookResult::new(0, answer.to_string(), "");
    }
    let reason = answer
        .get("reason")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
        .unwrap_or(default_block);
    HookResult::new(EXIT_BLOCK, "", reason)
}

/// The hook result of a model's reply: unparsable → exit 1 `Failed to parse <who> response as
/// JSON: <reply>`, else [`from_json`]. `who` is `AI` (prompt hooks) or `agent`.
pub fn from_reply(reply: &str, who: &str, default_block: &str) -> HookResult {
    match serde_json::from_str::<Value>(json_text(reply)) {
        Ok(answer) => from_json(&answer, default_block),
        Err(_) => HookResult::failure(format!("Failed to parse {who} response as JSON: {reply}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_and_bare_replies_give_their_json_text() {
        assert_eq!(
            json_text("sure\n```json\n{\"ok\":true}\n```\n"),
            "{\"ok\":true}"
        );
        assert_eq!(json_text("```\n{\"ok\":false}\n```"), "{\"ok\":false}");
        assert_eq!(json_text("  {\"ok\":1} "), "{\"ok\":1}");
        assert_eq!(json_text("```json {\"ok\":1}"), "```json {\"ok\":1}");
    }

    #[test]
    fn verdicts_allow_block_with_reason_or_default_and_fail_on_garbage() {
        let allow = from_reply("{\"ok\":1}", "AI", "D");
        assert_eq!((allow.exit_code, allow.stdout.as_str()), (0, "{\"ok\":1}"));
        let block = from_reply("{\"ok\":false,\"reason\":\"no\"}", "AI", "D");
        assert_eq!((block.exit_code, block.stderr.as_str()), (2, "no"));
        let default = from_reply("{\"ok\":\"\",\"reason\":\"\"}", "agent", "D");
        assert_eq!((default.exit_code, default.stderr.as_str()), (2, "D"));
        let garbage = from_reply("maybe", "agent", "D");
        assert_eq!(
            (garbage.exit_code, garbage.stderr.as_str()),
            (1, "Failed to parse agent response as JSON: maybe")
        );
    }
}
