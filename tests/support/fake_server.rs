//! A fake model server on `127.0.0.1:<random port>` speaking the Anthropic Messages, OpenAI
//! Chat Completions and Gemini `streamGenerateContent?alt=sse` wire formats, for tests.
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
//! `Reply::anthropic/openai/gemini` builders render it byte-for-byte in the vendor's documented
//! event sequence (Anthropic `message_start … message_stop` with `ping`; OpenAI chunks, a
//! usage-only chunk and `data: [DONE]`; Gemini `GenerateContentResponse` frames with CRLF line
//! ends, the last carrying `finishReason` and `usageMetadata`).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

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

impl RecordedRequest {
    /// First header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One model answer to render in a vendor's wire format.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// Text deltas.
    pub text: Vec<String>,
    /// Thinking deltas (Anthropic `thinking_delta`, OpenAI-compatible `reasoning_content`,
    /// Gemini `thought: true` parts), sent before the text.
    pub thinking: Vec<String>,
    /// Tool calls `(id, name, arguments JSON)`.
    pub tools: Vec<(String, String, String)>,
    /// `(input, output)` tokens.
    pub usage: (u64, u64),
    /// Anthropic only: a server tool use `(id, name, input JSON)` sent before the text.
    pub server_tool: Option<(String, String, String)>,
    /// How the answer stops, vendor-neutral: `max_tokens` (Anthropic `max_tokens`, OpenAI
    /// `length`, Gemini `MAX_TOKENS`) or `refusal` (Anthropic `refusal`, OpenAI text sent as
    /// `delta.refusal`, Gemini `SAFETY`); default: the natural stop or tool use.
    pub stop: Option<String>,
    /// Cached prompt tokens reported with the usage (Anthropic `cache_read_input_tokens`,
    /// OpenAI `prompt_tokens_details.cached_tokens`, Gemini `cachedContentTokenCount`).
    pub cached: u64,
}

impl Turn {
    /// A turn streaming these text deltas.
    pub fn text<I: IntoIterator<Item = S>, S: Into<String>>(deltas: I) -> Self {
        Turn {
            text: deltas.into_iter().map(Into::into).collect(),
            usage: (10, 5),
            ..Default::default()
        }
    }

    /// Adds a tool call.
    pub fn tool(mut self, id: &str, name: &str, args: &str) -> Self {
        self.tools.push((id.into(), name.into(), args.into()));
        self
    }

    /// Adds thinking deltas.
    pub fn thinking<I: IntoIterator<Item = S>, S: Into<String>>(mut self, deltas: I) -> Self {
        self.thinking = deltas.into_iter().map(Into::into).collect();
        self
    }

    /// Sets usage.
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = (input, output);
        self
    }

    /// Sets how the answer stops (`max_tokens` or `refusal`, see [`Turn::stop`]).
    pub fn stop(mut self, reason: &str) -> Self {
        self.stop = Some(reason.into());
        self
    }

    /// Reports `n` cached prompt tokens.
    pub fn cached(mut self, n: u64) -> Self {
        self.cached = n;
        self
    }

    /// Adds an Anthropic server tool use (e.g. `web_search`).
    pub fn server_tool(mut self, id: &str, name: &str, input: &str) -> Self {
        self.server_tool = Some((id.into(), name.into(), input.into()));
        self
    }
}

/// One step of a streamed body.
#[derive(Debug, Clone)]
enum Step {
    Bytes(Vec<u8>),
    Delay(Duration),
    Cut,
    Hang,
}

#[derive(Debug, Clone)]
enum Body {
    Full(String),
    Stream(Vec<Step>),
    Hang,
}

/// A scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Body,
    frames: usize,
}

