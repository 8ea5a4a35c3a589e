//! A non-streamed answer to a streaming request (`Content-Type: application/json`, e.g. LiteLLM's
//! Anthropic route): the whole response is rewritten as the stream events the vendor would have
//! sent, so the same decoder handles it: text as one delta, tool calls, usage and stop reason
//! kept, vendor errors classified as in a stream.

use serde_json::{json, Value};

/// One synthetic SSE event: `(event name, data)`.
pub type WholeEvent = (&'static str, String);

/// OpenAI `chat.completion` → one chunk per choice message (tool calls indexed), usage kept.
pub fn openai(body: Value) -> Vec<WholeEvent> {
    let mut chunk = json!({});
    if let Some(err) = body.get("error") {
        chunk["error"] = err.clone();
        return vec![("", chunk.to_string())];
    }
    let choice = body.pointer("/choices/0").cloned().unwrap_or(Value::Null);
    let mut delta = choice.get("message").cloned().unwrap_or_else(|| json!({}));
    if let Some(calls) = delta.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for (i, c) in calls.iter_mut().enumerate() {
            if let Some(o) = c.as_object_mut() {
                o.entry("index").or_insert(json!(i));
            }
        }
    }
    let finish = choice.get("finish_reason").cloned().unwrap_or(Value::Null);
    chunk["choices"] = json!([{"index": 0, "delta": delta, "finish_reason": finish}]);
    if let Some(u) = body.get("usage") {
        chunk["usage"] = u.clone();
    }
    vec![("", chunk.to_string())]
}

/// Anthropic `Message` (or an `error` body) → `message_start`, each block's start / delta /
/// stop, `message_delta` with the stop reason and usage, `message_stop`.
pub fn anthropic(body: Value) -> Vec<WholeEvent> {
    if body.get("type").and_then(Value::as_str) == Some("error") {
        return vec![("error", body.to_string())];
    }
    let usage = body.get("usage").cloned().unwrap_or_else(|| json!({}));
    let mut out = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": body.get("id"), "usage": usage}})
            .to_string(),
    )];
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (index, block) in blocks.into_iter().enumerate() {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let (start, deltas): (Value, Vec<Value>) = match kind {
            "text" => (
                json!({"type": "text", "text": ""}),
                vec![json!({"type": "text_delta", "text": block.get("text")})],
            ),
            "tool_use" => (
                json!({"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": {}}),
                vec![json!({"type": "input_json_delta",
                            "partial_json": block.get("input").unwrap_or(&json!({})).to_string()})],
            ),
            "thinking" => (
                json!({"type": "thinking", "thinking": "", "signature": ""}),
                vec![
                    json!({"type": "thinking_delta", "thinking": block.get("thinking")}),
                    json!({"type": "signature_delta", "signature": block.get("signature")}),
                ],
            ),
            _ => (block, Vec::new()),
        };
        out.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start})
                .to_string(),
        ));
        for d in deltas {
            out.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": d}).to_string(),
            ));
        }
        out.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}).to_string(),
        ));
    }
    out.push((
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": body.get("stop_reason"), "stop_sequence": null},
               "usage": {"output_tokens": usage.get("output_tokens")}})
        .to_string(),
    ));
    out.push(("message_stop", json!({"type": "message_stop"}).to_string()));
    out
}

/// Gemini `GenerateContentResponse`, or the array `streamGenerateContent` returns without
/// `alt=sse`: each element is one stream event.
pub fn gemini(body: Value) -> Vec<WholeEvent> {
    match body {
        Value::Array(items) => items.into_iter().map(|v| ("", v.to_string())).collect(),
        v => vec![("", v.to_string())],
    }
}
