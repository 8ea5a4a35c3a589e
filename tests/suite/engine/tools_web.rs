//! WebFetch and WebSearch against a local HTTP server on 127.0.0.1 (random port).

use crate::support::tools as tools_common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use robota_engine::core::tool::ToolContext;
use robota_engine::tools::web_search::{SearchHit, WebSearchBackend, WEB_SEARCH_NOT_CONFIGURED};
use robota_engine::tools::{builtin_tools_with, ToolsConfig, WebSearchConfig};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tools_common::{call, call_ctx, error, output};

/// A request the server saw.
#[derive(Debug, Clone)]
struct Seen {
    target: String,
    headers: Vec<(String, String)>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A canned response.
struct Reply {
    status: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
    /// Send `Content-Length` (else the body ends at connection close).
    length: bool,
    delay: Duration,
}

fn reply(status: &'static str, content_type: &'static str, body: impl Into<Vec<u8>>) -> Reply {
    Reply {
        status,
        content_type,
        body: body.into(),
        length: true,
        delay: Duration::ZERO,
    }
}

type Handler = Arc<dyn Fn(&Seen) -> Reply + Send + Sync>;

/// Starts a server; returns its base URL and the requests it saw.
async fn serve(handler: Handler) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let handler = handler.clone();
            let seen = seen2.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).into_owned();
                let mut lines = head.split("\r\n");
                let target = lines
                    .next()
                    .and_then(|l| l.split(' ').nth(1))
                    .unwrap_or("/")
                    .to_string();
                let headers = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
                    .collect();
                let req = Seen { target, headers };
                seen.lock().unwrap().push(req.clone());
                let r = handler(&req);
                tokio::time::sleep(r.delay).await;
                let mut out = format!(
                    "HTTP/1.1 {}\r\nContent-Type: {}\r\nConnection: close\r\n",
                    r.status, r.content_type
                );
                if r.length {
                    out.push_str(&format!("Content-Length: {}\r\n", r.body.len()));
                }
                out.push_str("\r\n");
                let _ = sock.write_all(out.as_bytes()).await;
                let _ = sock.write_all(&r.body).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (format!("http://{addr}"), seen)
}

fn tools(
    config: ToolsConfig,
) -> (
    Arc<dyn robota_engine::core::tool::Tool>,
    Arc<dyn robota_engine::core::tool::Tool>,
) {
    let dir = std::env::temp_dir();
    let mut all = builtin_tools_with(&dir, config);
    let search = all.remove(7);
    let fetch = all.remove(6);
    (fetch, search)
}

fn site() -> Handler {
    Arc::new(|req: &Seen| match req.target.as_str() {
        "/page" => reply(
            "200 OK",
            "text/html; charset=utf-8",
            "<html><head><title>Doc</title><script>alert(1)</script></head>\
             <body><h1>Title &amp; more</h1><p>Para <i>one</i>.</p></body></html>",
        ),
        "/plain" => reply("200 OK", "text/plain", "  raw <b>text</b>  "),
        "/ua" => reply(
            "200 OK",
            "text/plain",
            format!(
                "{}|{}",
                req.header("user-agent").unwrap_or(""),
                req.header("x-extra").unwrap_or("")
            ),
        ),
        "/big" => reply("200 OK", "text/plain", vec![b'a'; 1000]),
        "/big-unsized" => Reply {
            length: false,
            ..reply("200 OK", "text/plain", vec![b'a'; 1000])
        },
        "/slow" => Reply {
            delay: Duration::from_secs(20),
            ..reply("200 OK", "text/plain", "late")
        },
        "/redirect" => Reply {
            status: "302 Found\r\nLocation: /plain",
            ..reply("302 Found", "text/plain", "")
        },
        _ => reply("404 Not Found", "text/plain", "missing"),
    })
}

#[tokio::test]
async fn web_fetch_converts_html_and_passes_text_through() {
    let (base, _) = serve(site()).await;
    let (fetch, _) = tools(ToolsConfig::default());
    let r = call(&fetch, json!({"url": format!("{base}/page")})).await;
    assert_eq!(
        r,
        json!({"success": true, "output": "Doc\nTitle & more\nPara one."})
    );
    let r = call(&fetch, json!({"url": format!("{base}/plain")})).await;
    assert_eq!(output(&r), "  raw <b>text</b>  ");
    let r = call(&fetch, json!({"url": format!("{base}/redirect")})).await;
    assert_eq!(output(&r), "  raw <b>text</b>  ");
}