fn sse_frame(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(e) => format!("event: {e}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// Splits a JSON argument string into three fragments (on char boundaries).
fn fragments(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    let cuts = [0, n / 3, 2 * n / 3, n];
    cuts.windows(2)
        .map(|w| chars[w[0]..w[1]].iter().collect::<String>())
        .filter(|f| !f.is_empty())
        .collect()
}

impl Reply {
    /// Raw SSE frames (each written as its own chunk), status 200.
    pub fn sse(frames: Vec<String>) -> Self {
        let n = frames.len();
        Reply {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/event-stream".into()),
                ("cache-control".into(), "no-cache".into()),
            ],
            body: Body::Stream(
                frames
                    .into_iter()
                    .map(|f| Step::Bytes(f.into_bytes()))
                    .collect(),
            ),
            frames: n,
        }
    }

    /// Recorded stream bytes served unchanged as `text/event-stream`, one line (with its own
    /// terminator, LF or CRLF) per chunk, as the vendors' SDK tests feed their fixtures; a last
    /// line without terminator is sent as is.
    pub fn raw_lines(bytes: &[u8]) -> Self {
        let steps: Vec<Step> = bytes
            .split_inclusive(|b| *b == b'\n')
            .map(|line| Step::Bytes(line.to_vec()))
            .collect();
        let mut reply = Self::sse(Vec::new());
        reply.frames = steps.len();
        reply.body = Body::Stream(steps);
        reply
    }

    /// A complete JSON (or text) body with this status.
    pub fn error(status: u16, body: &str) -> Self {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: Body::Full(body.to_string()),
            frames: 0,
        }
    }

    /// Never answers (no status line); ends when the client disconnects.
    pub fn hang() -> Self {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: Body::Hang,
            frames: 0,
        }
    }

    /// Adds a response header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers
            .push((name.to_ascii_lowercase(), value.to_string()));
        self
    }

    /// Sleeps this long before every frame.
    pub fn delay_each_ms(mut self, ms: u64) -> Self {
        if let Body::Stream(steps) = &mut self.body {
            let mut out = Vec::new();
            for s in steps.drain(..) {
                out.push(Step::Delay(Duration::from_millis(ms)));
                out.push(s);
            }
            *steps = out;
        }
        self
    }

    fn truncate_with(mut self, n: usize, end: Step) -> Self {
        if let Body::Stream(steps) = &mut self.body {
            let mut seen = 0;
            let mut out = Vec::new();
            for s in steps.drain(..) {
                if matches!(s, Step::Bytes(_)) {
                    if seen == n {
                        break;
                    }
                    seen += 1;
                }
                out.push(s);
            }
            out.push(end);
            *steps = out;
        }
        self
    }

    /// Sends the first `n` frames, then closes the connection without ending the body.
    pub fn cut_after(self, n: usize) -> Self {
        self.truncate_with(n, Step::Cut)
    }

    /// Sends the first `n` frames, then stalls until the client disconnects.
    pub fn hang_after(self, n: usize) -> Self {
        self.truncate_with(n, Step::Hang)
    }

    /// Sends the first `n` frames, then `bytes` raw, then the body's chunked end (for a
    /// malformed or truncated event followed by a clean close).
    pub fn then_raw_after(mut self, n: usize, bytes: &str) -> Self {
        self = self.truncate_with(n, Step::Bytes(bytes.as_bytes().to_vec()));
        self
    }

    /// All frames of a streamed reply written as one chunk (for benchmarks).
    pub fn coalesced(mut self) -> Self {
        let all = self.frames_bytes();
        if let Body::Stream(steps) = &mut self.body {
            *steps = vec![Step::Bytes(all)];
        }
        self
    }

    /// The concatenated frame bytes of a streamed reply (delays and cuts ignored).
    pub fn frames_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if let Body::Stream(steps) = &self.body {
            for s in steps {
                if let Step::Bytes(b) = s {
                    out.extend_from_slice(b);
                }
            }
        }
        out
    }

    /// Number of frames of a streamed reply.
    pub fn frame_count(&self) -> usize {
        self.frames
    }

    /// Renders `turn` for `kind` (`anthropic`, `openai`, `openai-compatible`, `gemini`).
    pub fn for_kind(kind: &str, turn: &Turn) -> Self {
        match kind {
            "anthropic" => Self::anthropic(turn),
            "gemini" => Self::gemini(turn),
            _ => Self::openai(turn),
        }
    }

    /// The Anthropic Messages event sequence for `turn`.
    pub fn anthropic(turn: &Turn) -> Self {
        let mut f = Vec::new();
        f.push(sse_frame(
            Some("message_start"),
            &json!({"type":"message_start","message":{"id":"msg_fake01","type":"message","role":"assistant",
                "content":[],"model":"claude-fake","stop_reason":null,"stop_sequence":null,
                "usage":{"input_tokens":turn.usage.0,"cache_creation_input_tokens":0,"cache_read_input_tokens":turn.cached,"output_tokens":1}}}),
        ));
        let mut index = 0;
        if !turn.thinking.is_empty() {
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"thinking","thinking":"","signature":""}})));
            for t in &turn.thinking {
                f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"thinking_delta","thinking":t}})));
            }
            f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"signature_delta","signature":"c2ln"}})));
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
        }
        if let Some((id, name, input)) = &turn.server_tool {
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"server_tool_use","id":id,"name":name,"input":{}}})));
            f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":input}})));
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"web_search_tool_result","tool_use_id":id,"content":[{"type":"web_search_result","title":"T","url":"https://example.com","encrypted_content":"x","page_age":null}]}})));
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
        }
        if !turn.text.is_empty() {
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"text","text":""}})));
            f.push(sse_frame(Some("ping"), &json!({"type":"ping"})));
            for t in &turn.text {
                // Field order exactly as the API sends it.
                f.push(format!(
                    "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{{\"type\":\"text_delta\",\"text\":{}}}}}\n\n",
                    Value::String(t.clone())
                ));
            }
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
        }
        for (id, name, args) in &turn.tools {
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"tool_use","id":id,"name":name,"input":{}}})));
            f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":""}})));
            for frag in fragments(args) {
                f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":frag}})));
            }
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
        }
        let stop = match &turn.stop {
            Some(s) => s.as_str(),
            None if turn.tools.is_empty() => "end_turn",
            None => "tool_use",
        };
        f.push(sse_frame(Some("message_delta"), &json!({"type":"message_delta","delta":{"stop_reason":stop,"stop_sequence":null},"usage":{"output_tokens":turn.usage.1}})));
        f.push(sse_frame(
            Some("message_stop"),
            &json!({"type":"message_stop"}),
        ));
        Self::sse(f)
    }

    /// The OpenAI Chat Completions chunk sequence for `turn` (ending in a usage-only chunk
    /// and `data: [DONE]`).
    pub fn openai(turn: &Turn) -> Self {
        let chunk = |choices: Value| {
            json!({"id":"chatcmpl-fake01","object":"chat.completion.chunk","created":1700000000,
                   "model":"gpt-fake","system_fingerprint":"fp_fake","choices":choices})
        };
        let mut f = Vec::new();
        f.push(sse_frame(None, &chunk(json!([{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]))));
        for t in &turn.thinking {
            f.push(sse_frame(None, &chunk(json!([{"index":0,"delta":{"reasoning_content":t},"logprobs":null,"finish_reason":null}]))));
        }
        let field = if turn.stop.as_deref() == Some("refusal") {
            "refusal"
        } else {
            "content"
        };
        for t in &turn.text {
            f.push(sse_frame(
                None,
                &chunk(json!([{"index":0,"delta":{field:t},"logprobs":null,"finish_reason":null}])),
            ));
        }
        for (i, (id, name, args)) in turn.tools.iter().enumerate() {
            f.push(sse_frame(None, &chunk(json!([{"index":0,"delta":{"tool_calls":[{"index":i,"id":id,"type":"function","function":{"name":name,"arguments":""}}]},"logprobs":null,"finish_reason":null}]))));
            for frag in fragments(args) {
                f.push(sse_frame(None, &chunk(json!([{"index":0,"delta":{"tool_calls":[{"index":i,"function":{"arguments":frag}}]},"logprobs":null,"finish_reason":null}]))));
            }
        }
        let finish = match turn.stop.as_deref() {
            Some("max_tokens") => "length",
            Some(_) => "stop",
            None if turn.tools.is_empty() => "stop",
            None => "tool_calls",
        };
        f.push(sse_frame(
            None,
            &chunk(json!([{"index":0,"delta":{},"logprobs":null,"finish_reason":finish}])),
        ));
        let mut usage = chunk(json!([]));
        usage["usage"] = json!({"prompt_tokens":turn.usage.0,"completion_tokens":turn.usage.1,"total_tokens":turn.usage.0 + turn.usage.1,
                                "prompt_tokens_details":{"cached_tokens":turn.cached}});
        f.push(sse_frame(None, &usage));
        f.push("data: [DONE]\n\n".to_string());
        Self::sse(f)
    }

    /// The Gemini `streamGenerateContent?alt=sse` frames for `turn` (CRLF line ends).
    pub fn gemini(turn: &Turn) -> Self {
        let frame = |v: Value| format!("data: {v}\r\n\r\n");
        let mut f = Vec::new();
        for t in &turn.thinking {
            f.push(frame(json!({"candidates":[{"content":{"parts":[{"text":t,"thought":true}],"role":"model"},"index":0}],"modelVersion":"gemini-fake"})));
        }
        for t in &turn.text {
            f.push(frame(json!({"candidates":[{"content":{"parts":[{"text":t}],"role":"model"},"index":0}],
                "usageMetadata":{"promptTokenCount":turn.usage.0,"totalTokenCount":turn.usage.0},"modelVersion":"gemini-fake"})));
        }
        let calls: Vec<Value> = turn
            .tools
            .iter()
            .map(|(id, name, args)| {
                let args: Value = serde_json::from_str(args).unwrap_or(json!({}));
                let mut fc = json!({"name": name, "args": args});
                if !id.is_empty() {
                    fc["id"] = json!(id);
                }
                json!({"functionCall": fc})
            })
            .collect();
        let last_parts = if calls.is_empty() {
            json!([{"text": ""}])
        } else {
            Value::Array(calls)
        };
        let finish = match turn.stop.as_deref() {
            Some("max_tokens") => "MAX_TOKENS",
            Some(_) => "SAFETY",
            None => "STOP",
        };
        f.push(frame(json!({"candidates":[{"content":{"parts":last_parts,"role":"model"},"finishReason":finish,"index":0}],
            "usageMetadata":{"promptTokenCount":turn.usage.0,"candidatesTokenCount":turn.usage.1,"totalTokenCount":turn.usage.0 + turn.usage.1,
                             "cachedContentTokenCount":turn.cached},
            "modelVersion":"gemini-fake"})));
        Self::sse(f)
    }
}

