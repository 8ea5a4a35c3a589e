//! Provider cases for a conversation: streaming text, tool round trips, parallel tool calls,
//! aborts and cancellations keeping the partial text, thinking deltas and raw payloads.

use std::sync::{Arc, Mutex};

use robota_engine::core::agent::RunOptions;
use robota_engine::core::execution::RunStop;
use robota_engine::core::message::{Message, MessageState, Role, INTERRUPTED_SUFFIX};
use robota_engine::core::provider::{ChatRequest, NativeWebToolRequest, StopReason, StreamSink};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{agent, chat, flow, frames_through_text, provider, tool_flow, Rec, WAIT};
use crate::support::fake_server::{FakeServer, Reply, Turn};

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
        output_schema: None,
        prompt_cache: robota_engine::core::prompt_cache::PromptCache::Off,
        cache_key: None,
    };
    let r = p.chat(req, &mut sink, cancel).await.unwrap();
    assert_eq!(r.content, "partial");
    assert_eq!(r.stop_reason, StopReason::Aborted);
    assert!(r.tool_calls.is_empty());
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
