//! Behaviour every HTTP provider must show against the fake server, parameterized by `kind`.
//! Each `tests/providers_<kind>.rs` runs these for its kind(s).
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::errors::RobotaError;
use robota_engine::core::execution::RunStop;
use robota_engine::core::message::{Message, MessageState, Role, INTERRUPTED_SUFFIX};
use robota_engine::core::provider::{
    ChatRequest, ChatResponse, NativeWebToolRequest, Provider, RawPayloadEvent, StopReason,
    StreamSink, ToolSchema,
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

/// Streaming text: deltas in order, content, usage, stop reason, one request.
pub async fn streaming_text(kind: &str) {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(
        kind,
        &Turn::text(["Hel", "lo", " wörld"]).usage(12, 3),
    ));
    let p = provider(&server, kind, json!({}));
    let mut sink = Rec::default();
    let r = chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(sink.text, vec!["Hel", "lo", " wörld"]);
    assert_eq!(r.content, "Hello wörld");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    assert!(r.tool_calls.is_empty());
    let u = r.usage.unwrap();
    assert_eq!((u.input_tokens, u.output_tokens), (12, 3));
    assert!(sink.activity >= 1);
    assert_eq!(server.requests().len(), 1);
}

/// A full tool round trip through the engine, with the provider reusing `call_0` in two turns.
pub async fn tool_round_trip(kind: &str) {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(
        kind,
        &Turn::text(["Reading."]).tool("call_0", "echo", r#"{"text":"a"}"#),
    ));
    server.enqueue(Reply::for_kind(
        kind,
        &Turn::text(["Again."]).tool("call_0", "echo", r#"{"text":"b"}"#),
    ));
    server.enqueue(Reply::for_kind(kind, &Turn::text(["Done: a b"])));
    let p = provider(&server, kind, json!({}));
    let a = agent(p);
    let res = a.run("echo twice", RunOptions::default()).await.unwrap();
    assert_eq!(res.stop, RunStop::Complete, "{:?}", res.error);
    assert_eq!(res.response, "Done: a b");
    assert_eq!(res.tools_executed, vec!["echo", "echo"]);
    let msgs = a.messages();
    let roles: Vec<Role> = msgs.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Tool,
            Role::Assistant
        ]
    );
    assert_eq!(msgs[2].content, "Reading.");
    assert_eq!(msgs[2].tool_calls[0].function.arguments, r#"{"text":"a"}"#);
    assert_eq!(msgs[3].content, "echo:a");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let last = tool_flow(kind, &reqs[2].body);
    let expected = match kind {
        "anthropic" => flow(&[
            ("call", "call_0", r#"{"text":"a"}"#),
            ("result", "call_0", "echo:a"),
            ("call", "call_0_1", r#"{"text":"b"}"#),
            ("result", "call_0_1", "echo:b"),
        ]),
        "gemini" => flow(&[
            ("call", "echo", r#"{"text":"a"}"#),
            ("result", "echo", "echo:a"),
            ("call", "echo", r#"{"text":"b"}"#),
            ("result", "echo", "echo:b"),
        ]),
        _ => flow(&[
            ("call", "call_0", r#"{"text":"a"}"#),
            ("result", "call_0", "echo:a"),
            ("call", "call_0", r#"{"text":"b"}"#),
            ("result", "call_0", "echo:b"),
        ]),
    };
    assert_eq!(last, expected);
    // The tool schema was sent.
    let tools = reqs[0].body.to_string();
    assert!(tools.contains("\"echo\"") && tools.contains("Echoes text"));
}

/// Two parallel tool calls in one response; both results follow, in call order.
pub async fn parallel_tool_calls(kind: &str) {
    let server = FakeServer::start();
    let turn = Turn::text(["Both."])
        .tool("call_a", "echo", r#"{"text":"x"}"#)
        .tool("call_b", "echo", r#"{"text":"y"}"#);
    server.enqueue(Reply::for_kind(kind, &turn));
    server.enqueue(Reply::for_kind(kind, &Turn::text(["ok"])));
    let p = provider(&server, kind, json!({}));
    let mut sink = Rec::default();
    let r = chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    let calls: Vec<(&str, &str)> = r
        .tool_calls
        .iter()
        .map(|c| (c.function.name.as_str(), c.function.arguments.as_str()))
        .collect();
    assert_eq!(
        calls,
        vec![("echo", r#"{"text":"x"}"#), ("echo", r#"{"text":"y"}"#)]
    );
    if kind != "gemini" {
        assert_eq!(r.tool_calls[0].id, "call_a");
        assert_eq!(r.tool_calls[1].id, "call_b");
    }
    // Through the engine: both results recorded and sent back after their calls.
    let server2 = FakeServer::start();
    server2.enqueue(Reply::for_kind(kind, &turn));
    server2.enqueue(Reply::for_kind(kind, &Turn::text(["ok"])));
    let a = agent(provider(&server2, kind, json!({})));
    let res = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(res.response, "ok");
    let reqs = server2.requests();
    let f = tool_flow(kind, &reqs[1].body);
    let (ida, idb) = if kind == "gemini" {
        ("echo", "echo")
    } else {
        ("call_a", "call_b")
    };
    assert_eq!(
        f,
        flow(&[
            ("call", ida, r#"{"text":"x"}"#),
            ("call", idb, r#"{"text":"y"}"#),
            ("result", ida, "echo:x"),
            ("result", idb, "echo:y"),
        ])
    );
}

/// Abort mid-stream: the request is dropped, partial text is kept as `interrupted`, and the
/// next request carries it with the interrupted suffix.
pub async fn abort_keeps_partial(kind: &str) {
    let server = FakeServer::start();
    let reply =
        Reply::for_kind(kind, &Turn::text(["Hel", "lo"])).hang_after(frames_through_text(kind, 2));
    server.enqueue(reply);
    server.enqueue(Reply::for_kind(kind, &Turn::text(["fine"])));
    let a = agent(provider(&server, kind, json!({})));
    let cancel = CancellationToken::new();
    let seen = Arc::new(Mutex::new(String::new()));
    let (c2, s2) = (cancel.clone(), seen.clone());
    let opts = RunOptions {
        cancel: Some(cancel.clone()),
        on_text_delta: Some(Arc::new(move |d: &str| {
            let mut s = s2.lock().unwrap();
            s.push_str(d);
            if s.as_str() == "Hello" {
                c2.cancel();
            }
        })),
        ..Default::default()
    };
    let res = a.run("talk", opts).await.unwrap();
    assert!(res.interrupted);
    assert_eq!(res.stop, RunStop::Aborted);
    let msgs = a.messages();
    let last = msgs.last().unwrap();
    assert_eq!(last.role, Role::Assistant);
    assert_eq!(last.content, "Hello");
    assert_eq!(last.state, MessageState::Interrupted);
    assert_eq!(
        server.disconnects_async(1, WAIT).await,
        1,
        "request dropped at once"
    );
    let res = a.run("again", RunOptions::default()).await.unwrap();
    assert_eq!(res.response, "fine");
    let body = server.requests()[1].body.to_string();
    let want = serde_json::to_string(&format!("Hello{INTERRUPTED_SUFFIX}")).unwrap();
    assert!(body.contains(&want), "{body}");
}

/// Direct cancellation returns the partial content with `Aborted`, not an error.
pub async fn cancel_returns_partial(kind: &str) {
    let server = FakeServer::start();
    server.enqueue(
        Reply::for_kind(kind, &Turn::text(["par", "tial"]))
            .hang_after(frames_through_text(kind, 2)),
    );
    let p = provider(&server, kind, json!({}));
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    struct CancelAt(Rec, CancellationToken);
    impl StreamSink for CancelAt {
        fn on_text(&mut self, d: &str) {
            self.0.on_text(d);
            if self.0.text.len() == 2 {
                self.1.cancel();
            }
        }
    }
    let mut sink = CancelAt(Rec::default(), c2);
    let messages = vec![Arc::new(Message::user("Hi"))];
    let req = ChatRequest {
        messages: &messages,
        tools: &[],
        model: "m",
        max_tokens: None,
        temperature: None,
        native_web_tools: NativeWebToolRequest::default(),
        thinking_budget: None,
        tool_choice: &robota_engine::core::tool_choice::ToolChoice::Auto,
    };
    let r = p.chat(req, &mut sink, cancel).await.unwrap();
    assert_eq!(r.content, "partial");
    assert_eq!(r.stop_reason, StopReason::Aborted);
    assert!(r.tool_calls.is_empty());
}

/// 429 with `Retry-After: 1`, then success: retried after at least the advertised delay.
pub async fn rate_limit_then_success(kind: &str) {
    let server = FakeServer::start();
    server.enqueue(
        Reply::error(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "1"),
    );
    server.enqueue(Reply::for_kind(kind, &Turn::text(["ok"])));
    let p = provider(&server, kind, json!({"retry_base_delay_ms": 1}));
    let mut sink = Rec::default();
    let t = Instant::now();
    let r = chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.content, "ok");
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "Retry-After honoured"
    );
    assert_eq!(server.requests().len(), 2);
    // Without retries left the error is a RateLimitError carrying retry-after.
    server.enqueue(
        Reply::error(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "7"),
    );
    let p = provider(&server, kind, json!({"max_retries": 0}));
    let e = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap_err();
    match e {
        RobotaError::RateLimit {
            message,
            retry_after,
        } => {
            assert_eq!(retry_after, Some(Duration::from_secs(7)));
            assert!(
                message.contains("HTTP 429") && message.contains("slow down"),
                "{message}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// Repeated 500 → a recoverable ProviderError after the configured retries.
pub async fn repeated_500(kind: &str) {
    let server = FakeServer::start();
    for _ in 0..3 {
        server.enqueue(Reply::error(
            500,
            r#"{"error":{"message":"upstream exploded"}}"#,
        ));
    }
    let p = provider(
        &server,
        kind,
        json!({"max_retries": 2, "retry_base_delay_ms": 5}),
    );
    let e = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(server.requests().len(), 3);
    match &e {
        RobotaError::Provider {
            provider,
            status,
            recoverable,
            message,
        } => {
            assert_eq!(provider, kind);
            assert_eq!(*status, Some(500));
            assert!(*recoverable);
            assert_eq!(
                message,
                &format!("{kind} returned HTTP 500: upstream exploded")
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(e.code(), "PROVIDER_ERROR");
    assert!(e.is_recoverable());
}

/// 401 → AuthenticationError with the vendor's message; not retried.
pub async fn unauthorized(kind: &str) {
    let server = FakeServer::start();
    server.enqueue(Reply::error(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    ));
    let p = provider(&server, kind, json!({}));
    let e = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("Authentication Error: {kind} returned HTTP 401: invalid x-api-key")
    );
    assert_eq!(server.requests().len(), 1);
}

/// Bad JSON in an event → a clear, non-recoverable ProviderError; a stream cut before its end
/// event → a ProviderError naming the missing end event.
pub async fn malformed_and_cut(kind: &str) {
    let server = FakeServer::start();
    let bad = match kind {
        "anthropic" => "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"\n\n",
        _ => "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}\n\n",
    };
    server.enqueue(
        Reply::for_kind(kind, &Turn::text(["a"])).then_raw_after(frames_through_text(kind, 1), bad),
    );
    let p = provider(&server, kind, json!({}));
    let mut sink = Rec::default();
    let e = chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with(&format!(
            "Provider Error ({kind}): {kind} at {} sent a malformed stream: bad JSON in ",
            server.base_url_for(kind)
        )),
        "{text}"
    );
    assert!(!e.is_recoverable());
    assert_eq!(server.requests().len(), 1);

    // Cut after the first delta: content already reached the caller, so no retry.
    server.enqueue(
        Reply::for_kind(kind, &Turn::text(["a", "b"])).cut_after(frames_through_text(kind, 1)),
    );
    let mut sink = Rec::default();
    let e = chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(sink.text, vec!["a"]);
    let end = match kind {
        "anthropic" => "message_delta.stop_reason",
        "gemini" => "finishReason",
        _ => "finish_reason",
    };
    assert!(
        e.to_string().contains(&format!(
            "the stream ended without a stop reason (no `{end}`)"
        )),
        "{e}"
    );
    assert_eq!(
        server.requests().len(),
        2,
        "never retried after content reached the caller"
    );
}

/// A cut before any content is retried like a connection error.
pub async fn cut_before_content_is_retried(kind: &str) {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(kind, &Turn::text(["a"])).cut_after(0));
    server.enqueue(Reply::for_kind(kind, &Turn::text(["second"])));
    let p = provider(&server, kind, json!({}));
    let r = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.content, "second");
    assert_eq!(server.requests().len(), 2);
}

/// Idle timeout: no byte for `timeout_ms` fails the call (while streaming and before headers).
pub async fn idle_timeout(kind: &str) {
    let server = FakeServer::start();
    server.enqueue(
        Reply::for_kind(kind, &Turn::text(["a", "b"])).hang_after(frames_through_text(kind, 1)),
    );
    server.enqueue(Reply::hang());
    let p = provider(&server, kind, json!({"timeout_ms": 1000, "max_retries": 0}));
    let e = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "Provider Error ({kind}): {kind}: idle timeout: no data for 1000 ms while streaming"
        )
    );
    let e = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("Provider Error ({kind}): {kind}: idle timeout: no data for 1000 ms waiting for the response")
    );
    // Slow but steady streams (each gap below the timeout) are fine: the timer resets per chunk.
    server.enqueue(Reply::for_kind(kind, &Turn::text(["s", "l", "o", "w"])).delay_each_ms(100));
    let p = provider(&server, kind, json!({"timeout_ms": 2000, "max_retries": 0}));
    let r = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.content, "slow");
}

/// A key given as `$ENV:NAME` is sent but never appears in errors, events or texts.
pub async fn env_key_never_leaks(kind: &str) {
    let var = format!("ROBOTA_TEST_KEY_{}", kind.replace('-', "_").to_uppercase());
    let secret = format!("sk-secret-{}-0123456789", kind);
    let server = FakeServer::start();
    // The vendor echoes the key in its error message; it must be scrubbed.
    let body =
        json!({"error": {"message": format!("Incorrect API key provided: {secret}")}}).to_string();
    server.enqueue(Reply::error(401, &body));
    // The variable is passed explicitly: the process environment is never touched.
    let mut cfg = server.provider_config(kind);
    cfg["api_key"] = json!(format!("$ENV:{var}"));
    let env =
        robota_engine::core::env_ref::EnvVars::with_vars(std::collections::BTreeMap::from([(
            var.clone(),
            secret.clone(),
        )]));
    let p =
        robota_engine::providers::create_provider_in(kind, &cfg, &new_http_client().unwrap(), &env)
            .unwrap();
    let events = Arc::new(Mutex::new(Vec::<String>::new()));
    let ev2 = events.clone();
    let a = agent(p.clone());
    let opts = RunOptions {
        on_event: Some(Arc::new(move |name: &str, data: &Value| {
            ev2.lock().unwrap().push(format!("{name} {data}"));
        })),
        ..Default::default()
    };
    let res = a.run("hi", opts).await.unwrap();
    assert_eq!(res.stop, RunStop::Error);
    let err = res.error.clone().unwrap();
    assert!(
        err.contains("Authentication Error") && err.contains("[REDACTED]"),
        "{err}"
    );
    let mut everything = vec![err, res.response.clone()];
    everything.extend(events.lock().unwrap().iter().cloned());
    everything.extend(
        a.messages()
            .iter()
            .map(|m| serde_json::to_string(m.as_ref()).unwrap()),
    );
    assert!(everything.len() > 3);
    for line in &everything {
        assert!(!line.contains(&secret), "key leaked: {line}");
    }
    // It was sent to the server, in the vendor's header.
    let req = &server.requests()[0];
    let sent = match kind {
        "anthropic" => req.header("x-api-key").map(str::to_string),
        "gemini" => req.header("x-goog-api-key").map(str::to_string),
        _ => req.header("authorization").map(str::to_string),
    };
    let want = if kind.starts_with("openai") {
        format!("Bearer {secret}")
    } else {
        secret.clone()
    };
    assert_eq!(sent, Some(want));
    assert!(!req.path.contains(&secret) && !req.raw_body.contains(&secret));
    // An unset variable is an authentication error naming the variable, sent nowhere.
    let p = provider(
        &server,
        kind,
        json!({"api_key": "$ENV:ROBOTA_TEST_UNSET_VARIABLE"}),
    );
    let e = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("Authentication Error: {kind}: the API key environment variable \"ROBOTA_TEST_UNSET_VARIABLE\" is not set")
    );
    assert_eq!(server.requests().len(), 1);
}

/// Thinking deltas go to `on_thinking`, not into the content.
pub async fn thinking(kind: &str) {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(
        kind,
        &Turn::text(["answer"]).thinking(["hmm ", "ok"]),
    ));
    let p = provider(&server, kind, json!({}));
    let mut sink = Rec::default();
    let r = chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(sink.thinking, vec!["hmm ", "ok"]);
    assert_eq!(r.content, "answer");
}

/// Raw payloads are reported only when the sink asks for them.
pub async fn raw_payloads(kind: &str) {
    let server = FakeServer::start();
    let reply = Reply::for_kind(kind, &Turn::text(["a", "b"]));
    let frames = reply.frame_count();
    server.enqueue(reply.clone());
    server.enqueue(reply);
    let p = provider(&server, kind, json!({}));
    let mut sink = Rec {
        want_raw: true,
        ..Default::default()
    };
    chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(sink.raw.len(), 1 + frames);
    assert_eq!(
        serde_json::to_value(&sink.raw[0]).unwrap()["payloadKind"],
        "request"
    );
    assert_eq!(sink.raw[0].payload, server.requests()[0].body);
    assert_eq!(
        serde_json::to_value(&sink.raw[1]).unwrap()["payloadKind"],
        "stream_event"
    );
    let mut sink = Rec::default();
    chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert!(sink.raw.is_empty());
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
    };
    p.chat(req, &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap();
    server.requests().remove(0)
}
