//! Stream fidelity on streams we write, for every wire format: refusals and `max_tokens` as stop
//! reasons, cached-token usage, a stream ending right after its final event (no
//! `message_stop` / `[DONE]` / closing blank line), a stream cut mid-event, and Anthropic's
//! malformed block sequences.

use robota_engine::core::provider::StopReason;

use crate::support::fake_server::{Reply, Turn};
use crate::support::vendor_streams::replay_bytes;

const KINDS: [&str; 3] = ["anthropic", "openai", "gemini"];

fn bytes(kind: &str, turn: &Turn) -> Vec<u8> {
    Reply::for_kind(kind, turn).frames_bytes()
}

#[tokio::test]
async fn refusal_is_the_stop_reason_and_its_text_the_answer() {
    for kind in KINDS {
        let turn = Turn::text(["I can't ", "help with that."]).stop("refusal");
        let (r, sink) = replay_bytes(kind, &bytes(kind, &turn)).await;
        let r = r.unwrap();
        assert_eq!(r.stop_reason, StopReason::Refusal, "{kind}");
        assert_eq!(r.content, "I can't help with that.", "{kind}");
        assert_eq!(sink.text, vec!["I can't ", "help with that."], "{kind}");
    }
}

#[tokio::test]
async fn max_tokens_is_the_stop_reason() {
    for kind in KINDS {
        let turn = Turn::text(["Once upon", " a time"]).stop("max_tokens");
        let r = replay_bytes(kind, &bytes(kind, &turn)).await.0.unwrap();
        assert_eq!(r.stop_reason, StopReason::MaxTokens, "{kind}");
        assert_eq!(r.content, "Once upon a time", "{kind}");
    }
}

#[tokio::test]
async fn cached_prompt_tokens_are_reported() {
    for kind in KINDS {
        let turn = Turn::text(["a"]).usage(100, 5).cached(60);
        let r = replay_bytes(kind, &bytes(kind, &turn)).await.0.unwrap();
        let u = r.usage.unwrap();
        // Anthropic's input excludes the cached tokens; OpenAI's and Gemini's prompt count
        // includes them, so their uncached input is 100 - 60.
        let input = if kind == "anthropic" { 100 } else { 40 };
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.cache_read_tokens),
            (input, 5, 60),
            "{kind}"
        );
    }
}

/// `stream` without its last `marker` event (and whatever follows it).
fn drop_from(stream: &[u8], marker: &str) -> Vec<u8> {
    let text = String::from_utf8(stream.to_vec()).unwrap();
    let at = text.rfind(marker).expect("marker");
    text.as_bytes()[..at].to_vec()
}

#[tokio::test]
async fn a_stream_ending_after_its_final_event_is_complete() {
    // Anthropic without `message_stop`, OpenAI without `[DONE]`, each also without the
    // closing blank line of the event before.
    for (kind, marker) in [
        ("anthropic", "event: message_stop"),
        ("openai", "data: [DONE]"),
    ] {
        let full = bytes(kind, &Turn::text(["Hel", "lo"]).usage(7, 2));
        let cut = drop_from(&full, marker);
        for tail in [0, 1, 2] {
            let stream = &cut[..cut.len() - tail];
            let (r, sink) = replay_bytes(kind, stream).await;
            let r = r.unwrap_or_else(|e| panic!("{kind} -{tail}: {e}"));
            assert_eq!(sink.text, vec!["Hel", "lo"]);
            assert_eq!(r.content, "Hello");
            assert_eq!(r.stop_reason, StopReason::EndTurn);
            let u = r.usage.unwrap();
            assert_eq!((u.input_tokens, u.output_tokens), (7, 2), "{kind}");
        }
    }
}

#[tokio::test]
async fn an_unterminated_last_event_is_accepted_when_complete() {
    for kind in KINDS {
        let full = bytes(kind, &Turn::text(["x", "y"]));
        let blank = if kind == "gemini" { "\r\n\r\n" } else { "\n\n" };
        assert!(full.ends_with(blank.as_bytes()));
        // Without the blank line, and without any line end at all.
        for cut in [blank.len() / 2, blank.len()] {
            let stream = &full[..full.len() - cut];
            let r = replay_bytes(kind, stream).await.0;
            let r = r.unwrap_or_else(|e| panic!("{kind} -{cut}: {e}"));
            assert_eq!(r.content, "xy", "{kind}");
            assert_eq!(r.stop_reason, StopReason::EndTurn, "{kind}");
        }
    }
}