#[tokio::test]
async fn web_fetch_sends_user_agent_and_custom_headers() {
    let (base, _) = serve(site()).await;
    let (fetch, _) = tools(ToolsConfig::default());
    let r = call(&fetch, json!({"url": format!("{base}/ua")})).await;
    assert_eq!(output(&r), "Robota-CLI/3.0|");
    let r = call(
        &fetch,
        json!({"url": format!("{base}/ua"), "headers": {"User-Agent": "custom/1", "X-Extra": "yes"}}),
    )
    .await;
    assert_eq!(output(&r), "custom/1|yes");
}

#[tokio::test]
async fn web_fetch_reports_http_errors() {
    let (base, _) = serve(site()).await;
    let (fetch, _) = tools(ToolsConfig::default());
    let r = call(&fetch, json!({"url": format!("{base}/nope")})).await;
    assert_eq!(
        r,
        json!({"success": false, "output": "", "error": "HTTP 404 Not Found"})
    );
}

#[tokio::test]
async fn web_fetch_enforces_size_limit() {
    let (base, _) = serve(site()).await;
    let mut config = ToolsConfig::default();
    config.limits.web_fetch_max_bytes = 100;
    let (fetch, _) = tools(config);
    let r = call(&fetch, json!({"url": format!("{base}/big")})).await;
    assert_eq!(error(&r), "Response too large: 1000 bytes (max 100)");
    let r = call(&fetch, json!({"url": format!("{base}/big-unsized")})).await;
    assert_eq!(
        error(&r),
        "Response too large: more than 100 bytes (max 100)"
    );
}

#[tokio::test]
async fn web_fetch_enforces_time_limit() {
    let (base, _) = serve(site()).await;
    let mut config = ToolsConfig::default();
    config.limits.web_fetch_timeout_ms = 300;
    let (fetch, _) = tools(config);
    let r = call(&fetch, json!({"url": format!("{base}/slow")})).await;
    assert_eq!(error(&r), "Request timed out after 300ms");
}

#[tokio::test]
async fn web_fetch_stops_when_the_call_is_cancelled() {
    let (base, _) = serve(site()).await;
    let (fetch, _) = tools(ToolsConfig::default());
    let ctx = ToolContext::detached("c");
    ctx.cancel.cancel();
    let r = call_ctx(&fetch, json!({"url": format!("{base}/slow")}), &ctx).await;
    assert_eq!(
        r,
        json!({"success": false, "output": "", "error": "Request was cancelled"})
    );
}

#[tokio::test]
async fn web_fetch_refuses_other_schemes_and_bad_urls() {
    let (fetch, _) = tools(ToolsConfig::default());
    let r = call(&fetch, json!({"url": "file:///etc/passwd"})).await;
    assert_eq!(
        error(&r),
        "Unsupported URL scheme \"file\": only http and https URLs can be fetched"
    );
    let r = call(&fetch, json!({"url": "ftp://127.0.0.1/x"})).await;
    assert_eq!(
        error(&r),
        "Unsupported URL scheme \"ftp\": only http and https URLs can be fetched"
    );
    let r = call(&fetch, json!({"url": "not a url"})).await;
    assert_eq!(error(&r), "Invalid URL: not a url");
}

// ---------------------------------------------------------------- WebSearch

#[tokio::test]
async fn web_search_without_backend_says_not_configured() {
    let (_, search) = tools(ToolsConfig::default());
    let r = call(&search, json!({"query": "rust"})).await;
    assert_eq!(
        r,
        json!({"success": false, "output": "", "error": WEB_SEARCH_NOT_CONFIGURED})
    );
    assert!(WEB_SEARCH_NOT_CONFIGURED.starts_with("Web search is not configured"));
}

fn brave_site() -> Handler {
    Arc::new(|req: &Seen| {
        if req.header("x-subscription-token") != Some("test-key") {
            return reply("401 Unauthorized", "application/json", "{}");
        }
        if req.target.contains("q=boom") {
            return reply("500 Internal Server Error", "application/json", "{}");
        }
        reply(
            "200 OK",
            "application/json",
            json!({"web": {"results": [
                {"title": "Rust <strong>Lang</strong>", "url": "https://rust-lang.org", "description": "A language &amp; more", "extra": 1},
                {"title": "Docs", "url": "https://doc.rust-lang.org", "description": "Docs"}
            ]}})
            .to_string(),
        )
    })
}

