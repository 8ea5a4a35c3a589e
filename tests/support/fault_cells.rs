//! The fault matrix's cells (`tests/suite/engine/fault_matrix.rs`, docs/reliability.md "Fault matrix"): each
//! fault the server answers a model call with, and the documented outcome.

use std::time::Duration;

use serde_json::{json, Value};

use super::fake_server::{Reply, Turn};
use super::provider_cases::frames_through_text;

/// The answer of the faulted call when it succeeds.
pub const DONE: &str = "Done ✓";
/// Idle timeout of the hanging cells.
pub const IDLE_MS: u64 = 1000;

/// What a cell must end with.
#[derive(Clone, Copy)]
pub enum Expect {
    /// The faulted call succeeded after `attempts` requests; the host saw exactly `text`.
    Ok { attempts: usize, text: &'static str },
    /// The turn failed after `attempts` requests with this class; the error text contains
    /// `contains`; the host saw exactly `text` of the failed call.
    Err {
        code: &'static str,
        category: &'static str,
        recoverable: bool,
        attempts: usize,
        contains: &'static str,
        text: &'static str,
    },
}

pub struct Cell {
    pub name: &'static str,
    /// The server's replies to the faulted call, for a provider kind.
    pub replies: fn(&str) -> Vec<Reply>,
    /// Nobody listens: every connect is refused.
    pub refused: bool,
    /// Provider config fields over the defaults (2 retries, 10 ms base delay).
    pub patch: fn() -> Value,
    /// Least time the turn takes (a `Retry-After` honoured).
    pub at_least: Duration,
    /// The answer is 10 MiB: the next turn is refused by the context guard (nothing sent).
    pub big: bool,
    pub expect: Expect,
}

fn done(kind: &str) -> Reply {
    Reply::for_kind(kind, &Turn::text(["Done ", "✓"]))
}

/// "Hel" reaches the host, then the fault.
fn partial(kind: &str) -> (Reply, usize) {
    (
        Reply::for_kind(kind, &Turn::text(["Hel", "lo"])),
        frames_through_text(kind, 1),
    )
}

fn none() -> Value {
    json!({})
}

fn idle() -> Value {
    json!({ "timeout_ms": IDLE_MS })
}

fn status(code: u16) -> Reply {
    Reply::error(code, r#"{"error":{"message":"try later"}}"#)
}

const RECOVERED: Expect = Expect::Ok {
    attempts: 2,
    text: DONE,
};

const fn provider_err(attempts: usize, recoverable: bool, contains: &'static str) -> Expect {
    Expect::Err {
        code: "PROVIDER_ERROR",
        category: "provider",
        recoverable,
        attempts,
        contains,
        text: "",
    }
}

const fn cut_err(contains: &'static str) -> Expect {
    Expect::Err {
        code: "PROVIDER_ERROR",
        category: "provider",
        recoverable: true,
        attempts: 1,
        contains,
        text: "Hel",
    }
}

pub fn cells() -> Vec<Cell> {
    let cell = |name, replies, expect| Cell {
        name,
        replies,
        refused: false,
        patch: none,
        at_least: Duration::ZERO,
        big: false,
        expect,
    };
    vec![
        Cell {
            at_least: Duration::from_millis(950),
            ..cell(
                "429 with Retry-After: 1",
                |k| vec![status(429).header("retry-after", "1"), done(k)],
                RECOVERED,
            )
        },
        cell(
            "429 without Retry-After",
            |k| vec![status(429), done(k)],
            RECOVERED,
        ),
        cell(
            "429 three times (retries exhausted)",
            |_| vec![status(429), status(429), status(429)],
            Expect::Err {
                code: "RATE_LIMIT_ERROR",
                category: "provider",
                recoverable: true,
                attempts: 3,
                contains: "returned HTTP 429: try later",
                text: "",
            },
        ),
        cell("500", |k| vec![status(500), done(k)], RECOVERED),
        cell("502", |k| vec![status(502), done(k)], RECOVERED),
        cell("503", |k| vec![status(503), done(k)], RECOVERED),
        cell("529", |k| vec![status(529), done(k)], RECOVERED),
        cell(
            "503 three times (retries exhausted)",
            |_| vec![status(503), status(503), status(503)],
            provider_err(3, true, "returned HTTP 503: try later"),
        ),
        Cell {
            refused: true,
            ..cell(
                "connection refused",
                |_| Vec::new(),
                Expect::Err {
                    code: "NETWORK_ERROR",
                    category: "system",
                    recoverable: true,
                    attempts: 0,
                    contains: "cannot reach http://127.0.0.1:",
                    text: "",
                },
            )
        },
        cell(
            "reset before headers",
            |k| vec![Reply::reset_before_headers(), done(k)],
            RECOVERED,
        ),
        cell(
            "reset before headers three times",
            |_| vec![Reply::reset_before_headers(); 3],
            Expect::Err {
                code: "NETWORK_ERROR",
                category: "system",
                recoverable: true,
                attempts: 3,
                contains: "cannot reach http://127.0.0.1:",
                text: "",
            },
        ),
        cell(
            "reset mid-stream before content",
            |k| vec![done(k).reset_after(0), done(k)],
            RECOVERED,
        ),
        cell(
            "reset mid-stream after content",
            |k| {
                let (r, n) = partial(k);
                vec![r.reset_after(n)]
            },
            cut_err("the stream ended without a stop reason"),
        ),
        cell(
            "stream cut before any content",
            |k| vec![done(k).cut_after(0), done(k)],
            RECOVERED,
        ),
        cell(
            "stream cut after content",
            |k| {
                let (r, n) = partial(k);
                vec![r.cut_after(n)]
            },
            cut_err("the stream ended without a stop reason"),
        ),
        Cell {
            patch: idle,
            ..cell(
                "hang before headers (idle timeout), then success",
                |k| vec![Reply::hang(), done(k)],
                RECOVERED,
            )
        },
        Cell {
            patch: idle,
            ..cell(
                "hang before headers three times",
                |_| vec![Reply::hang(), Reply::hang(), Reply::hang()],
                provider_err(
                    3,
                    true,
                    "idle timeout: no data for 1000 ms waiting for the response",
                ),
            )
        },
        Cell {
            patch: idle,
            ..cell(
                "hang mid-stream after content (idle timeout)",
                |k| {
                    let (r, n) = partial(k);
                    vec![r.hang_after(n)]
                },
                cut_err("idle timeout: no data for 1000 ms while streaming"),
            )
        },
        Cell {
            patch: idle,
            ..cell(
                "slow drip, 1 byte per 100 ms across the answer",
                |k| vec![done(k).drip_around("✓".as_bytes(), 16, Duration::from_millis(100))],
                Expect::Ok {
                    attempts: 1,
                    text: DONE,
                },
            )
        },
        cell(
            "garbage instead of an HTTP response",
            |k| {
                vec![
                    Reply::garbage(b"\x00\xff\xfeNOT HTTP\r\n\r\n\x1b[31m"),
                    done(k),
                ]
            },
            RECOVERED,
        ),
        cell(
            "garbage lines between events (ignored, SSE rules)",
            |k| vec![done(k).insert_after(1, b"\x00\xff\xfe garbage \x80\r\n\x1b[31m\n\n")],
            Expect::Ok {
                attempts: 1,
                text: DONE,
            },
        ),
        cell(
            "garbage data event",
            |k| vec![done(k).insert_after(0, b"data: \x00\xff\xfe garbage \x80\n\n")],
            provider_err(1, false, "sent a malformed stream: bad JSON"),
        ),
        Cell {
            big: true,
            ..cell(
                "10 MB single event",
                |k| vec![Reply::for_kind(k, &Turn::text([big_text()]))],
                Expect::Ok {
                    attempts: 1,
                    text: "",
                },
            )
        },
        cell(
            "invalid UTF-8 split across chunks",
            |k| {
                vec![Reply::for_kind(k, &Turn::text(["ok ✓ ", "bad@@A"]))
                    .replace_bytes(b"@@", b"\xf0\x9f")
                    .split_at(&[b"\xe2\x9c", b"\xf0"])]
            },
            Expect::Ok {
                attempts: 1,
                text: "ok ✓ bad\u{FFFD}A",
            },
        ),
    ]
}

/// 10 MiB of text in one delta.
pub fn big_text() -> String {
    "0123456789abcdef".repeat(10 * 1024 * 1024 / 16)
}
