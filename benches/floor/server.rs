//! The floor's model server on 127.0.0.1: HTTP/1.1 keep-alive, answering each request by its
//! content (a tool call while the request holds fewer than [`TOOL_ROUNDS`] tool results, else
//! the 50-delta answer), so any number of concurrent sessions can share it.
//!
//! The SSE bodies are the project's fake server renderings (`Reply::anthropic/openai`, the
//! vendors' exact event sequences), sent chunked. Unlike the test server it records nothing and
//! parses no JSON: every response is pre-rendered and a request costs one scan and one write,
//! so the server stays off the critical path it shares with both clients (the bench prints its
//! CPU per scenario).

use std::net::SocketAddr;

use memchr::memmem;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::placement::pin_current_thread;
use crate::scenario::{Kind, ANSWER_DELTAS, TOOL_ROUNDS};
use crate::support::fake_server::{Reply, Turn};

/// Pre-rendered HTTP responses: one per tool round, then the answer.
struct Responses {
    rounds: Vec<Vec<u8>>,
    answer: Vec<u8>,
    marker: &'static [u8],
}

fn http_response(reply: &Reply) -> Vec<u8> {
    let body = reply.frames_bytes();
    let mut out =
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
                    transfer-encoding: chunked\r\n\r\n"
            .to_vec();
    out.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(b"\r\n0\r\n\r\n");
    out
}

impl Responses {
    fn new(kind: Kind) -> Self {
        let render = |t: &Turn| http_response(&Reply::for_kind(kind.as_str(), t));
        let rounds = (0..TOOL_ROUNDS)
            .map(|i| {
                let args = format!("{{\"a\":{},\"b\":2}}", i + 1);
                render(&Turn::text(["Adding."]).tool(&format!("call_{i}"), "add", &args))
            })
            .collect();
        let words: Vec<String> = (0..ANSWER_DELTAS).map(|i| format!("word{i} ")).collect();
        Responses {
            rounds,
            answer: render(&Turn::text(words)),
            marker: kind.tool_result_marker().as_bytes(),
        }
    }

    fn for_body(&self, body: &[u8]) -> &[u8] {
        let results = memmem::find_iter(body, self.marker).count();
        self.rounds.get(results).unwrap_or(&self.answer)
    }
}

/// `Content-Length` of a request head (0 when absent).
fn content_length(head: &[u8]) -> usize {
    head.split(|&b| b == b'\n')
        .find_map(|line| {
            let (name, value) = line.split_at(line.iter().position(|&b| b == b':')?);
            name.eq_ignore_ascii_case(b"content-length")
                .then(|| std::str::from_utf8(&value[1..]).ok()?.trim().parse().ok())?
        })
        .unwrap_or(0)
}

async fn serve(mut sock: TcpStream, responses: &'static Responses) {
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 1024);
    loop {
        let head_end = loop {
            if let Some(i) = memmem::find(&buf, b"\r\n\r\n") {
                break i + 4;
            }
            if read_more(&mut sock, &mut buf).await.is_none() {
                return;
            }
        };
        let end = head_end + content_length(&buf[..head_end]);
        while buf.len() < end {
            if read_more(&mut sock, &mut buf).await.is_none() {
                return;
            }
        }
        let response = responses.for_body(&buf[head_end..end]);
        buf.drain(..end);
        if sock.write_all(response).await.is_err() {
            return;
        }
    }
}

async fn read_more(sock: &mut TcpStream, buf: &mut Vec<u8>) -> Option<()> {
    buf.reserve(8 * 1024);
    match sock.read_buf(buf).await {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(()),
    }
}

/// Starts the server for `kind` on its own thread, pinned to `cpu` when one is given; returns
/// its address. It lives as long as the process.
pub(crate) fn start(kind: Kind, cpu: Option<usize>) -> SocketAddr {
    let responses: &'static Responses = Box::leak(Box::new(Responses::new(kind)));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("floor-server".into())
        .spawn(move || {
            if cpu.is_some() {
                pin_current_thread(cpu, &[]);
            }
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("server runtime");
            rt.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
                tx.send(listener.local_addr().expect("addr"))
                    .expect("send addr");
                loop {
                    if let Ok((sock, _)) = listener.accept().await {
                        let _ = sock.set_nodelay(true);
                        tokio::spawn(serve(sock, responses));
                    }
                }
            });
        })
        .expect("spawn server thread");
    rx.recv().expect("server address")
}

/// The base URL a provider of `kind` uses (vendor SDK convention: OpenAI's ends in `/v1`).
pub(crate) fn base_url(addr: SocketAddr, kind: Kind) -> String {
    match kind {
        Kind::Anthropic => format!("http://{addr}"),
        Kind::OpenAi => format!("http://{addr}/v1"),
    }
}
