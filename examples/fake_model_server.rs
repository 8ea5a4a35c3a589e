//! The project's fake model server (`tests/support/fake_server/`) as a small program, so the
//! Go, C# and Swift binding tests run against the same wire formats as the Rust and C tests.
//!
//! ```sh
//! cargo build --example fake_model_server      # target/debug/examples/fake_model_server
//! ```
//!
//! It binds `127.0.0.1:0`, prints one line `{"port":N,"base_url":"http://127.0.0.1:N"}` on
//! stdout, then reads commands from stdin, one JSON object per line, and answers each with one
//! JSON line on stdout. It exits when stdin closes.
//!
//! | command | effect | answer |
//! |---|---|---|
//! | `{"cmd":"enqueue","kind":"openai","text":["Hel","lo"],"tools":[["call_1","add","{\"a\":1}"]],"usage":[10,5]}` | queue one answer in the vendor's wire format (`anthropic`, `openai`, `gemini`); `delay_ms` per frame, `cut_after`/`hang_after` N frames optional | `{"ok":true}` |
//! | `{"cmd":"enqueue_error","status":500,"body":"{...}"}` | queue an HTTP error | `{"ok":true}` |
//! | `{"cmd":"enqueue_hang"}` | queue a reply that never comes | `{"ok":true}` |
//! | `{"cmd":"requests"}` | the requests received so far | `{"ok":true,"requests":[{"method","path","body"}]}` |
//! | `{"cmd":"disconnects"}` | client disconnects seen mid-reply | `{"ok":true,"disconnects":N}` |
//!
//! A malformed line is answered `{"ok":false,"error":"..."}` naming what is wrong.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

#[allow(dead_code)]
#[path = "../tests/support"]
mod support {
    pub mod fake_cache;
    pub mod fake_http;
    pub mod fake_reply;
    pub mod fake_server;
    pub mod fake_wire;
    pub mod invariants;
}

use std::io::{BufRead, Write};

use serde_json::{json, Value};
use support::fake_server::{FakeServer, Reply, Turn};

fn main() {
    let server = FakeServer::start();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let hello = json!({"port": port_of(&server.base_url()), "base_url": server.base_url()});
    if writeln!(out, "{hello}").and_then(|_| out.flush()).is_err() {
        return;
    }
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(cmd) => handle(&server, &cmd).unwrap_or_else(|e| json!({"ok": false, "error": e})),
            Err(e) => json!({"ok": false, "error": format!("invalid JSON command: {e}")}),
        };
        if writeln!(out, "{answer}").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
}

fn port_of(base_url: &str) -> u16 {
    base_url
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0)
}

fn handle(server: &FakeServer, cmd: &Value) -> Result<Value, String> {
    match cmd.get("cmd").and_then(Value::as_str) {
        Some("enqueue") => {
            server.enqueue(reply_from(cmd)?);
            Ok(json!({"ok": true}))
        }
        Some("enqueue_error") => {
            let status = cmd
                .get("status")
                .and_then(Value::as_u64)
                .ok_or("enqueue_error: \"status\" must be a number")?;
            let body = cmd.get("body").and_then(Value::as_str).unwrap_or("{}");
            server.enqueue(Reply::error(status as u16, body));
            Ok(json!({"ok": true}))
        }
        Some("enqueue_hang") => {
            server.enqueue(Reply::hang());
            Ok(json!({"ok": true}))
        }
        Some("requests") => {
            let reqs: Vec<Value> = server
                .requests()
                .into_iter()
                .map(|r| json!({"method": r.method, "path": r.path, "body": r.body}))
                .collect();
            Ok(json!({"ok": true, "requests": reqs}))
        }
        Some("disconnects") => Ok(json!({"ok": true, "disconnects": server.disconnects()})),
        Some(other) => Err(format!("unknown cmd {other:?}")),
        None => Err("missing \"cmd\"".into()),
    }
}

fn reply_from(cmd: &Value) -> Result<Reply, String> {
    let kind = cmd
        .get("kind")
        .and_then(Value::as_str)
        .ok_or("enqueue: \"kind\" must be anthropic, openai or gemini")?;
    if !matches!(kind, "anthropic" | "openai" | "gemini") {
        return Err(format!("enqueue: unknown kind {kind:?}"));
    }
    let strings = |key: &str| -> Vec<String> {
        cmd.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut turn = Turn::text(strings("text"));
    let thinking = strings("thinking");
    if !thinking.is_empty() {
        turn = turn.thinking(thinking);
    }
    for t in cmd
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let parts: Vec<&str> = t
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let [id, name, args] = parts[..] else {
            return Err("enqueue: each tool is [id, name, arguments JSON string]".into());
        };
        turn = turn.tool(id, name, args);
    }
    if let Some(u) = cmd.get("usage").and_then(Value::as_array) {
        let n = |i: usize| u.get(i).and_then(Value::as_u64).unwrap_or(0);
        turn = turn.usage(n(0), n(1));
    }
    let mut reply = Reply::for_kind(kind, &turn);
    if let Some(ms) = cmd.get("delay_ms").and_then(Value::as_u64) {
        reply = reply.delay_each_ms(ms);
    }
    if let Some(n) = cmd.get("cut_after").and_then(Value::as_u64) {
        reply = reply.cut_after(n as usize);
    }
    if let Some(n) = cmd.get("hang_after").and_then(Value::as_u64) {
        reply = reply.hang_after(n as usize);
    }
    Ok(reply)
}
