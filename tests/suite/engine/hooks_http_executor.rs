//! HTTP executor (port of hooks/__tests__/http-executor.test.ts + more) against a local
//! 127.0.0.1 server: result mapping, request body and headers, `$VAR` / `$ENV:` interpolation,
//! errors, timeout and secret redaction.

use std::sync::{Arc, Mutex};

use robota_engine::core::env_ref::EnvVars;
use robota_engine::core::hooks::{
    HookDefinition, HookExecutor, HookResult, HttpExecutor, DEFAULT_HTTP_TIMEOUT,
};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// What the server received.
#[derive(Debug, Default, Clone)]
struct Received {
    head: String,
    body: String,
}

impl Received {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }
}

/// Starts a one-route server answering every request with `status` and `body`
/// (`None` body = never answer). Returns the url and the received requests.
async fn serve(status: &'static str, body: Option<String>) -> (String, Arc<Mutex<Vec<Received>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let seen = seen2.clone();
            let body = body.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                let (head, rest) = loop {
                    let n = sock.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break (
                            String::from_utf8_lossy(&buf[..i]).into_owned(),
                            buf[i + 4..].to_vec(),
                        );
                    }
                };
                let len: usize = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().ok())?
                    })
                    .unwrap_or(0);
                let mut body_bytes = rest;
                while body_bytes.len() < len {
                    let n = sock.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    body_bytes.extend_from_slice(&chunk[..n]);
                }
                seen.lock().unwrap().push(Received {
                    head,
                    body: String::from_utf8_lossy(&body_bytes).into_owned(),
                });
                match body {
                    Some(b) => {
                        let resp = format!(
                            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}",
                            b.len()
                        );
                        let _ = sock.write_all(resp.as_bytes()).await;
                        let _ = sock.shutdown().await;
                    }
                    None => {
                        tokio::time::sleep(std::time::Duration::from_secs(600)).await;
                    }
                }
            });
        }
    });
    (format!("http://{addr}/hook"), seen)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn exec(def: HookDefinition, input: Value) -> HookResult {
    exec_with(EnvVars::process(), def, input).await
}

/// Runs the hook with `$NAME` / `$ENV:NAME` looked up in `vars` (never the mutated process env).
async fn exec_with(vars: EnvVars, def: HookDefinition, input: Value) -> HookResult {
    HttpExecutor::new()
        .with_vars(vars)
        .execute(&def, &input, CancellationToken::new())
        .await
}

