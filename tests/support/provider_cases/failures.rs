//! Provider cases for failures: rate limits and retries, repeated 500s, 401, malformed and cut
//! streams, idle timeouts, and an `$ENV:` key that never leaks.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use robota_engine::core::agent::RunOptions;
use robota_engine::core::errors::RobotaError;
use robota_engine::core::execution::RunStop;
use robota_engine::providers::new_http_client;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::{agent, chat, frames_through_text, provider, Rec};
use crate::support::fake_server::{FakeServer, Reply, Turn};

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
        "openai-responses" => "response.completed",
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
