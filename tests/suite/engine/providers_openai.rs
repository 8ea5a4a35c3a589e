//! OpenAI Chat Completions provider (kinds `openai` and `openai-compatible`) against the fake server.

use crate::support;
use crate::support::provider_cases;

use provider_cases as cases;
use robota_engine::core::message::{Message, MessageState, Part, ToolCall};
use serde_json::json;
use support::fake_server::{FakeServer, Reply, Turn};
use tokio_util::sync::CancellationToken;

const KIND: &str = "openai";
const COMPAT: &str = "openai-compatible";

#[tokio::test]
async fn openai_streaming_text() {
    cases::streaming_text(KIND).await;
    cases::streaming_text(COMPAT).await;
}

#[tokio::test]
async fn openai_tool_round_trip_through_engine_with_reused_ids() {
    cases::tool_round_trip(KIND).await;
    cases::tool_round_trip(COMPAT).await;
}

#[tokio::test]
async fn openai_two_parallel_tool_calls() {
    cases::parallel_tool_calls(KIND).await;
}

#[tokio::test]
async fn openai_abort_keeps_partial_text_interrupted() {
    cases::abort_keeps_partial(KIND).await;
}

#[tokio::test]
async fn openai_cancel_returns_partial() {
    cases::cancel_returns_partial(KIND).await;
}

#[tokio::test]
async fn openai_429_retry_after_then_success() {
    cases::rate_limit_then_success(KIND).await;
}

#[tokio::test]
async fn openai_repeated_500_is_recoverable_provider_error() {
    cases::repeated_500(KIND).await;
}

#[tokio::test]
async fn openai_401_is_authentication_error() {
    cases::unauthorized(KIND).await;
}

#[tokio::test]
async fn openai_malformed_event_and_cut_stream() {
    cases::malformed_and_cut(KIND).await;
}

#[tokio::test]
async fn openai_cut_before_content_is_retried() {
    cases::cut_before_content_is_retried(KIND).await;
}

#[tokio::test]
async fn openai_idle_timeout() {
    cases::idle_timeout(KIND).await;
}

#[tokio::test]
async fn openai_env_key_never_leaks() {
    cases::env_key_never_leaks(KIND).await;
    cases::env_key_never_leaks(COMPAT).await;
}

#[tokio::test]
async fn openai_compatible_reasoning_deltas() {
    cases::thinking(COMPAT).await;
}

#[tokio::test]
async fn openai_raw_payloads_only_when_wanted() {
    cases::raw_payloads(KIND).await;
}