fn vars(pairs: &[(&str, &str)]) -> EnvVars {
    EnvVars::with_vars(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

#[test]
fn ok_true_is_exit_0_with_the_body_as_stdout_and_the_input_is_posted() {
    rt().block_on(async {
        let (url, seen) = serve("200 OK", Some(r#"{"ok":true,"note":"fine"}"#.into())).await;
        let input = json!({"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash"});
        let r = exec(HookDefinition::http(&url), input.clone()).await;
        assert_eq!(r.exit_code, 0);
        assert_eq!(
            serde_json::from_str::<Value>(&r.stdout).unwrap(),
            json!({"ok":true,"note":"fine"})
        );
        assert_eq!(r.stderr, "");
        let got = seen.lock().unwrap()[0].clone();
        assert!(got.head.starts_with("POST /hook HTTP/1.1"), "{}", got.head);
        assert_eq!(
            got.header("content-type").as_deref(),
            Some("application/json")
        );
        assert_eq!(serde_json::from_str::<Value>(&got.body).unwrap(), input);
    });
}

#[test]
fn ok_false_blocks_with_the_reason_or_the_default() {
    rt().block_on(async {
        let (url, _) = serve(
            "200 OK",
            Some(r#"{"ok":false,"reason":"not on friday"}"#.into()),
        )
        .await;
        assert_eq!(
            exec(HookDefinition::http(&url), json!({})).await,
            HookResult::new(2, "", "not on friday")
        );
        let (url, _) = serve("200 OK", Some(r#"{"ok":false}"#.into())).await;
        assert_eq!(
            exec(HookDefinition::http(&url), json!({})).await,
            HookResult::new(2, "", "Blocked by HTTP hook")
        );
        let (url, _) = serve("200 OK", Some(r#"{"status":"whatever"}"#.into())).await;
        assert_eq!(
            exec(HookDefinition::http(&url), json!({})).await,
            HookResult::new(2, "", "Blocked by HTTP hook")
        );
    });
}

#[test]
fn non_2xx_is_exit_1_with_status_text() {
    rt().block_on(async {
        let (url, _) = serve("500 Internal Server Error", Some("{}".into())).await;
        assert_eq!(
            exec(HookDefinition::http(&url), json!({})).await,
            HookResult::new(1, "", "HTTP 500 Internal Server Error")
        );
        let (url, _) = serve("404 Not Found", Some(r#"{"ok":true}"#.into())).await;
        assert_eq!(
            exec(HookDefinition::http(&url), json!({})).await.stderr,
            "HTTP 404 Not Found"
        );
    });
}

#[test]
fn network_and_parse_errors_are_exit_1() {
    rt().block_on(async {
        // A port nobody listens on.
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let dead = format!("http://{}/hook", l.local_addr().unwrap());
        drop(l);
        let r = exec(HookDefinition::http(&dead), json!({})).await;
        assert_eq!(r.exit_code, 1);
        assert!(
            r.stderr.starts_with("HTTP hook request failed: "),
            "{}",
            r.stderr
        );

        let (url, _) = serve("200 OK", Some("not json".into())).await;
        let r = exec(HookDefinition::http(&url), json!({})).await;
        assert_eq!(r.exit_code, 1);
        assert!(
            r.stderr.starts_with("HTTP hook response is not JSON"),
            "{}",
            r.stderr
        );

        let r = exec(HookDefinition::new("http"), json!({})).await;
        assert_eq!(
            r,
            HookResult::new(1, "", "http hook is missing a \"url\" string")
        );
        let r = exec(
            HookDefinition::http(&url).with("headers", json!(["x"])),
            json!({}),
        )
        .await;
        assert_eq!(
            r.stderr,
            "http hook \"headers\" must be an object of strings"
        );
    });
}

#[test]
fn headers_interpolate_env_variables_and_unset_ones_stay_literal() {
    let vars = vars(&[
        ("ROBOTA_HTTP_TEST_TOKEN", "tok-abc-123"),
        ("ROBOTA_HTTP_TEST_KEY", "key-xyz-789"),
    ]);
    rt().block_on(async {
        let (url, seen) = serve("200 OK", Some(r#"{"ok":true}"#.into())).await;
        let def = HookDefinition::http(&url).with(
            "headers",
            json!({
                "Authorization": "Bearer $ROBOTA_HTTP_TEST_TOKEN",
                "X-Braced": "k=${ROBOTA_HTTP_TEST_KEY};",
                "X-Api-Key": "$ENV:ROBOTA_HTTP_TEST_KEY",
                "X-Unset": "$ROBOTA_HTTP_TEST_UNSET"
            }),
        );
        assert_eq!(exec_with(vars, def, json!({})).await.exit_code, 0);
        let got = seen.lock().unwrap()[0].clone();
        assert_eq!(
            got.header("authorization").as_deref(),
            Some("Bearer tok-abc-123")
        );
        assert_eq!(got.header("x-braced").as_deref(), Some("k=key-xyz-789;"));
        assert_eq!(got.header("x-api-key").as_deref(), Some("key-xyz-789"));
        assert_eq!(
            got.header("x-unset").as_deref(),
            Some("$ROBOTA_HTTP_TEST_UNSET")
        );
        // The body is the input as given: no secret in it.
        assert!(!got.body.contains("tok-abc-123"));
    });
}

#[test]
fn secrets_sent_in_headers_are_redacted_from_what_the_hook_returns() {
    let vars = vars(&[("ROBOTA_HTTP_TEST_ECHO", "echo-secret-456")]);
    rt().block_on(async {
        let (url, _) = serve(
            "200 OK",
            Some(r#"{"ok":false,"reason":"bad token echo-secret-456"}"#.into()),
        )
        .await;
        let def = HookDefinition::http(&url).with(
            "headers",
            json!({"Authorization": "$ENV:ROBOTA_HTTP_TEST_ECHO"}),
        );
        assert_eq!(
            exec_with(vars, def, json!({})).await,
            HookResult::new(2, "", "bad token [REDACTED]")
        );
    });
}

#[test]
fn default_timeout_is_10_s_and_per_hook_timeout_applies() {
    assert_eq!(DEFAULT_HTTP_TIMEOUT, std::time::Duration::from_secs(10));
    rt().block_on(async {
        let (url, _) = serve("200 OK", None).await;
        let r = exec(
            HookDefinition::http(&url).with("timeout", json!(0.5)),
            json!({}),
        )
        .await;
        assert_eq!(r, HookResult::new(1, "", "HTTP hook timed out"));
    });
}