fn brave_config(base: &str, key: &str) -> ToolsConfig {
    ToolsConfig {
        web_search: Some(WebSearchConfig {
            provider: "brave".into(),
            base_url: Some(format!("{base}/res/v1/web/search")),
            api_key: Some(key.into()),
        }),
        ..Default::default()
    }
}

#[tokio::test]
async fn web_search_brave_backend_against_local_server() {
    let (base, seen) = serve(brave_site()).await;
    let (_, search) = tools(brave_config(&base, "test-key"));
    let r = call(&search, json!({"query": "rust lang", "limit": 50})).await;
    assert_eq!(r["success"], true, "{r}");
    let expected = "[\n  {\n    \"title\": \"Rust Lang\",\n    \"url\": \"https://rust-lang.org\",\n    \"snippet\": \"A language & more\"\n  },\n  {\n    \"title\": \"Docs\",\n    \"url\": \"https://doc.rust-lang.org\",\n    \"snippet\": \"Docs\"\n  }\n]";
    assert_eq!(output(&r), expected);
    let req = seen.lock().unwrap()[0].clone();
    assert_eq!(req.target, "/res/v1/web/search?q=rust+lang&count=20");
    assert_eq!(req.header("accept"), Some("application/json"));

    let r = call(&search, json!({"query": "boom"})).await;
    assert_eq!(
        error(&r),
        "Brave Search API error: HTTP 500 Internal Server Error"
    );
    assert_eq!(
        seen.lock().unwrap()[1].target,
        "/res/v1/web/search?q=boom&count=10"
    );
}

#[tokio::test]
async fn web_search_brave_missing_key_names_the_variable() {
    let (base, seen) = serve(brave_site()).await;
    let (_, search) = tools(brave_config(&base, "$ENV:ROBOTA_TEST_SURELY_UNSET_KEY"));
    let r = call(&search, json!({"query": "x"})).await;
    assert_eq!(
        error(&r),
        "Web search requires ROBOTA_TEST_SURELY_UNSET_KEY environment variable. Get a free API key at https://brave.com/search/api/ (2,000 queries/month free)."
    );
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn web_search_unknown_provider_is_reported() {
    let mut config = brave_config("http://127.0.0.1:9", "k");
    if let Some(ws) = config.web_search.as_mut() {
        ws.provider = "bing".into();
    }
    let (_, search) = tools(config);
    let r = call(&search, json!({"query": "x"})).await;
    assert_eq!(
        error(&r),
        "Unknown web search provider: bing (available: brave)"
    );
}

struct Canned;

#[async_trait]
impl WebSearchBackend for Canned {
    fn name(&self) -> &str {
        "canned"
    }
    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchHit>, String> {
        Ok((0..count)
            .map(|i| SearchHit {
                title: format!("{query} {i}"),
                url: format!("https://example.test/{i}"),
                snippet: String::new(),
            })
            .collect())
    }
}

#[tokio::test]
async fn web_search_uses_a_backend_object_from_code() {
    let config = ToolsConfig {
        web_search_backend: Some(Arc::new(Canned)),
        ..Default::default()
    };
    let (_, search) = tools(config);
    let r = call(&search, json!({"query": "q", "limit": 2})).await;
    let hits: Value = serde_json::from_str(output(&r)).unwrap();
    assert_eq!(
        hits,
        json!([
            {"title": "q 0", "url": "https://example.test/0", "snippet": ""},
            {"title": "q 1", "url": "https://example.test/1", "snippet": ""}
        ])
    );
}

/// A backend whose search never ends.
struct Stuck;

#[async_trait]
impl WebSearchBackend for Stuck {
    fn name(&self) -> &str {
        "stuck"
    }
    async fn search(&self, _query: &str, _count: usize) -> Result<Vec<SearchHit>, String> {
        std::future::pending().await
    }
}

#[tokio::test]
async fn web_search_enforces_its_time_limit_and_stops_when_cancelled() {
    let mut config = ToolsConfig {
        web_search_backend: Some(Arc::new(Stuck)),
        ..Default::default()
    };
    config.limits.web_search_timeout_ms = 300;
    let (_, search) = tools(config);
    let r = call(&search, json!({"query": "q"})).await;
    assert_eq!(
        r,
        json!({"success": false, "output": "", "error": "Web search timed out after 300ms"})
    );
    let ctx = ToolContext::detached("c");
    ctx.cancel.cancel();
    let r = call_ctx(&search, json!({"query": "q"}), &ctx).await;
    assert_eq!(
        r,
        json!({"success": false, "output": "", "error": "Web search was cancelled"})
    );
}
