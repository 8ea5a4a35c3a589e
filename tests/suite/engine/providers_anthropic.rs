//! Anthropic Messages provider against the fake server.

use crate::support;
use crate::support::provider_cases;

use std::sync::Arc;

use provider_cases as cases;
use robota_engine::core::errors::RobotaError;
use robota_engine::core::message::{Message, MessageState, Part, ToolCall};
use robota_engine::core::provider::{ChatRequest, NativeWebToolRequest};
use serde_json::json;
use support::fake_server::{FakeServer, Reply, Turn};
use tokio_util::sync::CancellationToken;

const KIND: &str = "anthropic";

#[tokio::test]
async fn anthropic_streaming_text() {
    cases::streaming_text(KIND).await;
}

#[tokio::test]
async fn anthropic_tool_round_trip_through_engine() {
    cases::tool_round_trip(KIND).await;
}

#[tokio::test]
async fn anthropic_two_parallel_tool_calls() {
    cases::parallel_tool_calls(KIND).await;
}

#[tokio::test]
async fn anthropic_abort_keeps_partial_text_interrupted() {
    cases::abort_keeps_partial(KIND).await;
}

#[tokio::test]
async fn anthropic_cancel_returns_partial() {
    cases::cancel_returns_partial(KIND).await;
}

#[tokio::test]
async fn anthropic_429_retry_after_then_success() {
    cases::rate_limit_then_success(KIND).await;
}

#[tokio::test]
async fn anthropic_repeated_500_is_recoverable_provider_error() {
    cases::repeated_500(KIND).await;
}

#[tokio::test]
async fn anthropic_401_is_authentication_error() {
    cases::unauthorized(KIND).await;
}

#[tokio::test]
async fn anthropic_malformed_event_and_cut_stream() {
    cases::malformed_and_cut(KIND).await;
}

#[tokio::test]
async fn anthropic_cut_before_content_is_retried() {
    cases::cut_before_content_is_retried(KIND).await;
}

#[tokio::test]
async fn anthropic_idle_timeout() {
    cases::idle_timeout(KIND).await;
}

#[tokio::test]
async fn anthropic_env_key_never_leaks() {
    cases::env_key_never_leaks(KIND).await;
}

#[tokio::test]
async fn anthropic_thinking_deltas() {
    cases::thinking(KIND).await;
}

#[tokio::test]
async fn anthropic_raw_payloads_only_when_wanted() {
    cases::raw_payloads(KIND).await;
}

#[tokio::test]
async fn anthropic_request_shape() {
    let mut interrupted = Message::assistant("I was say");
    interrupted.state = MessageState::Interrupted;
    let mut with_tool = Message::assistant("Checking.");
    with_tool
        .tool_calls
        .push(ToolCall::new("toolu_1", "echo", r#"{"text":"q"}"#));
    let mut image = Message::user("");
    image.parts = Some(vec![
        Part::Text {
            text: "What is this?".into(),
        },
        Part::ImageInline {
            mime_type: "image/png".into(),
            data: "iVBOR".into(),
        },
    ]);
    let req = cases::send(
        KIND,
        json!({"headers": {"x-extra": "1"}}),
        vec![
            Message::system("Be brief."),
            Message::user("Hi"),
            interrupted,
            Message::user("Go on"),
            with_tool,
            Message::tool("echo:q", "toolu_1", "echo"),
            image,
        ],
        &cases::schemas(),
    )
    .await;
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key"), Some("test-key"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("accept"), Some("text/event-stream"));
    assert_eq!(req.header("x-extra"), Some("1"));
    assert_eq!(
        req.body,
        json!({
            "model": "test-model",
            "max_tokens": 64,
            "stream": true,
            "temperature": 0.5,
            "system": "Be brief.",
            "tools": [{"name": "echo", "description": "Echoes text",
                       "input_schema": {"type":"object","properties":{"text":{"type":"string"}}}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "I was say\n\n[This response was interrupted by the user]"}]},
                {"role": "user", "content": [{"type": "text", "text": "Go on"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"text": "q"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "echo:q"},
                    {"type": "text", "text": "What is this?"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}}
                ]}
            ]
        })
    );
}