#[derive(Default)]
struct State {
    replies: VecDeque<Reply>,
    requests: Vec<RecordedRequest>,
    disconnects: usize,
    /// History invariants broken by received requests ([`super::invariants`]).
    violations: Vec<String>,
}

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

    /// Queues a reply for the next request.
    pub fn enqueue(&self, reply: Reply) {
        self.shared.lock().replies.push_back(reply);
    }

    /// Requests received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Number of replies still queued.
    pub fn pending_replies(&self) -> usize {
        self.shared.lock().replies.len()
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

/// Reads one request; `None` on EOF or a broken request.
async fn read_request(sock: &mut TcpStream, buf: &mut Vec<u8>) -> Option<RecordedRequest> {
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let mut tmp = [0u8; 8192];
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let body_start = head_end + 4;
    while buf.len() < body_start + len {
        let mut tmp = [0u8; 8192];
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let raw_body = String::from_utf8_lossy(&buf[body_start..body_start + len]).into_owned();
    buf.drain(..body_start + len);
    let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    Some(RecordedRequest {
        method,
        path,
        headers,
        raw_body,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// Waits until the peer closes the connection.
async fn wait_for_close(sock: &mut TcpStream) {
    let mut tmp = [0u8; 1024];
    loop {
        match sock.read(&mut tmp).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

async fn serve_connection(mut sock: TcpStream, shared: Arc<Shared>) {
    let mut buf = Vec::new();
    while let Some(req) = read_request(&mut sock, &mut buf).await {
        let reply = {
            let mut st = shared.lock();
            if let Some(v) = super::invariants::tool_pairing_violation(&req.path, &req.body) {
                st.violations.push(v);
            }
            st.requests.push(req);
            shared.changed.notify_all();
            st.replies.pop_front().unwrap_or_else(|| {
                Reply::error(
                    500,
                    r#"{"error":{"message":"fake server: no reply queued"}}"#,
                )
            })
        };
        let keep = match write_reply(&mut sock, reply).await {
            Outcome::Done => true,
            Outcome::Closed => false,
            Outcome::ClientGone => {
                shared.lock().disconnects += 1;
                shared.changed.notify_all();
                false
            }
        };
        if !keep {
            return;
        }
    }
}

enum Outcome {
    Done,
    Closed,
    ClientGone,
}

async fn write_reply(sock: &mut TcpStream, reply: Reply) -> Outcome {
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    match reply.body {
        Body::Hang => {
            wait_for_close(sock).await;
            Outcome::ClientGone
        }
        Body::Full(text) => {
            head.push_str(&format!("content-length: {}\r\n\r\n", text.len()));
            head.push_str(&text);
            if sock.write_all(head.as_bytes()).await.is_err() {
                return Outcome::ClientGone;
            }
            Outcome::Done
        }
        Body::Stream(steps) => {
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            if sock.write_all(head.as_bytes()).await.is_err() {
                return Outcome::ClientGone;
            }
            for step in steps {
                match step {
                    Step::Bytes(b) => {
                        let mut chunk = format!("{:x}\r\n", b.len()).into_bytes();
                        chunk.extend_from_slice(&b);
                        chunk.extend_from_slice(b"\r\n");
                        if sock.write_all(&chunk).await.is_err() || sock.flush().await.is_err() {
                            return Outcome::ClientGone;
                        }
                    }
                    Step::Delay(d) => {
                        // A client that goes away during the delay counts as a disconnect.
                        let mut tmp = [0u8; 64];
                        tokio::select! {
                            _ = tokio::time::sleep(d) => {}
                            r = sock.read(&mut tmp) => {
                                if matches!(r, Ok(0) | Err(_)) {
                                    return Outcome::ClientGone;
                                }
                            }
                        }
                    }
                    Step::Cut => {
                        let _ = sock.shutdown().await;
                        return Outcome::Closed;
                    }
                    Step::Hang => {
                        wait_for_close(sock).await;
                        return Outcome::ClientGone;
                    }
                }
            }
            if sock.write_all(b"0\r\n\r\n").await.is_err() {
                return Outcome::ClientGone;
            }
            Outcome::Done
        }
    }
}
