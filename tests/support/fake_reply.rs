//! What the fake model server answers to one request ([`Reply`]): a streamed body of frames
//! (with delays, cuts, stalls), raw recorded bytes, a full error body, or no answer at all.

use std::time::Duration;

/// One step of a streamed body.
#[derive(Debug, Clone)]
pub(super) enum Step {
    Bytes(Vec<u8>),
    Delay(Duration),
    Cut,
    Hang,
    /// Resets the connection (RST, `SO_LINGER` 0) instead of closing it.
    Reset,
}

#[derive(Debug, Clone)]
pub(super) enum Body {
    Full(String),
    Stream(Vec<Step>),
    Hang,
    /// Resets the connection before any response byte (see `fake_faults.rs`).
    Reset,
    /// These bytes instead of an HTTP response, then a close (see `fake_faults.rs`).
    Raw(Vec<u8>),
    /// A model answer rendered when the request arrives, with the usage the server's prompt
    /// cache simulation measured (when it is on).
    Turn(String, Box<super::fake_wire::Turn>),
}

/// A scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub(super) status: u16,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: Body,
    pub(super) frames: usize,
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

    /// A complete body with this status and content type.
    pub fn body(status: u16, content_type: &str, body: &str) -> Self {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: Body::Full(body.to_string()),
            frames: 0,
        }
    }

    /// `turn` in `kind`'s wire format, rendered when the request arrives: with the server's
    /// prompt cache simulation on ([`super::fake_server::FakeServer::simulate_prompt_cache`]),
    /// its prompt usage is the one measured on the request.
    pub fn turn(kind: &str, turn: super::fake_wire::Turn) -> Self {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: Body::Turn(kind.to_string(), Box::new(turn)),
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

    pub(super) fn truncate_with(mut self, n: usize, end: Step) -> Self {
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
}