#[tokio::test]
async fn anthropic_web_search_server_tool() {
    let server = FakeServer::start();
    let turn =
        Turn::text(["Found it."]).server_tool("srvtoolu_1", "web_search", r#"{"query":"rust"}"#);
    server.enqueue(Reply::anthropic(&turn));
    let p = cases::provider(&server, KIND, json!({"web_search": true}));
    let caps = p.capabilities();
    assert!(caps.web_search.supported && caps.web_search.enabled);
    let messages = vec![Arc::new(Message::user("search"))];
    let req = ChatRequest {
        messages: &messages,
        tools: &[],
        model: "m",
        max_tokens: None,
        temperature: None,
        native_web_tools: NativeWebToolRequest {
            web_search: true,
            web_fetch: false,
        },
        thinking_budget: None,
        tool_choice: &robota_engine::core::tool_choice::ToolChoice::Auto,
        output_schema: None,
        prompt_cache: robota_engine::core::prompt_cache::PromptCache::Off,
        cache_key: None,
    };
    let mut sink = cases::Rec::default();
    let r = p
        .chat(req, &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.content, "Found it.");
    assert_eq!(
        sink.server_tools,
        vec![("web_search".to_string(), json!({"query": "rust"}))]
    );
    assert!(
        r.tool_calls.is_empty(),
        "server tools are not local tool calls"
    );
    let body = &server.requests()[0].body;
    assert_eq!(
        body["tools"],
        json!([{"type": "web_search_20250305", "name": "web_search"}])
    );
    assert_eq!(body["max_tokens"], 4096);

    // Not enabled: fails before transport.
    let p = cases::provider(&server, KIND, json!({}));
    let e = p
        .chat(req, &mut cases::Rec::default(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Configuration Error: Provider \"anthropic\" does not support native web search (disabled)"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn anthropic_stream_error_event_and_cache_usage() {
    let server = FakeServer::start();
    // An `error` event before any content is retried (overloaded), then success.
    server.enqueue(Reply::sse(vec![
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n".into(),
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".into(),
    ]));
    server.enqueue(Reply::sse(vec![
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"c\",\"usage\":{\"input_tokens\":40,\"cache_creation_input_tokens\":7,\"cache_read_input_tokens\":30,\"output_tokens\":1}}}\r\n\r\n".into(),
        "event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\r\n\r\n".into(),
        ": a comment line\r\nevent: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\\n\\\"q\\\"\"}}\r\n\r\n".into(),
        "event: content_block_stop\r\ndata: {\"type\":\"content_block_stop\",\"index\":0}\r\n\r\nevent: message_delta\r\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9}}\r\n\r\n".into(),
        "event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n".into(),
    ]));
    let p = cases::provider(&server, KIND, json!({}));
    let mut sink = cases::Rec::default();
    let r = cases::chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.content, "ok\n\"q\"");
    assert_eq!(
        r.stop_reason,
        robota_engine::core::provider::StopReason::MaxTokens
    );
    let u = r.usage.unwrap();
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.cache_creation_tokens,
            u.cache_read_tokens
        ),
        (40, 9, 7, 30)
    );
    assert_eq!(server.requests().len(), 2);

    // A non-retryable stream error is reported with the vendor's type and message.
    server.enqueue(Reply::sse(vec![
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long\"}}\n\n".into(),
    ]));
    let e = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(
        e,
        RobotaError::Provider {
            recoverable: false,
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        "Provider Error (anthropic): anthropic stream error invalid_request_error: prompt is too long"
    );
}

#[tokio::test]
async fn anthropic_error_statuses_map_to_taxonomy() {
    let server = FakeServer::start();
    server.enqueue(Reply::error(
        404,
        r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}"#,
    ));
    server.enqueue(Reply::error(400, r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#));
    server.enqueue(Reply::error(
        403,
        r#"{"type":"error","error":{"type":"permission_error","message":"no access"}}"#,
    ));
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
        "Model \"test-model\" is not available for provider \"anthropic\""
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
        "Provider Error (anthropic): anthropic returned HTTP 400: the prompt does not fit the context window of model \"test-model\": prompt is too long: 210000 tokens > 200000 maximum"
    );
    assert!(!e.is_recoverable());
    let e = cases::chat(
        p.as_ref(),
        &mut cases::Rec::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), "AUTHENTICATION_ERROR");
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn anthropic_works_from_a_plain_test_with_its_own_runtime() {
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["sync"])));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let p = cases::provider(&server, KIND, json!({}));
    let r = rt
        .block_on(cases::chat(
            p.as_ref(),
            &mut cases::Rec::default(),
            CancellationToken::new(),
        ))
        .unwrap();
    assert_eq!(r.content, "sync");
}

#[tokio::test]
async fn anthropic_connection_refused_is_network_error() {
    let server = FakeServer::start();
    let base = server.base_url();
    drop(server);
    let client = robota_engine::providers::new_http_client().unwrap();
    let p = robota_engine::providers::create_provider(
        "claude",
        &json!({"kind": "anthropic", "base_url": base, "api_key": "k", "max_retries": 1, "retry_base_delay_ms": 1}),
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
    assert_eq!(e.code(), "NETWORK_ERROR");
    assert!(
        e.to_string()
            .starts_with("Network Error: claude (anthropic): cannot reach http://127.0.0.1:"),
        "{e}"
    );
}
