//! Behaviour every HTTP provider must show against the fake server, parameterized by `kind`.
//! Each `tests/providers_<kind>.rs` runs these for its kind(s). This module holds the shared
//! helpers (recording sink, provider and agent builders, request readers); the cases are in
//! [`conversation`] (streams, tool calls, aborts, thinking, raw payloads) and [`failures`] (HTTP
//! errors and retries, malformed or cut streams, idle timeouts, key secrecy).
#![allow(dead_code)]

mod conversation;
mod failures;

// Each binary uses only some of the cases (the C library's tests none of them).
#[allow(unused_imports)]
pub use conversation::*;
#[allow(unused_imports)]
pub use failures::*;

use std::sync::Arc;
use std::time::Duration;

use robota_engine::core::agent::{Agent, AgentConfig};
use robota_engine::core::errors::RobotaError;
use robota_engine::core::message::Message;
use robota_engine::core::provider::{
    ChatRequest, ChatResponse, NativeWebToolRequest, Provider, RawPayloadEvent, StreamSink,
    ToolSchema,
};
use robota_engine::core::tool::ClosureTool;
use robota_engine::providers::{create_provider, new_http_client};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::support::fake_server::{FakeServer, RecordedRequest, Reply, Turn};

/// Generous wait for anything asynchronous.
pub const WAIT: Duration = Duration::from_secs(20);

/// A sink recording everything.
#[derive(Default)]
pub struct Rec {
    pub text: Vec<String>,
    pub thinking: Vec<String>,
    pub server_tools: Vec<(String, Value)>,
    pub raw: Vec<RawPayloadEvent>,
    pub want_raw: bool,
    pub activity: usize,
}

impl StreamSink for Rec {
    fn on_text(&mut self, delta: &str) {
        self.text.push(delta.to_string());
    }
    fn on_thinking(&mut self, delta: &str) {
        self.thinking.push(delta.to_string());
    }
    fn on_raw_payload(&mut self, event: RawPayloadEvent) {
        self.raw.push(event);
    }
    fn wants_raw_payloads(&self) -> bool {
        self.want_raw
    }
    fn on_server_tool(&mut self, name: &str, input: &Value) {
        self.server_tools.push((name.to_string(), input.clone()));
    }
    fn on_activity(&mut self) {
        self.activity += 1;
    }
}

/// Builds a provider for `kind` against `server`, with `patch` merged into its config.
pub fn provider(server: &FakeServer, kind: &str, patch: Value) -> Arc<dyn Provider> {
    let mut cfg = server.provider_config(kind);
    if let (Some(o), Some(p)) = (cfg.as_object_mut(), patch.as_object()) {
        for (k, v) in p {
            o.insert(k.clone(), v.clone());
        }
    }
    create_provider(kind, &cfg, &new_http_client().unwrap()).unwrap()
}

/// Calls `chat` once with a system prompt and one user message.
pub async fn chat(
    p: &dyn Provider,
    sink: &mut Rec,
    cancel: CancellationToken,
) -> Result<ChatResponse, RobotaError> {
    let messages = vec![
        Arc::new(Message::system("Be brief.")),
        Arc::new(Message::user("Hi")),
    ];
    let request = ChatRequest {
        messages: &messages,
        tools: &[],
        model: "test-model",
        max_tokens: Some(100),
        temperature: None,
        native_web_tools: NativeWebToolRequest::default(),
        thinking_budget: None,
        tool_choice: &robota_engine::core::tool_choice::ToolChoice::Auto,
        output_schema: None,
        prompt_cache: robota_engine::core::prompt_cache::PromptCache::Off,
        cache_key: None,
    };
    p.chat(request, sink, cancel).await
}

/// The echo tool: returns `echo:<text>`.
pub fn echo_tool() -> Arc<dyn robota_engine::core::tool::Tool> {
    Arc::new(ClosureTool::new(
        "echo",
        "Echoes text",
        json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
        |args: Value| {
            Ok(Value::String(format!(
                "echo:{}",
                args["text"].as_str().unwrap_or("")
            )))
        },
    ))
}

/// An agent over `p` with the echo tool.
pub fn agent(p: Arc<dyn Provider>) -> Agent {
    let mut cfg = AgentConfig::new(p, "test-model");
    cfg.system_message = Some("You are a test.".into());
    cfg.tools = vec![echo_tool()];
    Agent::new(cfg).unwrap()
}