#[tokio::test]
async fn openai_request_shape() {
    let mut interrupted = Message::assistant("Half");
    interrupted.state = MessageState::Interrupted;
    let mut calls = Message::assistant("");
    calls
        .tool_calls
        .push(ToolCall::new("call_0", "echo", r#"{"text":"q"}"#));
    let mut image = Message::user("");
    image.parts = Some(vec![
        Part::Text {
            text: "Look".into(),
        },
        Part::ImageInline {
            mime_type: "image/jpeg".into(),
            data: "AAA".into(),
        },
        Part::ImageUri {
            uri: "https://x/y.png".into(),
            mime_type: None,
        },
    ]);
    let req = cases::send(
        KIND,
        json!({}),
        vec![
            Message::system("Be brief."),
            Message::user("Hi"),
            interrupted,
            calls,
            Message::tool("echo:q", "call_0", "echo"),
            image,
        ],
        &cases::schemas(),
    )
    .await;
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer test-key"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("accept"), Some("text/event-stream"));
    assert_eq!(
        req.body,
        json!({
            "model": "test-model",
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_completion_tokens": 64,
            "temperature": 0.5,
            "tools": [{"type": "function", "function": {"name": "echo", "description": "Echoes text",
                       "parameters": {"type":"object","properties":{"text":{"type":"string"}}}}}],
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Half\n\n[This response was interrupted by the user]"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_0", "type": "function", "function": {"name": "echo", "arguments": "{\"text\":\"q\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_0", "content": "echo:q"},
                {"role": "user", "content": [
                    {"type": "text", "text": "Look"},
                    {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAA"}},
                    {"type": "image_url", "image_url": {"url": "https://x/y.png"}}
                ]}
            ]
        })
    );
}

#[tokio::test]
async fn openai_compatible_without_key_sends_no_authorization_and_uses_max_tokens() {
    let req = cases::send(
        COMPAT,
        json!({"api_key": ""}),
        vec![Message::user("Hi")],
        &[],
    )
    .await;
    assert_eq!(req.header("authorization"), None);
    assert_eq!(req.body["max_tokens"], 64);
    assert!(req.body.get("max_completion_tokens").is_none());
    assert!(req.body.get("tools").is_none());
}

#[tokio::test]
async fn openai_fragments_by_index_interleaved_and_usage_only_chunk() {
    let server = FakeServer::start();
    let c = |delta: serde_json::Value, finish: serde_json::Value| {
        format!(
            "data: {}\n\n",
            json!({"id":"x","object":"chat.completion.chunk","created":1,"model":"m",
                   "choices":[{"index":0,"delta":delta,"finish_reason":finish}]})
        )
    };
    server.enqueue(Reply::sse(vec![
        c(json!({"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"echo","arguments":""}}]}), json!(null)),
        c(json!({"tool_calls":[{"index":1,"id":"call_y","type":"function","function":{"name":"echo","arguments":"{\"te"}}]}), json!(null)),
        c(json!({"tool_calls":[{"index":0,"function":{"arguments":"{\"text\":"}}]}), json!(null)),
        c(json!({"tool_calls":[{"index":1,"function":{"arguments":"xt\":\"2\"}"}}]}), json!(null)),
        c(json!({"tool_calls":[{"index":0,"function":{"arguments":"\"1\"}"}}]}), json!(null)),
        c(json!({}), json!("tool_calls")),
        "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":8,\"total_tokens\":38,\"prompt_tokens_details\":{\"cached_tokens\":20}}}\n\n".into(),
        "data: [DONE]\n\n".into(),
    ]));
    let p = cases::provider(&server, KIND, json!({}));
    let r = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    let calls: Vec<(&str, &str)> = r
        .tool_calls
        .iter()
        .map(|t| (t.id.as_str(), t.function.arguments.as_str()))
        .collect();
    assert_eq!(
        calls,
        vec![("call_x", r#"{"text":"1"}"#), ("call_y", r#"{"text":"2"}"#)]
    );
    let u = r.usage.unwrap();
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.total_tokens,
            u.cache_read_tokens
        ),
        // 30 prompt tokens, 20 of them read from the cache.
        (10, 8, Some(38), 20)
    );
}

#[tokio::test]
async fn openai_compatible_server_closing_after_finish_reason_without_done() {
    let server = FakeServer::start();
    server.enqueue(Reply::sse(vec![
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"local\"},\"finish_reason\":null}]}\n\n".into(),
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n".into(),
    ]));
    let p = cases::provider(&server, COMPAT, json!({}));
    let r = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(r.content, "local");
}

#[tokio::test]
async fn openai_unknown_model_and_context_overflow() {
    let server = FakeServer::start();
    server.enqueue(Reply::error(404, r#"{"error":{"message":"The model `gpt-nope` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#));
    server.enqueue(Reply::error(400, r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#));
    server.enqueue(Reply::error(404, "404 page not found"));
    let p = cases::provider(&server, KIND, json!({}));
    let e = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), "MODEL_NOT_AVAILABLE");
    let e = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(
        e.to_string().contains(
            "the prompt does not fit the context window (128000 tokens) of model \"test-model\": This model's maximum context length"
        ),
        "{e}"
    );
    assert!(!e.is_recoverable());
    let e = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("Provider Error (openai): openai returned HTTP 404: 404 page not found (check base_url \"{}/v1\")", server.base_url())
    );
}

#[tokio::test]
async fn openai_provider_named_differently_from_kind() {
    let server = FakeServer::start();
    server.enqueue(Reply::error(500, r#"{"error":"boom"}"#));
    let client = robota_engine::providers::new_http_client().unwrap();
    let p = robota_engine::providers::create_provider(
        "ollama",
        &json!({"kind": COMPAT, "base_url": server.base_url_for(COMPAT), "max_retries": 0}),
        &client,
    )
    .unwrap();
    let e = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Provider Error (ollama): ollama (openai-compatible) returned HTTP 500: boom"
    );
    server.enqueue(Reply::openai(&Turn::text(["x"])));
    let r = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(r.content, "x");
}
