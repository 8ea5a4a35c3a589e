//! A non-streamed Responses API answer (`application/json`: a `response` object, or an
//! `{"error":…}` body) rewritten as the stream events that stand for it: each output item's
//! text or refusal as one delta, function calls and reasoning items as finished items, then
//! `response.completed` / `response.incomplete` / `response.failed` by the response's status.

use serde_json::{json, Value};

use crate::providers::whole::WholeEvent;

/// The events standing for `body`.
pub(super) fn events(body: Value) -> Vec<WholeEvent> {
    let ev = |v: Value| ("", v.to_string());
    if body.get("object").and_then(Value::as_str) != Some("response") {
        let e = body.get("error").cloned().unwrap_or(json!({}));
        return vec![ev(
            json!({"type": "error", "code": e.get("code"), "message": e.get("message")}),
        )];
    }
    let mut out = Vec::new();
    let items = body.get("output").and_then(Value::as_array);
    for item in items.into_iter().flatten() {
        if item.get("type").and_then(Value::as_str) == Some("message") {
            let parts = item.get("content").and_then(Value::as_array);
            for part in parts.into_iter().flatten() {
                let (kind, field) = match part.get("type").and_then(Value::as_str) {
                    Some("output_text") => ("response.output_text.delta", "text"),
                    Some("refusal") => ("response.refusal.delta", "refusal"),
                    _ => continue,
                };
                out.push(ev(json!({"type": kind, "delta": part.get(field)})));
            }
        }
        out.push(ev(
            json!({"type": "response.output_item.done", "item": item}),
        ));
    }
    let end = match body.get("status").and_then(Value::as_str) {
        Some("incomplete") => "response.incomplete",
        Some("failed") => "response.failed",
        _ => "response.completed",
    };
    out.push(ev(json!({"type": end, "response": body})));
    out
}
