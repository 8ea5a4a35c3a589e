//! Answers that are not the stream asked for. A non-streamed `application/json` answer is the
//! complete response (text as one delta, tool calls, usage and stop reason kept); HTML, an
//! empty body, a 200 with no events, a chunk that is not JSON and tool-call arguments that never
//! close are clear provider errors naming the base URL and the problem, and the next turn works.

use robota_engine::core::agent::RunOptions;
use robota_engine::core::message::Role;
use robota_engine::core::provider::StopReason;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::provider_cases::{agent, chat, provider, Rec};

const KINDS: [&str; 3] = ["anthropic", "openai", "gemini"];

/// The vendor's documented non-streamed answer with text "Hello there" (and one tool call to
/// `echo` when `tool` is set).
fn whole(kind: &str, tool: bool) -> String {
    match kind {
        "anthropic" => {
            let mut content = vec![json!({"type":"text","text":"Hello there"})];
            if tool {
                content.push(json!({"type":"tool_use","id":"toolu_1","name":"echo","input":{"text":"x"}}));
            }
            json!({"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":content,
                   "stop_reason": if tool {"tool_use"} else {"end_turn"},"stop_sequence":null,
                   "usage":{"input_tokens":12,"output_tokens":3}})
        }
        "gemini" => {
            let mut parts = vec![json!({"text":"Hello there"})];
            if tool {
                parts.push(json!({"functionCall":{"name":"echo","args":{"text":"x"}}}));
            }
            json!({"candidates":[{"content":{"parts":parts,"role":"model"},"finishReason":"STOP","index":0}],
                   "usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":3,"totalTokenCount":15}})
        }
        _ => {
            let mut message = json!({"role":"assistant","content":"Hello there"});
            if tool {
                message["tool_calls"] = json!([{"id":"call_1","type":"function","function":{"name":"echo","arguments":"{\"text\":\"x\"}"}}]);
            }
            json!({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",
                   "choices":[{"index":0,"message":message,"finish_reason": if tool {"tool_calls"} else {"stop"}}],
                   "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}})
        }
    }
    .to_string()
}

#[tokio::test]
async fn a_non_streamed_answer_is_the_complete_response() {
    for kind in KINDS {
        let server = FakeServer::start();
        server.enqueue(Reply::body(200, "application/json", &whole(kind, false)));
        let p = provider(&server, kind, json!({}));
        let mut sink = Rec::default();
        let r = chat(p.as_ref(), &mut sink, CancellationToken::new())
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(sink.text, vec!["Hello there"], "{kind}: one TEXT_DELTA");
        assert_eq!(r.content, "Hello there", "{kind}");
        assert_eq!(r.stop_reason, StopReason::EndTurn, "{kind}");
        let u = r.usage.unwrap();
        assert_eq!((u.input_tokens, u.output_tokens), (12, 3), "{kind}");
        assert_eq!(server.requests().len(), 1, "{kind}");
    }
}

#[tokio::test]
async fn a_non_streamed_tool_call_runs_as_usual() {
    for kind in KINDS {
        let server = FakeServer::start();
        server.enqueue(Reply::body(200, "application/json", &whole(kind, true)));
        server.enqueue(Reply::for_kind(kind, &Turn::text(["done"])));
        let a = agent(provider(&server, kind, json!({})));
        let res = a.run("go", RunOptions::default()).await.unwrap();
        assert_eq!(res.response, "done", "{kind}");
        let msgs = a.messages();
        let tool = msgs.iter().find(|m| m.role == Role::Tool).unwrap();
        assert_eq!(tool.content, "echo:x", "{kind}");
        assert_eq!(server.requests().len(), 2, "{kind}");
    }
}

/// `(reply, what the error must say after "<kind> at <base_url>")`.
fn bad(kind: &str) -> Vec<(Reply, String)> {
    let chunk_not_json = match kind {
        "anthropic" => "event: message_start\ndata: <html>oops</html>\n\n",
        _ => "data: <html>oops</html>\n\n",
    };
    vec![
        (
            Reply::body(200, "text/html; charset=utf-8", "<html><body>Welcome to nginx!</body></html>"),
            " answered a web page (`text/html`), not an event stream: check base_url: `<html><body>Welcome to nginx!</body></html>`".to_string(),
        ),
        (
            Reply::body(200, "application/json", ""),
            " answered `application/json` that is not JSON (EOF while parsing a value at line 1 column 0): (empty body)".to_string(),
        ),
        (
            Reply::sse(Vec::new()),
            ": the response ended without any event (an empty stream)".to_string(),
        ),
        (
            Reply::sse(vec![chunk_not_json.to_string()]),
            " sent a malformed stream: bad JSON in ".to_string(),
        ),
    ]
}

#[tokio::test]
async fn bad_answers_are_clear_errors_naming_the_base_url_and_the_next_turn_works() {
    for kind in KINDS {
        for (reply, want) in bad(kind) {
            let server = FakeServer::start();
            // A first good turn: its history must survive the failure.
            server.enqueue(Reply::for_kind(kind, &Turn::text(["first"])));
            server.enqueue(reply);
            let p = provider(&server, kind, json!({"max_retries": 0}));
            let a = agent(p);
            assert_eq!(
                a.run("one", RunOptions::default()).await.unwrap().response,
                "first"
            );
            let res = a.run("two", RunOptions::default()).await.unwrap();
            let text = res.error.unwrap_or_default();
            let head = format!(
                "Provider Error ({kind}): {kind} at {}",
                server.base_url_for(kind)
            );
            assert!(text.starts_with(&format!("{head}{want}")), "{kind}: {text}");
            // The next turn works and the first exchange is still there.
            server.enqueue(Reply::for_kind(kind, &Turn::text(["third"])));
            assert_eq!(
                a.run("three", RunOptions::default())
                    .await
                    .unwrap()
                    .response,
                "third",
                "{kind}"
            );
            let msgs = a.messages();
            assert!(
                msgs.iter()
                    .any(|m| m.role == Role::Assistant && m.content == "first"),
                "{kind}: history kept"
            );
        }
    }
}

#[tokio::test]
async fn tool_call_arguments_that_never_close_are_a_clear_error() {
    for kind in ["anthropic", "openai"] {
        let server = FakeServer::start();
        server.enqueue(Reply::for_kind(
            kind,
            &Turn::text(Vec::<String>::new()).tool("call_1", "echo", "{\"text\":\"unclo"),
        ));
        let p = provider(&server, kind, json!({}));
        let a = agent(p);
        let res = a.run("go", RunOptions::default()).await.unwrap();
        assert!(res.tools_executed.is_empty(), "{kind}");
        assert_eq!(
            res.error.unwrap_or_default(),
            format!(
                "Provider Error ({kind}): {kind} at {} sent tool call `echo` (call_1) whose arguments never close: `{{\"text\":\"unclo`",
                server.base_url_for(kind)
            ),
            "{kind}"
        );
        server.enqueue(Reply::for_kind(kind, &Turn::text(["ok"])));
        assert_eq!(
            a.run("again", RunOptions::default())
                .await
                .unwrap()
                .response,
            "ok",
            "{kind}"
        );
    }
}
