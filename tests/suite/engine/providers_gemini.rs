//! Google Gemini provider against the fake server.

use crate::support;
use crate::support::provider_cases;

use provider_cases as cases;
use robota_engine::core::message::{Message, MessageState, Part, ToolCall};
use serde_json::json;
use support::fake_server::{FakeServer, Reply, Turn};
use tokio_util::sync::CancellationToken;

const KIND: &str = "gemini";

#[tokio::test]
async fn gemini_streaming_text() {
    cases::streaming_text(KIND).await;
}

#[tokio::test]
async fn gemini_tool_round_trip_through_engine() {
    cases::tool_round_trip(KIND).await;
}

#[tokio::test]
async fn gemini_two_parallel_tool_calls() {
    cases::parallel_tool_calls(KIND).await;
}

#[tokio::test]
async fn gemini_abort_keeps_partial_text_interrupted() {
    cases::abort_keeps_partial(KIND).await;
}

#[tokio::test]
async fn gemini_cancel_returns_partial() {
    cases::cancel_returns_partial(KIND).await;
}

#[tokio::test]
async fn gemini_429_retry_after_then_success() {
    cases::rate_limit_then_success(KIND).await;
}

#[tokio::test]
async fn gemini_repeated_500_is_recoverable_provider_error() {
    cases::repeated_500(KIND).await;
}

#[tokio::test]
async fn gemini_401_is_authentication_error() {
    cases::unauthorized(KIND).await;
}

#[tokio::test]
async fn gemini_malformed_event_and_cut_stream() {
    cases::malformed_and_cut(KIND).await;
}

#[tokio::test]
async fn gemini_cut_before_content_is_retried() {
    cases::cut_before_content_is_retried(KIND).await;
}

#[tokio::test]
async fn gemini_idle_timeout() {
    cases::idle_timeout(KIND).await;
}

#[tokio::test]
async fn gemini_env_key_never_leaks() {
    cases::env_key_never_leaks(KIND).await;
}

#[tokio::test]
async fn gemini_thought_parts() {
    cases::thinking(KIND).await;
}

#[tokio::test]
async fn gemini_raw_payloads_only_when_wanted() {
    cases::raw_payloads(KIND).await;
}

#[tokio::test]
async fn gemini_request_shape() {
    let mut interrupted = Message::assistant("Half");
    interrupted.state = MessageState::Interrupted;
    let mut calls = Message::assistant("Let me check.");
    calls
        .tool_calls
        .push(ToolCall::new("gcall_1", "echo", r#"{"text":"q"}"#));
    calls
        .tool_calls
        .push(ToolCall::new("fc-7", "echo", r#"{"text":"r"}"#));
    let mut image = Message::user("");
    image.parts = Some(vec![
        Part::Text {
            text: "Look".into(),
        },
        Part::ImageInline {
            mime_type: "image/png".into(),
            data: "AAA".into(),
        },
    ]);
    let req = cases::send(
        KIND,
        json!({}),
        vec![
            Message::system("Be brief."),
            Message::user("Hi"),
            interrupted,
            Message::user("More"),
            calls,
            Message::tool("echo:q", "gcall_1", "echo"),
            Message::tool("echo:r", "fc-7", "echo"),
            image,
        ],
        &cases::schemas(),
    )
    .await;
    assert_eq!(
        req.path,
        "/v1beta/models/test-model:streamGenerateContent?alt=sse"
    );
    assert_eq!(req.header("x-goog-api-key"), Some("test-key"));
    assert_eq!(
        req.body,
        json!({
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "generationConfig": {"maxOutputTokens": 64, "temperature": 0.5},
            "tools": [{"functionDeclarations": [{"name": "echo", "description": "Echoes text",
                "parametersJsonSchema": {"type":"object","properties":{"text":{"type":"string"}}}}]}],
            "contents": [
                {"role": "user", "parts": [{"text": "Hi"}]},
                {"role": "model", "parts": [{"text": "Half\n\n[This response was interrupted by the user]"}]},
                {"role": "user", "parts": [{"text": "More"}]},
                {"role": "model", "parts": [
                    {"text": "Let me check."},
                    {"functionCall": {"name": "echo", "args": {"text": "q"}}},
                    {"functionCall": {"name": "echo", "args": {"text": "r"}, "id": "fc-7"}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "echo", "response": {"content": "echo:q"}}},
                    {"functionResponse": {"name": "echo", "response": {"content": "echo:r"}, "id": "fc-7"}},
                    {"text": "Look"},
                    {"inlineData": {"mimeType": "image/png", "data": "AAA"}}
                ]}
            ]
        })
    );
}

#[tokio::test]
async fn gemini_thought_signature_is_sent_back_with_its_call() {
    let server = FakeServer::start();
    server.enqueue(Reply::sse(vec![
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"echo\",\"args\":{\"text\":\"s\"}},\"thoughtSignature\":\"U0lH\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}]}\r\n\r\n".into(),
    ]));
    server.enqueue(Reply::gemini(&Turn::text(["done"])));
    let a = cases::agent(cases::provider(&server, KIND, json!({})));
    let res = a.run("go", Default::default()).await.unwrap();
    assert_eq!(res.response, "done");
    let id = a.messages()[2].tool_calls[0].id.clone();
    assert!(id.starts_with("gcall_"), "{id}");
    let body = &server.requests()[1].body;
    assert_eq!(
        body["contents"][1],
        json!({"role": "model", "parts": [{"functionCall": {"name": "echo", "args": {"text": "s"}}, "thoughtSignature": "U0lH"}]})
    );
}

#[tokio::test]
async fn gemini_stream_error_and_unknown_model() {
    let server = FakeServer::start();
    server.enqueue(Reply::error(404, r#"{"error":{"code":404,"message":"models/test-model is not found for API version v1beta","status":"NOT_FOUND"}}"#));
    server.enqueue(Reply::error(400, r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#));
    let p = cases::provider(&server, KIND, json!({}));
    let e = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Model \"test-model\" is not available for provider \"gemini\""
    );
    let e = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Provider Error (gemini): gemini returned HTTP 400: API key not valid. Please pass a valid API key."
    );
}
