//! The finish rule, one for every provider: a stream is finished only when the vendor said why it
//! stopped (OpenAI `finish_reason`, Anthropic `message_delta.stop_reason`, Gemini
//! `finishReason`). `[DONE]`, `message_stop` or the end of the body without it is a cut stream:
//! a recoverable provider error, retried while nothing reached the caller, never `complete`.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::fake_server::{FakeServer, Reply};
use crate::support::provider_cases::{chat, provider, Rec};

/// A stream carrying `text` (when given) whose vendor end marker comes without a stop reason.
fn unfinished(kind: &str, text: Option<&str>) -> Reply {
    let mut f = Vec::new();
    match kind {
        "anthropic" => {
            f.push("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n".to_string());
            if let Some(t) = text {
                f.push("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n".to_string());
                f.push(format!("event: content_block_delta\ndata: {}\n\n", json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":t}})));
                f.push("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n".to_string());
            }
            f.push("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".to_string());
        }
        "gemini" => {
            if let Some(t) = text {
                f.push(format!(
                    "data: {}\r\n\r\n",
                    json!({"candidates":[{"content":{"parts":[{"text":t}],"role":"model"},"index":0}]})
                ));
            }
        }
        _ => {
            if let Some(t) = text {
                f.push(format!(
                    "data: {}\n\n",
                    json!({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":t},"finish_reason":null}]})
                ));
            }
            f.push("data: [DONE]\n\n".to_string());
        }
    }
    Reply::sse(f)
}

fn marker(kind: &str) -> &'static str {
    match kind {
        "anthropic" => "message_delta.stop_reason",
        "gemini" => "finishReason",
        _ => "finish_reason",
    }
}

#[tokio::test]
async fn an_end_marker_without_a_stop_reason_is_a_cut_stream_never_complete() {
    for kind in ["anthropic", "openai", "gemini"] {
        let server = FakeServer::start();
        server.enqueue(unfinished(kind, Some("partial")));
        let p = provider(&server, kind, json!({}));
        let mut sink = Rec::default();
        let e = chat(p.as_ref(), &mut sink, CancellationToken::new())
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "Provider Error ({kind}): {kind} at {}: the stream ended without a stop reason (no `{}`): the answer is cut",
                server.base_url_for(kind),
                marker(kind)
            ),
            "{kind}"
        );
        assert_eq!(e.code(), "PROVIDER_ERROR");
        assert!(e.is_recoverable(), "{kind}: a cut stream may succeed later");
        assert_eq!(sink.text, vec!["partial"], "{kind}");
        assert_eq!(
            server.requests().len(),
            1,
            "{kind}: never retried once text reached the caller"
        );
    }
}

#[tokio::test]
async fn a_cut_stream_before_any_content_is_retried() {
    for kind in ["anthropic", "openai", "gemini"] {
        let server = FakeServer::start();
        server.enqueue(unfinished(kind, None));
        server.enqueue(Reply::for_kind(
            kind,
            &crate::support::fake_server::Turn::text(["whole"]),
        ));
        let p = provider(&server, kind, json!({}));
        let mut sink = Rec::default();
        let r = chat(p.as_ref(), &mut sink, CancellationToken::new())
            .await
            .unwrap();
        assert_eq!(r.content, "whole", "{kind}");
        assert_eq!(sink.text, vec!["whole"], "{kind}");
        assert_eq!(server.requests().len(), 2, "{kind}");
    }
}

#[test]
fn a_cut_reply_fails_the_session_turn_without_another_model_call() {
    for kind in ["anthropic", "openai", "gemini"] {
        let server = FakeServer::start();
        server.enqueue(unfinished(kind, Some("half an ans")));
        let rt = crate::support::host_session::runtime(server.provider_config(kind));
        let host = crate::support::host_session::Host::open(&rt, json!({"tools": []})).unwrap();
        let e = host.turn(json!({"text": "hi"})).unwrap_err();
        assert_eq!(
            e.details.as_deref().unwrap()["code"],
            "PROVIDER_ERROR",
            "{kind}"
        );
        let done = host.last_completed();
        assert_eq!(done["stop_reason"], "error", "{kind}: never complete");
        assert_eq!(done["error_details"]["recoverable"], true, "{kind}");
        assert!(done["error"]
            .as_str()
            .unwrap()
            .contains("the stream ended without a stop reason"));
        assert_eq!(server.requests().len(), 1, "{kind}: no hidden model call");
    }
}
