//! A fake model server on `127.0.0.1:<random port>` speaking the Anthropic Messages, OpenAI
//! Chat Completions, OpenAI Responses and Gemini `streamGenerateContent?alt=sse` wire formats,
//! for tests (`Reply::for_kind("openai-responses", …)`: [`super::fake_wire::responses`]).
//!
//! It runs on its own thread with its own Tokio runtime, so it works the same from
//! `#[tokio::test]`, plain `#[test]`, benches, or a harness that runs a C program against it.
//! It speaks plain HTTP/1.1 (keep-alive; streamed bodies use chunked transfer encoding, so a
//! cut stream is visible to the client as a truncated body).
//!
//! # API
//! ```ignore
//! mod support;
//! use support::fake_server::{FakeServer, Reply, Turn};
//!
//! let server = FakeServer::start();                 // binds 127.0.0.1:0
//! let base = server.base_url();                     // "http://127.0.0.1:PORT"
//! // Provider config entries pointing at it (base_url per vendor convention):
//! let cfg = server.provider_config("anthropic");    // {"kind":"anthropic","base_url":base,...}
//! // Queue replies; each request pops the next one (FIFO). With an empty queue the server
//! // answers 500 `{"error":{"message":"fake server: no reply queued"}}`.
//! server.enqueue(Reply::anthropic(&Turn::text(["Hel", "lo"])));
//! server.enqueue(Reply::openai(&Turn::text(["a"]).tool("call_0", "Read", r#"{"p":1}"#)));
//! server.enqueue(Reply::gemini(&Turn::text(["x"])).delay_each_ms(50));
//! server.enqueue(Reply::for_kind("openai", &Turn::text(["partial"])).cut_after(2)); // close mid-stream
//! server.enqueue(Reply::openai(&Turn::text(["p"])).hang_after(2)); // send 2 frames, then stall
//! server.enqueue(Reply::hang());                    // never answer at all
//! server.enqueue(Reply::error(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "1"));
//! server.enqueue(Reply::sse(vec!["data: {bad json\n\n".into()]));   // any raw SSE frames
//! server.enqueue(Reply::raw_lines(&recorded));      // recorded bytes, unchanged, line by line
//! // After the calls:
//! let reqs = server.requests();                     // Vec<RecordedRequest>: method, path, headers, body
//! assert_eq!(reqs[0].path, "/v1/messages");
//! assert_eq!(reqs[0].header("x-api-key"), Some("..."));
//! let n = server.disconnects();                     // connections the client dropped mid-reply
//! server.wait_for_requests(2, timeout);             // blocking waits (plain #[test], other threads)
//! server.disconnects_async(1, timeout).await;       // async waits: use these in #[tokio::test]
//! ```
//! `Turn` describes one model answer (text deltas, thinking deltas, tool calls, usage); the
//! `Reply::anthropic/openai/gemini` builders ([`super::fake_wire`]) render it byte-for-byte in the vendor's documented
//! event sequence (Anthropic `message_start … message_stop` with `ping`; OpenAI chunks, a
//! usage-only chunk and `data: [DONE]`; Gemini `GenerateContentResponse` frames with CRLF line
//! ends, the last carrying `finishReason` and `usageMetadata`).
//!
//! The connection handling (reading requests, writing replies) is in `connection`.

mod connection;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::net::TcpListener;

use super::fake_cache::PromptCacheSim;
pub use super::fake_cache::{CacheRules, PromptUsage};
pub use super::fake_reply::Reply;
pub use super::fake_wire::Turn;
use connection::serve_connection;

/// One recorded HTTP request.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// `POST`, …
    pub method: String,
    /// Path with query, e.g. `/v1beta/models/m:streamGenerateContent?alt=sse`.
    pub path: String,
    /// Headers in order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub raw_body: String,
    /// The body as JSON (`Null` when it is not JSON).
    pub body: Value,
}

/// `v` without its Anthropic prompt-cache marks (`cache_control` keys, at any depth), for tests
/// about the rest of a request.
pub fn without_cache_marks(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| *k != "cache_control")
                .map(|(k, v)| (k.clone(), without_cache_marks(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_cache_marks).collect()),
        other => other.clone(),
    }
}

impl RecordedRequest {
    /// The Anthropic `system` text: the string, or the text of its blocks (a prompt-cache
    /// breakpoint makes it one block); empty when there is none.
    pub fn system_text(&self) -> String {
        match &self.body["system"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            _ => String::new(),
        }
    }

    /// First header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct State {
    replies: VecDeque<Reply>,
    requests: Vec<RecordedRequest>,
    /// Fixed answers to metadata requests (`GET`, `POST …/api/show`) by path.
    routes: Vec<(String, Reply)>,
    /// Metadata requests received (never in `requests`, never consuming `replies`).
    probes: Vec<RecordedRequest>,
    disconnects: usize,
    /// TCP connections accepted.
    connections: usize,
    /// History invariants broken by received requests ([`super::invariants`]).
    violations: Vec<String>,
    /// Answers requests when no reply is queued ([`FakeServer::respond_with`]).
    responder: Option<Responder>,
    /// Requests answered by the responder (not kept in `requests`).
    responded: usize,
    /// The vendors' prompt caching, applied to requests when on.
    cache: Option<PromptCacheSim>,
    /// The prompt usage measured on each request while the simulation is on.
    cache_usage: Vec<PromptUsage>,
}

