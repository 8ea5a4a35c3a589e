//! The vendors' own recorded streams (`tests/fixtures/vendor-streams/`, see its INDEX.md and
//! PROVENANCE.md), kept byte for byte as the vendors' SDK teams committed them and replayed
//! unchanged, line by line, by the fake server.
#![allow(dead_code)]

use std::sync::Arc;

use robota_engine::core::errors::RobotaError;
use robota_engine::core::provider::{ChatResponse, Provider};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::fake_server::{FakeServer, Reply};
use crate::support::provider_cases::{chat, provider, Rec};

/// The fixture directory.
pub const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/vendor-streams/"
);

/// Every recorded stream, `vendor/file` (the tests replay each one).
pub const ALL: [&str; 20] = [
    "anthropic/basic_response.txt",
    "anthropic/incomplete_partial_json_response.txt",
    "anthropic/message_delta_fields_response.txt",
    "anthropic/missing_usage_response.txt",
    "anthropic/refusal_response.txt",
    "anthropic/server_tool_result_response.txt",
    "anthropic/server_tool_use_response.txt",
    "anthropic/tool_use_invalid_json_response.txt",
    "anthropic/tool_use_response.txt",
    "gemini/streaming-failure-prompt-blocked-safety.txt",
    "gemini/streaming-success-basic-reply-short.txt",
    "gemini/streaming-success-thinking-reply-thought-summary.txt",
    "openai-responses/function_call.txt",
    "openai-responses/reasoning_summary.txt",
    "openai-responses/text_hello.txt",
    "openai/length_max_tokens.txt",
    "openai/plain_text_usage.txt",
    "openai/refusal.txt",
    "openai/tool_call_single.txt",
    "openai/tool_calls_parallel.txt",
];

/// The bytes of `name` (`vendor/file`).
pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{DIR}{name}");
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read the vendor stream {path}: {e}"))
}

/// The provider kind serving `name`.
pub fn kind_of(name: &str) -> &'static str {
    match name.split('/').next() {
        Some("anthropic") => "anthropic",
        Some("gemini") => "gemini",
        Some("openai-responses") => "openai-responses",
        _ => "openai",
    }
}

/// A fake server queued with these stream bytes, and a provider of `kind` against it.
pub fn serve(kind: &str, bytes: &[u8]) -> (FakeServer, Arc<dyn Provider>) {
    let server = FakeServer::start();
    server.enqueue(Reply::raw_lines(bytes));
    let p = provider(&server, kind, json!({"max_retries": 0}));
    (server, p)
}

/// Replays `bytes` as one `chat` call of `kind`; returns the result and what the sink saw.
pub async fn replay_bytes(kind: &str, bytes: &[u8]) -> (Result<ChatResponse, RobotaError>, Rec) {
    let (server, p) = serve(kind, bytes);
    let mut sink = Rec::default();
    let r = chat(p.as_ref(), &mut sink, CancellationToken::new()).await;
    assert_eq!(server.requests().len(), 1, "one request, never retried");
    (r, sink)
}

/// Replays the fixture `name` unchanged.
pub async fn replay(name: &str) -> (Result<ChatResponse, RobotaError>, Rec) {
    replay_bytes(kind_of(name), &fixture(name)).await
}
