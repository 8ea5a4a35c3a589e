//! History invariants the fake model server checks on every request it receives: each tool
//! result answers a tool call made earlier in the same conversation, and no call is answered
//! twice — in all three vendor shapes (Anthropic `tool_use`/`tool_result` blocks, OpenAI
//! `tool_calls`/`role:"tool"` messages, Gemini `functionCall`/`functionResponse` parts, Responses
//! API `function_call`/`function_call_output` items).
//! A violation names the request path and what was wrong.

use std::collections::HashMap;

use serde_json::Value;

/// The first invariant `body` (a request to `path`) breaks, or `None`.
pub fn tool_pairing_violation(path: &str, body: &Value) -> Option<String> {
    let problem = if let Some(contents) = body.get("contents").and_then(Value::as_array) {
        gemini(contents)
    } else if let Some(messages) = body.get("messages").and_then(Value::as_array) {
        if path.contains("/messages") {
            anthropic(messages)
        } else {
            openai(messages)
        }
    } else if let Some(items) = body.get("input").and_then(Value::as_array) {
        responses(items)
    } else {
        None
    };
    problem.map(|p| format!("{path}: {p}"))
}

/// Open calls by id: `true` once answered.
#[derive(Default)]
struct Calls(HashMap<String, bool>);

impl Calls {
    fn call(&mut self, id: &str) {
        self.0.insert(id.to_string(), false);
    }

    fn answer(&mut self, id: &str, at: usize) -> Option<String> {
        match self.0.get_mut(id) {
            None => Some(format!(
                "message {at}: tool result for {id:?} answers no earlier tool call"
            )),
            Some(true) => Some(format!("message {at}: tool call {id:?} answered twice")),
            Some(done) => {
                *done = true;
                None
            }
        }
    }
}

fn anthropic(messages: &[Value]) -> Option<String> {
    let mut calls = Calls::default();
    for (i, m) in messages.iter().enumerate() {
        for block in m
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => calls.call(block.get("id").and_then(Value::as_str)?),
                Some("tool_result") => {
                    let id = block
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    if let Some(p) = calls.answer(id, i) {
                        return Some(p);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

fn openai(messages: &[Value]) -> Option<String> {
    let mut calls = Calls::default();
    for (i, m) in messages.iter().enumerate() {
        for tc in m
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            calls.call(tc.get("id").and_then(Value::as_str).unwrap_or(""));
        }
        if m.get("role").and_then(Value::as_str) == Some("tool") {
            let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
            if let Some(p) = calls.answer(id, i) {
                return Some(p);
            }
        }
    }
    None
}

/// Responses API items: `function_call` / `function_call_output` paired by `call_id`.
fn responses(items: &[Value]) -> Option<String> {
    let mut calls = Calls::default();
    for (i, item) in items.iter().enumerate() {
        let id = item.get("call_id").and_then(Value::as_str).unwrap_or("");
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => calls.call(id),
            Some("function_call_output") => {
                if let Some(p) = calls.answer(id, i) {
                    return Some(p);
                }
            }
            _ => {}
        }
    }
    None
}

/// Gemini pairs by `id` when the call carried one, else by function name.
fn gemini(contents: &[Value]) -> Option<String> {
    let mut open: HashMap<String, usize> = HashMap::new();
    for (i, c) in contents.iter().enumerate() {
        for part in c
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(fc) = part.get("functionCall") {
                *open.entry(gemini_key(fc)).or_default() += 1;
            }
            if let Some(fr) = part.get("functionResponse") {
                let key = gemini_key(fr);
                match open.get_mut(&key) {
                    Some(n) if *n > 0 => *n -= 1,
                    _ => {
                        return Some(format!(
                            "content {i}: functionResponse {key:?} answers no open functionCall"
                        ))
                    }
                }
            }
        }
    }
    None
}

fn gemini_key(v: &Value) -> String {
    match v.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => format!("id:{id}"),
        _ => format!(
            "name:{}",
            v.get("name").and_then(Value::as_str).unwrap_or("")
        ),
    }
}