/// Computes the reply to one request.
pub type Responder = Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The running server; stops when dropped.
pub struct FakeServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeServer {
    /// Starts the server on `127.0.0.1:0` on its own thread.
    pub fn start() -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let sh = shared.clone();
        let thread = std::thread::Builder::new()
            .name("fake-model-server".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("fake server runtime");
                rt.block_on(async move {
                    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
                    addr_tx
                        .send(listener.local_addr().expect("addr"))
                        .expect("send addr");
                    let accept = async {
                        loop {
                            if let Ok((sock, _)) = listener.accept().await {
                                let _ = sock.set_nodelay(true);
                                sh.lock().connections += 1;
                                tokio::spawn(serve_connection(sock, sh.clone()));
                            }
                        }
                    };
                    tokio::select! {
                        _ = accept => {}
                        _ = stop_rx => {}
                    }
                });
            })
            .expect("spawn fake server");
        let addr = addr_rx.recv().expect("fake server address");
        FakeServer {
            addr,
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL a provider of `kind` should use (vendor SDK convention: Anthropic without a
    /// version, OpenAI with `/v1`, Gemini with `/v1beta`).
    pub fn base_url_for(&self, kind: &str) -> String {
        match kind {
            "anthropic" => self.base_url(),
            "gemini" => format!("{}/v1beta", self.base_url()),
            _ => format!("{}/v1", self.base_url()),
        }
    }

    /// A provider config entry for `kind` pointing here, with a test key, no retry delay and
    /// a generous idle timeout.
    pub fn provider_config(&self, kind: &str) -> Value {
        json!({"kind": kind, "base_url": self.base_url_for(kind), "api_key": "test-key",
               "max_retries": 2, "retry_base_delay_ms": 10, "timeout_ms": 30000})
    }

    /// Answers metadata requests (`GET path`, `POST …/api/show`) to `path` with `reply`,
    /// every time; unrouted ones get 404. They are listed by [`Self::probes`], not
    /// [`Self::requests`], and never take a queued reply.
    pub fn route(&self, path: &str, reply: Reply) {
        self.shared.lock().routes.push((path.to_string(), reply));
    }

    /// The metadata requests received, in order.
    pub fn probes(&self) -> Vec<RecordedRequest> {
        self.shared.lock().probes.clone()
    }

    /// Queues a reply for the next request.
    pub fn enqueue(&self, reply: Reply) {
        self.shared.lock().replies.push_back(reply);
    }

    /// Applies the vendors' documented prompt caching ([`super::fake_cache`]) to every request
    /// from now on; replies queued with [`Reply::turn`] then report the measured cache reads
    /// and writes (other replies are sent as they are).
    pub fn simulate_prompt_cache(&self, rules: CacheRules) {
        self.shared.lock().cache = Some(PromptCacheSim::new(rules));
    }

    /// The prompt usage measured on each request while the simulation was on, in order.
    pub fn prompt_usage(&self) -> Vec<PromptUsage> {
        self.shared.lock().cache_usage.clone()
    }

    /// Requests received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Answers every request that finds no queued reply with `f(request)` instead of a 500;
    /// those requests are counted ([`Self::responded`]), not kept (a long run stays flat).
    pub fn respond_with(&self, f: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static) {
        self.shared.lock().responder = Some(Arc::new(f));
    }

    /// Requests answered by the responder so far.
    pub fn responded(&self) -> usize {
        self.shared.lock().responded
    }

    /// History invariants broken so far (the server also fails the test with them on drop).
    pub fn violations(&self) -> Vec<String> {
        self.shared.lock().violations.clone()
    }

    /// Number of replies still queued.
    pub fn pending_replies(&self) -> usize {
        self.shared.lock().replies.len()
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.lock().connections
    }

    /// Connections the client closed while a reply was still being sent or hanging.
    pub fn disconnects(&self) -> usize {
        self.shared.lock().disconnects
    }

    /// Waits (up to `timeout`) until `n` requests arrived; returns what arrived.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> Vec<RecordedRequest> {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.lock();
        while st.requests.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        st.requests.clone()
    }

    /// Async variant of [`Self::wait_for_requests`] for `#[tokio::test]`s: the blocking one
    /// would stall a current-thread runtime (and with it the client's connection tasks).
    pub async fn requests_async(&self, n: usize, timeout: Duration) -> Vec<RecordedRequest> {
        let deadline = Instant::now() + timeout;
        loop {
            let reqs = self.requests();
            if reqs.len() >= n || Instant::now() >= deadline {
                return reqs;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Async variant of [`Self::wait_for_disconnects`] for `#[tokio::test]`s.
    pub async fn disconnects_async(&self, n: usize, timeout: Duration) -> usize {
        let deadline = Instant::now() + timeout;
        loop {
            let d = self.disconnects();
            if d >= n || Instant::now() >= deadline {
                return d;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Waits (up to `timeout`) until `n` client disconnects were seen; returns the count.
    /// Blocking: from async tests use [`Self::disconnects_async`].
    pub fn wait_for_disconnects(&self, n: usize, timeout: Duration) -> usize {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.lock();
        while st.disconnects < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        st.disconnects
    }
}

impl Drop for FakeServer {
    /// Stops the server and fails the test when a received request broke a history invariant
    /// (every tool result answers one earlier tool call).
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let violations = std::mem::take(&mut self.shared.lock().violations);
        if !violations.is_empty() && !std::thread::panicking() {
            panic!(
                "the fake model server received broken histories:\n{}",
                violations.join("\n")
            );
        }
    }
}
