//! MCP test servers: the real ones `.ci/mcp.sh` installs (npm `@modelcontextprotocol/server-
//! everything` and `server-filesystem`, a venv with the official Python `mcp` package) under
//! `ROBOTA_MCP_DIR`, the scripts in tests/mcp/, and a session on a scripted model whose events
//! are waited for (condvar, no sleeps).
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use robota::sdk::config::parse_session_config;
use robota::sdk::events::{self, Event, Payload};
use robota::sdk::interactive::{InteractiveSession, TurnInput};
use robota::sdk::runtime::Runtime;
use serde_json::{json, Value};

/// The installed servers' directory; without `ROBOTA_MCP_DIR`, `None` after printing why the
/// test is skipped, or a panic under CI ([`crate::support::required`]).
#[track_caller]
pub fn mcp_dir(test: &str) -> Option<PathBuf> {
    match std::env::var("ROBOTA_MCP_DIR") {
        Ok(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => {
            crate::support::required::missing(
                test,
                "the MCP servers (ROBOTA_MCP_DIR)",
                "run `bash .ci/mcp.sh`",
            );
            None
        }
    }
}

/// A script of tests/mcp/.
pub fn script(name: &str) -> String {
    format!("{}/tests/mcp/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `server-everything` over stdio.
pub fn everything(dir: &std::path::Path) -> Value {
    json!({"command": dir.join("node_modules/.bin/mcp-server-everything"), "args": ["stdio"]})
}

/// `server-filesystem` over stdio, allowed `root`.
pub fn filesystem(dir: &std::path::Path, root: &std::path::Path) -> Value {
    json!({"command": dir.join("node_modules/.bin/mcp-server-filesystem"), "args": [root]})
}

/// tests/mcp/`name` run by the venv's Python.
pub fn python(dir: &std::path::Path, name: &str) -> Value {
    json!({"command": dir.join("venv/bin/python"), "args": [script(name)]})
}

#[derive(Default)]
pub struct Seen {
    events: Mutex<Vec<Event>>,
    cond: Condvar,
}

/// A session on a scripted model.
pub struct McpHost {
    pub rt: Runtime,
    pub session: InteractiveSession,
    pub seen: Arc<Seen>,
}

/// A runtime whose provider `s` plays `turns` (then echoes), with runtime `env`.
pub fn runtime(turns: Value, env: Value) -> Runtime {
    Runtime::from_json(
        &json!({"v":1,"env":env,"providers":{"s":{"kind":"scripted","turns":turns}}}).to_string(),
    )
    .unwrap()
}

impl McpHost {
    /// A session of a new runtime; `extra` is merged into the session JSON.
    pub fn open(turns: Value, extra: Value) -> McpHost {
        Self::open_in(runtime(turns, json!({})), extra)
    }

    /// A session of `rt`.
    pub fn open_in(rt: Runtime, extra: Value) -> McpHost {
        let (session, seen) = Self::session(&rt, extra);
        McpHost { rt, session, seen }
    }

    /// Another session of `rt`.
    pub fn session(rt: &Runtime, extra: Value) -> (InteractiveSession, Arc<Seen>) {
        let mut cfg = json!({"v":1,"provider":"s","model":"m","tools":[],
                             "permission_mode":"bypassPermissions"});
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            cfg[k] = v;
        }
        let cfg = parse_session_config(&cfg.to_string()).unwrap();
        let seen = Arc::new(Seen::default());
        let s2 = seen.clone();
        let sink: events::EventSink = Arc::new(move |e: Event| {
            s2.events.lock().unwrap().push(e);
            s2.cond.notify_all();
        });
        let session = InteractiveSession::new(rt.shared().clone(), cfg, sink, false, None).unwrap();
        session.emit_startup_warnings();
        (session, seen)
    }

    /// Runs one turn to its end.
    pub fn turn(&self, text: &str) {
        let t = self.submit(text);
        self.session.wait(t, Some(Duration::from_secs(60))).unwrap();
    }

    /// Submits a turn.
    pub fn submit(&self, text: &str) -> u64 {
        self.session
            .submit(TurnInput {
                text: text.into(),
                display_input: None,
                raw_input: None,
                tool_choice: None,
                host_command: None,
            })
            .unwrap()
    }

    /// JSON payloads of `kind` so far.
    pub fn json(&self, kind: u32) -> Vec<Value> {
        json_of(&self.seen, kind)
    }

    /// Waits (condvar) until an event of `kind` arrived.
    pub fn wait_for(&self, kind: u32) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut ev = self.seen.events.lock().unwrap();
        loop {
            if let Some(e) = ev.iter().find(|e| e.kind == kind) {
                if let Payload::Json(_) | Payload::JsonText(_) = &e.payload {
                    return e.json_value().unwrap_or_default();
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no event {kind}");
            ev = self.seen.cond.wait_timeout(ev, left).unwrap().0;
        }
    }

    /// Contents of the tool messages so far, in order.
    pub fn tool_results(&self) -> Vec<String> {
        tool_results(&self.seen)
    }

    /// `mcp_servers` of the session state.
    pub fn servers(&self) -> Value {
        self.session.state_json()["mcp_servers"].clone()
    }

    /// Warning messages so far.
    pub fn warnings(&self) -> Vec<String> {
        self.json(events::WARNING)
            .iter()
            .map(|w| w["message"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

pub fn json_of(seen: &Seen, kind: u32) -> Vec<Value> {
    seen.events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.kind == kind)
        .filter_map(|e| match &e.payload {
            Payload::Json(v) => Some(v.clone()),
            Payload::JsonText(_) => e.json_value(),
            _ => None,
        })
        .collect()
}

pub fn tool_results(seen: &Seen) -> Vec<String> {
    json_of(seen, events::MESSAGE)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A scripted model turn calling `name` with `args`.
pub fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls":[{"name": name, "arguments": args}]})
}

impl McpHost {
    /// Text of the last assistant message.
    pub fn last_text(&self) -> String {
        self.json(events::MESSAGE)
            .iter()
            .rev()
            .find(|m| m["role"] == "assistant")
            .and_then(|m| m["content"].as_str().map(str::to_string))
            .unwrap_or_default()
    }
}
