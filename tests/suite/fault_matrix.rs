//! The fault matrix: every network fault against every HTTP provider (Anthropic, OpenAI,
//! Gemini), through the engine. In each cell a turn's first model call asks for the echo tool,
//! the tool runs, and the second model call meets the fault. Each cell asserts the documented
//! outcome (retried and succeeded, or the error class, category, recoverability and text), the
//! number of requests, the text the host saw, the history (one tool call answered once, the
//! answer or `Request failed: …` once), that the next turn works on that history (the fake
//! server checks tool pairing on every request), and that no client connection stays open.
//! README "Fault matrix" is this table.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use robota::core::agent::RunOptions;
use robota::core::message::Role;
use robota::providers::{create_provider, new_http_client};
use serde_json::{json, Value};

use crate::support::fake_faults::{
    client_connections_closed, open_client_connections, port, refused_base_url,
};
use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::provider_cases::{agent, frames_through_text};

const KINDS: [&str; 3] = ["anthropic", "openai", "gemini"];
/// The answer of the faulted call when it succeeds.
const DONE: &str = "Done ✓";
/// Idle timeout of the hanging cells.
const IDLE_MS: u64 = 1000;

/// What a cell must end with.
#[derive(Clone, Copy)]
enum Expect {
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

struct Cell {
    name: &'static str,
    /// The server's replies to the faulted call, for a provider kind.
    replies: fn(&str) -> Vec<Reply>,
    /// Nobody listens: every connect is refused.
    refused: bool,
    /// Provider config fields over the defaults (2 retries, 10 ms base delay).
    patch: fn() -> Value,
    /// Least time the turn takes (a `Retry-After` honoured).
    at_least: Duration,
    /// The answer is 10 MiB: the next turn is refused by the context guard (nothing sent).
    big: bool,
    expect: Expect,
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

fn cells() -> Vec<Cell> {
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
fn big_text() -> String {
    "0123456789abcdef".repeat(10 * 1024 * 1024 / 16)
}

/// Runs one cell for one provider kind; returns what went wrong.
async fn run_cell(kind: &str, cell: &Cell) -> Result<(), String> {
    let server = FakeServer::start();
    let mut cfg = server.provider_config(kind);
    if let (Some(o), Some(p)) = (cfg.as_object_mut(), (cell.patch)().as_object().cloned()) {
        o.extend(p);
    }
    if cell.refused {
        cfg["base_url"] = json!(refused_base_url(kind));
    } else {
        server.enqueue(Reply::for_kind(
            kind,
            &Turn::text(Vec::<String>::new()).tool("call_1", "echo", r#"{"text":"ping"}"#),
        ));
        for r in (cell.replies)(kind) {
            server.enqueue(r);
        }
    }
    let client = new_http_client().map_err(|e| e.to_string())?;
    let provider = create_provider(kind, &cfg, &client).map_err(|e| e.to_string())?;
    let a = agent(provider);
    let seen = Arc::new(Mutex::new(String::new()));
    let sink = seen.clone();
    let options = RunOptions {
        on_text_delta: Some(Arc::new(move |d: &str| {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push_str(d)
        })),
        ..Default::default()
    };
    let started = Instant::now();
    let r = a.run("go", options).await.map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(|p| p.into_inner()));
    let mut problems = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };
    check(
        elapsed >= cell.at_least,
        format!("took {elapsed:?}, less than {:?}", cell.at_least),
    );
    let tool_rounds = usize::from(!cell.refused);
    let requests = server.requests().len();
    let (attempts, final_text) = match cell.expect {
        Expect::Ok { attempts, text } => {
            check(r.error.is_none(), format!("failed: {:?}", r.error));
            if cell.big {
                check(
                    r.response == big_text(),
                    format!("response of {} bytes", r.response.len()),
                );
                check(seen == big_text(), format!("host saw {} bytes", seen.len()));
            } else {
                check(r.response == text, format!("response {:?}", r.response));
                check(seen == text, format!("host saw {seen:?}"));
            }
            (attempts, r.response.clone())
        }
        Expect::Err {
            code,
            category,
            recoverable,
            attempts,
            contains,
            text,
        } => {
            check(r.error.is_some(), "succeeded".into());
            match &r.error_class {
                Some(e) => {
                    check(e.code() == code, format!("code {}", e.code()));
                    check(
                        e.category().as_str() == category,
                        format!("category {}", e.category().as_str()),
                    );
                    check(
                        e.is_recoverable() == recoverable,
                        format!("recoverable {}", e.is_recoverable()),
                    );
                    check(e.to_string().contains(contains), format!("error {e}"));
                }
                None => check(false, "no error class".into()),
            }
            check(seen == text, format!("host saw {seen:?}"));
            let failed = format!("Request failed: {}", r.error.clone().unwrap_or_default());
            (attempts, failed)
        }
    };
    check(
        requests == tool_rounds + attempts,
        format!("{requests} requests, expected {}", tool_rounds + attempts),
    );
    // History: system, user, the tool call, its one result, then the answer (or the failure) once.
    let messages = a.messages();
    let calls: Vec<&str> = messages
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str()))
        .collect();
    let results: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| m.tool_call_id.as_deref())
        .collect();
    let want: Vec<&str> = if cell.refused { vec![] } else { vec!["call_1"] };
    check(calls == want, format!("tool calls {calls:?}"));
    check(results == want, format!("tool results {results:?}"));
    let answers = messages
        .iter()
        .filter(|m| m.role == Role::Assistant && m.tool_calls.is_empty())
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>();
    check(
        answers == [final_text.as_str()],
        format!(
            "assistant answers {:?}",
            answers.iter().map(|a| short(a)).collect::<Vec<_>>()
        ),
    );
    // The next turn works on that history.
    if cell.big {
        let r2 = a
            .run("next", RunOptions::default())
            .await
            .map_err(|e| e.to_string())?;
        check(
            r2.response.starts_with("Context window is near capacity.")
                && server.requests().len() == requests,
            format!("next turn: {:?} {:?}", r2.response, r2.error),
        );
    } else if !cell.refused {
        server.enqueue(Reply::for_kind(kind, &Turn::text(["again"])));
        let r2 = a
            .run("next", RunOptions::default())
            .await
            .map_err(|e| e.to_string())?;
        check(
            r2.success && r2.response == "again",
            format!("next turn: {:?} {:?}", r2.response, r2.error),
        );
        let last = server
            .requests()
            .pop()
            .map(|r| r.raw_body)
            .unwrap_or_default();
        check(
            last.matches("echo:ping").count() == 1,
            "the tool result is not sent exactly once".into(),
        );
        if matches!(cell.expect, Expect::Ok { .. }) {
            let sent = serde_json::to_string(DONE).unwrap_or_default();
            let sent = sent.trim_matches('"');
            check(
                final_text != DONE || last.matches(sent).count() == 1,
                "the answer is not sent exactly once".into(),
            );
        }
    }
    // No leak: once the agent and its HTTP client are gone, no connection stays open (while the
    // client lives, its pooled keep-alive connection is seen: the count is real).
    if !cell.refused {
        let pooled = open_client_connections(port(&server));
        check(pooled >= 1, format!("{pooled} pooled connection(s) seen"));
    }
    drop(a);
    drop(client);
    if !cell.refused {
        let open = client_connections_closed(port(&server), Duration::from_secs(10)).await;
        check(open == 0, format!("{open} client connection(s) still open"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn short(s: &str) -> String {
    let end = s.char_indices().nth(60).map_or(s.len(), |(i, _)| i);
    if end < s.len() {
        format!("{}… ({} bytes)", &s[..end], s.len())
    } else {
        s.to_string()
    }
}

/// Every cell for every provider (the cells of one provider concurrently); all failures are
/// listed together.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fault_matrix_every_provider() {
    let cells = Arc::new(cells());
    let mut failures = Vec::new();
    for kind in KINDS {
        let mut runs = Vec::new();
        for i in 0..cells.len() {
            let cells = cells.clone();
            runs.push(tokio::spawn(async move {
                let cell = &cells[i];
                run_cell(kind, cell)
                    .await
                    .map_err(|e| format!("{kind} / {}: {e}", cell.name))
            }));
        }
        for r in runs {
            match r.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => failures.push(e),
                Err(e) => failures.push(format!("a cell panicked: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} cell(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