/// Number of frames of a `Turn::text(deltas)` reply up to and including the last text delta.
pub fn frames_through_text(kind: &str, deltas: usize) -> usize {
    match kind {
        // message_start, content_block_start, ping, deltas
        "anthropic" => 3 + deltas,
        // role chunk, deltas
        "gemini" => deltas,
        // response.created, response.in_progress, output_item.added, deltas
        "openai-responses" => 3 + deltas,
        _ => 1 + deltas,
    }
}

/// The tool calls of assistant turns and the tool results, in request order, as
/// `(kind, id, payload)` where kind is `call` or `result`, read from a vendor request body.
pub fn tool_flow(kind: &str, body: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    match kind {
        "anthropic" => {
            for m in body["messages"].as_array().unwrap() {
                for b in m["content"].as_array().unwrap() {
                    match b["type"].as_str().unwrap() {
                        "tool_use" => out.push((
                            "call".into(),
                            b["id"].as_str().unwrap().into(),
                            b["input"].to_string(),
                        )),
                        "tool_result" => out.push((
                            "result".into(),
                            b["tool_use_id"].as_str().unwrap().into(),
                            b["content"].as_str().unwrap().into(),
                        )),
                        _ => {}
                    }
                }
            }
        }
        "openai-responses" => {
            for item in body["input"].as_array().unwrap() {
                let (kind, payload) = match item["type"].as_str() {
                    Some("function_call") => ("call", &item["arguments"]),
                    Some("function_call_output") => ("result", &item["output"]),
                    _ => continue,
                };
                out.push((
                    kind.into(),
                    item["call_id"].as_str().unwrap().into(),
                    payload.as_str().unwrap().into(),
                ));
            }
        }
        "gemini" => {
            for c in body["contents"].as_array().unwrap() {
                for p in c["parts"].as_array().unwrap() {
                    if let Some(fc) = p.get("functionCall") {
                        out.push((
                            "call".into(),
                            fc["name"].as_str().unwrap().into(),
                            fc["args"].to_string(),
                        ));
                    }
                    if let Some(fr) = p.get("functionResponse") {
                        out.push((
                            "result".into(),
                            fr["name"].as_str().unwrap().into(),
                            fr["response"]["content"].as_str().unwrap().into(),
                        ));
                    }
                }
            }
        }
        _ => {
            for m in body["messages"].as_array().unwrap() {
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    out.push((
                        "call".into(),
                        c["id"].as_str().unwrap().into(),
                        c["function"]["arguments"].as_str().unwrap().into(),
                    ));
                }
                if m["role"] == "tool" {
                    out.push((
                        "result".into(),
                        m["tool_call_id"].as_str().unwrap().into(),
                        m["content"].as_str().unwrap().into(),
                    ));
                }
            }
        }
    }
    out
}

fn flow(items: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    items
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

/// A tool schema list used by request-shape tests.
pub fn schemas() -> Vec<Arc<ToolSchema>> {
    vec![Arc::new(ToolSchema {
        name: "echo".into(),
        description: "Echoes text".into(),
        parameters: json!({"type":"object","properties":{"text":{"type":"string"}}}),
    })]
}

/// Sends `messages` once and returns the recorded request.
pub async fn send(
    kind: &str,
    patch: Value,
    messages: Vec<Message>,
    tools: &[Arc<ToolSchema>],
) -> RecordedRequest {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(kind, &Turn::text(["ok"])));
    let p = provider(&server, kind, patch);
    let messages: Vec<Arc<Message>> = messages.into_iter().map(Arc::new).collect();
    let req = ChatRequest {
        messages: &messages,
        tools,
        model: "test-model",
        max_tokens: Some(64),
        temperature: Some(0.5),
        native_web_tools: NativeWebToolRequest::default(),
        thinking_budget: None,
        tool_choice: &robota_engine::core::tool_choice::ToolChoice::Auto,
        output_schema: None,
        prompt_cache: robota_engine::core::prompt_cache::PromptCache::Off,
        cache_key: None,
    };
    p.chat(req, &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap();
    server.requests().remove(0)
}
