//! Network faults for the fault matrix (`tests/suite/engine/fault_matrix.rs`): replies that reset the
//! connection, answer garbage instead of HTTP, drip bytes slowly or split a stream at chosen
//! bytes; a base URL nobody listens on; and a count of the client connections still open to
//! a server (to prove a failed call leaks no socket).
//!
//! ```ignore
//! server.enqueue(Reply::reset_before_headers());               // RST right after the request
//! server.enqueue(Reply::openai(&turn).reset_after(2));         // 2 frames, then RST
//! server.enqueue(Reply::garbage(b"\x00\xffNOT HTTP\r\n\r\n"));  // not an HTTP response
//! server.enqueue(Reply::openai(&turn).drip_around("✓".as_bytes(), 20, gap)); // 20 bytes, 1 per chunk
//! server.enqueue(Reply::openai(&turn).split_at(&[b"\xe2\x9c", b"@@"]));  // chunk ends after each
//! let url = refused_base_url("openai");                        // connection refused
//! assert_eq!(open_client_connections(server.port()), 0);
//! ```

use std::time::Duration;

use super::fake_reply::{Body, Step};
use super::fake_server::Reply;

impl Reply {
    /// Reads the request, then resets the connection (RST) before any response byte.
    pub fn reset_before_headers() -> Self {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: Body::Reset,
            frames: 0,
        }
    }

    /// Sends the headers and the first `n` frames, then resets the connection (RST).
    pub fn reset_after(self, n: usize) -> Self {
        self.truncate_with(n, Step::Reset)
    }

    /// Answers `bytes` instead of an HTTP response, then closes the connection.
    pub fn garbage(bytes: &[u8]) -> Self {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: Body::Raw(bytes.to_vec()),
            frames: 0,
        }
    }

    /// Sends the first `n` frames, then `bytes` as one chunk, then the remaining frames.
    pub fn insert_after(mut self, n: usize, bytes: &[u8]) -> Self {
        if let Body::Stream(steps) = &mut self.body {
            let at = steps
                .iter()
                .enumerate()
                .filter(|(_, s)| matches!(s, Step::Bytes(_)))
                .nth(n)
                .map_or(steps.len(), |(i, _)| i);
            steps.insert(at, Step::Bytes(bytes.to_vec()));
        }
        self
    }

    /// The body's bytes re-chunked: everything up to `len / 2` bytes before the first
    /// occurrence of `needle` in one chunk, then `len` bytes one per chunk with `gap` before
    /// each (a slow drip), then the rest in one chunk.
    pub fn drip_around(self, needle: &[u8], len: usize, gap: Duration) -> Self {
        let all = self.frames_bytes();
        let at = find(&all, needle).unwrap_or(0);
        let start = at.saturating_sub(len / 2);
        let end = (start + len).min(all.len());
        let mut steps = vec![Step::Bytes(all[..start].to_vec())];
        for b in &all[start..end] {
            steps.push(Step::Delay(gap));
            steps.push(Step::Bytes(vec![*b]));
        }
        steps.push(Step::Bytes(all[end..].to_vec()));
        self.with_steps(steps)
    }

    /// The body's bytes re-chunked so that a chunk ends right after the first occurrence of
    /// each of `cuts` (in order): a multi-byte character or an invalid sequence split across
    /// chunks.
    pub fn split_at(self, cuts: &[&[u8]]) -> Self {
        let all = self.frames_bytes();
        let mut steps = Vec::new();
        let mut from = 0;
        for cut in cuts {
            if let Some(i) = find(&all[from..], cut) {
                let end = from + i + cut.len();
                steps.push(Step::Bytes(all[from..end].to_vec()));
                from = end;
            }
        }
        steps.push(Step::Bytes(all[from..].to_vec()));
        self.with_steps(steps)
    }

    /// The body's bytes with every occurrence of `from` replaced by `to` (e.g. a placeholder
    /// in a text delta replaced by bytes that are not UTF-8).
    pub fn replace_bytes(self, from: &[u8], to: &[u8]) -> Self {
        let all = self.frames_bytes();
        let mut out = Vec::with_capacity(all.len());
        let mut rest = &all[..];
        while let Some(i) = find(rest, from) {
            out.extend_from_slice(&rest[..i]);
            out.extend_from_slice(to);
            rest = &rest[i + from.len()..];
        }
        out.extend_from_slice(rest);
        self.with_steps(vec![Step::Bytes(out)])
    }

    fn with_steps(mut self, steps: Vec<Step>) -> Self {
        self.frames = steps.len();
        self.body = Body::Stream(steps);
        self
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A base URL for `kind` (vendor path convention as [`super::fake_server::FakeServer::base_url_for`])
/// on a port of 127.0.0.1 where nothing listens: every connect is refused.
pub fn refused_base_url(kind: &str) -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    // The listener is closed here: the port is free and refuses connections.
    let base = format!("http://127.0.0.1:{port}");
    match kind {
        "anthropic" => base,
        "gemini" => format!("{base}/v1beta"),
        _ => format!("{base}/v1"),
    }
}

/// Client-side TCP connections of this process to `port` on 127.0.0.1 that are still open
/// (established, or closed by the server but not yet by the client: `CLOSE_WAIT`), read from
/// `/proc/net/tcp`. A call that finished, failed or was abandoned must leave none once its HTTP
/// client is dropped.
pub fn open_client_connections(port: u16) -> usize {
    let Ok(table) = std::fs::read_to_string("/proc/net/tcp") else {
        return 0;
    };
    table
        .lines()
        .skip(1)
        .filter(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let remote_port = cols
                .get(2)
                .and_then(|r| r.rsplit(':').next())
                .and_then(|p| u16::from_str_radix(p, 16).ok());
            let state = cols.get(3).copied().unwrap_or("");
            remote_port == Some(port) && (state == "01" || state == "08")
        })
        .count()
}

/// Waits (polling `/proc`, up to `timeout`) until no client connection to `port` is open;
/// returns how many still are.
pub async fn client_connections_closed(port: u16, timeout: Duration) -> usize {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let n = open_client_connections(port);
        if n == 0 || std::time::Instant::now() >= deadline {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The port `server` listens on.
pub fn port(server: &super::fake_server::FakeServer) -> u16 {
    server
        .base_url()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("the fake server's port")
}
