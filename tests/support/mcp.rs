//! MCP test servers: the real ones `.ci/mcp.sh` installs (npm `@modelcontextprotocol/server-
//! everything` and `server-filesystem`, a venv with the official Python `mcp` package) under
//! `ROBOTA_MCP_DIR`, the scripts in tests/mcp/, and a session on a scripted model whose events
//! are waited for (condvar, no sleeps).
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use robota_engine::sdk::events::{self, Payload};
use robota_engine::sdk::interactive::{InteractiveSession, TurnInput};
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

use crate::support::host_session::{recorded_session, scripted_runtime};

/// The installed servers' directory, `ROBOTA_MCP_DIR`. The tests that need it are `#[ignore]`d
/// and run on request (`bash .ci/mcp.sh` installs the servers and runs them with
/// `--include-ignored`): run without it, such a test fails naming what is missing.
#[track_caller]
pub fn mcp_dir(test: &str) -> Option<PathBuf> {
    match std::env::var("ROBOTA_MCP_DIR") {
        Ok(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => crate::support::required::missing_always(
            test,
            "the MCP servers (ROBOTA_MCP_DIR)",
            "run `bash .ci/mcp.sh`",
        ),
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

/// A session's events ([`crate::support::host_session::Recorder`]).
pub type Seen = crate::support::host_session::Recorder;

/// A session on a scripted model.
pub struct McpHost {
    pub rt: Runtime,
    pub session: InteractiveSession,
    pub seen: Arc<Seen>,
}

/// A runtime whose provider `s` plays `turns` (then echoes), with runtime `env`.
pub fn runtime(turns: Value, env: Value) -> Runtime {
    scripted_runtime(json!({ "turns": turns }), env)
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
        let (session, seen) = recorded_session(rt, &cfg).unwrap();
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
                output_schema: None,
                host_command: None,
                images: Vec::new(),
                skill: None,
            })
            .unwrap()
    }

    /// JSON payloads of `kind` so far.
    pub fn json(&self, kind: u32) -> Vec<Value> {
        json_of(&self.seen, kind)
    }

    /// Waits (condvar) until an event of `kind` arrived.
    pub fn wait_for(&self, kind: u32) -> Value {
        let what = format!("no event {kind}");
        self.seen.wait_until(Duration::from_secs(60), &what, |ev| {
            let e = ev.iter().find(|e| e.kind == kind)?;
            match &e.payload {
                Payload::Json(_) | Payload::JsonText(_) => Some(e.json_value().unwrap_or_default()),
                _ => None,
            }
        })
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
    seen.json(kind)
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