#[tokio::test]
async fn a_stream_cut_inside_an_event_is_still_an_error() {
    for (kind, end) in [
        ("anthropic", "message_delta.stop_reason"),
        ("openai", "finish_reason"),
        ("gemini", "finishReason"),
    ] {
        let full = bytes(kind, &Turn::text(["first", "second"]));
        let text = String::from_utf8(full).unwrap();
        // Cut in the middle of the JSON of the event carrying "second".
        let at = text.find("second").unwrap() + 3;
        let (r, sink) = replay_bytes(kind, &text.as_bytes()[..at]).await;
        let e = r.unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("Provider Error ({kind}): {kind} at http://127.0.0.1:"))
                && text.ends_with(&format!(": the stream ended without a stop reason (no `{end}`): the answer is cut (cut in the middle of an event)")),
            "{text}"
        );
        assert_eq!(sink.text, vec!["first"], "{kind}");
    }
}

const START: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n";

fn anthropic(events: &[&str]) -> Vec<u8> {
    let mut s = START.to_string();
    for e in events {
        let kind: serde_json::Value = serde_json::from_str(e).unwrap();
        s.push_str(&format!(
            "event: {}\ndata: {e}\n\n",
            kind["type"].as_str().unwrap()
        ));
    }
    s.into_bytes()
}

const TEXT0: &str =
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#;
const DELTA0: &str =
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}"#;
const STOP0: &str = r#"{"type":"content_block_stop","index":0}"#;

#[tokio::test]
async fn anthropic_malformed_block_sequences_are_named() {
    let tool1 = r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"echo","input":{}}}"#;
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![tool1],
            "content block 1 started out of order (expected block 0)",
        ),
        (
            vec![TEXT0, TEXT0],
            "content block 0 started out of order (expected block 1)",
        ),
        (
            vec![
                TEXT0,
                r#"{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"a"}}"#,
            ],
            "`content_block_delta` for content block 3, which never started",
        ),
        (
            vec![TEXT0, r#"{"type":"content_block_stop","index":2}"#],
            "`content_block_stop` for content block 2, which never started",
        ),
        (
            vec![TEXT0, DELTA0, STOP0, DELTA0],
            "`content_block_delta` for content block 0, which already stopped",
        ),
        (
            vec![TEXT0, STOP0, STOP0],
            "`content_block_stop` for content block 0, which already stopped",
        ),
        (
            vec![
                TEXT0,
                STOP0,
                tool1,
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a"}}"#,
            ],
            "`text_delta` for content block 1, which is a tool_use block",
        ),
        (
            vec![
                TEXT0,
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}"#,
            ],
            "`input_json_delta` for content block 0, which is a text block",
        ),
    ];
    for (events, problem) in cases {
        let (r, _) = replay_bytes("anthropic", &anthropic(&events)).await;
        let e = r.unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("Provider Error (anthropic): anthropic at http://127.0.0.1:")
                && text.ends_with(&format!(" sent a malformed stream: {problem}")),
            "{text}"
        );
        assert!(!e.is_recoverable(), "{problem}");
    }
}

#[tokio::test]
async fn tool_calls_cut_at_max_tokens_keep_their_partial_arguments() {
    let anthropic_stream = anthropic(&[
        TEXT0,
        DELTA0,
        STOP0,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"echo","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"text\": \"lo"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":9}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    let chunk = |delta: &str, finish: &str| {
        format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n")
    };
    let openai_stream = [
        chunk(r#"{"role":"assistant","content":"a"}"#, "null"),
        chunk(r#"{"tool_calls":[{"index":0,"id":"toolu_1","type":"function","function":{"name":"echo","arguments":""}}]}"#, "null"),
        chunk(r#"{"tool_calls":[{"index":0,"function":{"arguments":"{\"text\": \"lo"}}]}"#, "null"),
        chunk("{}", "\"length\""),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    for (kind, stream) in [
        ("anthropic", anthropic_stream),
        ("openai", openai_stream.into_bytes()),
    ] {
        let r = replay_bytes(kind, &stream).await.0.unwrap();
        assert_eq!(r.stop_reason, StopReason::MaxTokens, "{kind}");
        assert_eq!(r.content, "a");
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].id, "toolu_1");
        assert_eq!(r.tool_calls[0].function.arguments, "{\"text\": \"lo");
    }
}

#[tokio::test]
async fn a_stream_stalling_after_its_final_event_is_complete() {
    use crate::support::fake_server::FakeServer;
    use crate::support::provider_cases::{chat, provider, Rec};
    use tokio_util::sync::CancellationToken;
    // Everything but `message_stop` / `[DONE]`, then the server stalls.
    for kind in ["anthropic", "openai"] {
        let server = FakeServer::start();
        let reply = Reply::for_kind(kind, &Turn::text(["all", " here"]));
        let n = reply.frame_count() - 1;
        server.enqueue(reply.hang_after(n));
        let p = provider(
            &server,
            kind,
            serde_json::json!({"timeout_ms": 500, "max_retries": 0}),
        );
        let r = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new()).await;
        let r = r.unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(r.content, "all here");
        assert_eq!(r.stop_reason, StopReason::EndTurn);
    }
}
