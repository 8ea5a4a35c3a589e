//! MCP tool servers (Model Context Protocol) on the official Rust SDK `rmcp`.
//!
//! * Servers come from the session JSON's `"mcp_servers"` and, under `"settings":"project"`,
//!   from the project's `.mcp.json` (the session's entries win a name clash); see [`config`].
//! * Each server's tools become session tools `mcp__<server>__<tool>` ([`tool`]); a tool whose
//!   schema is not a valid JSON Schema is skipped with a `WARNING` naming it. A
//!   `tools/list_changed` notification re-lists them; the session picks the new list up at its
//!   next turn.
//! * Sharing: the sessions of one runtime with the same server definition (same name and the
//!   same fields) share one connection ([`McpRegistry`]): one child process, one HTTP MCP
//!   session. It lives while any session holding it is open; closing the last one closes the
//!   transport and kills the child's process group. Limits: a server keeps per-connection
//!   state (e.g. roots, subscriptions, a working directory it changed) shared by those
//!   sessions; a connection that died is replaced for sessions created later, not for the
//!   sessions holding it (their calls fail with the reason, and their state says "failed").
//! * A server that fails to start never fails the session: its state says why.

pub mod config;
#[cfg(feature = "mcp")]
pub mod connection;
#[cfg(feature = "mcp")]
pub mod http;
#[cfg(feature = "mcp")]
pub mod tool;
#[cfg(not(feature = "mcp"))]
mod unavailable;
#[cfg(not(feature = "mcp"))]
pub use unavailable::{connection, tool, NO_MCP};

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use serde_json::{json, Value};

use self::config::McpServerDef;
use self::connection::McpConnection;
use self::tool::McpTool;
use crate::core::agent::Agent;
use crate::core::env_ref::EnvVars;
use crate::core::tool::Tool;

type Cell = Arc<tokio::sync::Mutex<Weak<McpConnection>>>;

/// The live connections of one runtime, by definition.
#[derive(Default)]
pub struct McpRegistry {
    conns: Mutex<HashMap<McpServerDef, Cell>>,
}

impl McpRegistry {
    /// The shared connection for `def`, started when none is alive.
    pub async fn connect(
        &self,
        def: McpServerDef,
        http: reqwest::Client,
        env: EnvVars,
    ) -> Result<Arc<McpConnection>, String> {
        let cell = {
            let mut map = self.conns.lock().unwrap_or_else(|p| p.into_inner());
            if !map.contains_key(&def) {
                map.retain(|_, c| c.try_lock().map_or(true, |w| w.strong_count() > 0));
            }
            map.entry(def.clone()).or_default().clone()
        };
        let mut slot = cell.lock().await;
        if let Some(c) = slot.upgrade().filter(|c| c.failure().is_none()) {
            return Ok(c);
        }
        let c = McpConnection::connect(def, http, env).await?;
        *slot = Arc::downgrade(&c);
        Ok(c)
    }

    /// Number of live shared connections.
    pub fn live(&self) -> usize {
        let map = self.conns.lock().unwrap_or_else(|p| p.into_inner());
        map.values()
            .filter(|c| c.try_lock().map_or(true, |w| w.strong_count() > 0))
            .count()
    }
}

enum Slot {
    Connected(Arc<McpConnection>),
    Failed(String),
}

/// A session's servers.
#[derive(Default)]
pub struct SessionMcp {
    servers: Mutex<Vec<(McpServerDef, Slot)>>,
    /// Tool-list generation applied to the agent, per server.
    applied: Mutex<Vec<u64>>,
}

impl SessionMcp {
    /// Connects all `defs` (concurrently, each within its startup timeout), blocking the
    /// caller; failures are kept as state and reported in `warnings`.
    pub fn start(
        shared: &crate::sdk::runtime::RuntimeShared,
        defs: Vec<McpServerDef>,
        warnings: &mut Vec<String>,
    ) -> SessionMcp {
        if defs.is_empty() {
            return SessionMcp::default();
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let registry = shared.mcp_registry().clone();
        let http = shared.http().clone();
        let env = crate::sdk::project::assembly::env_of(shared);
        let todo = defs.clone();
        let mut unstarted = "the runtime is shutting down".to_string();
        match shared.worker_handle() {
            Ok(workers) => {
                workers.spawn(async move {
                    let all = todo.into_iter().map(|d| {
                        let (r, h, e) = (registry.clone(), http.clone(), env.clone());
                        async move { r.connect(d, h, e).await }
                    });
                    let _ = tx.send(futures_util::future::join_all(all).await);
                });
            }
            Err(e) => {
                drop(tx);
                unstarted = e.message;
            }
        }
        let wait = move || rx.recv().unwrap_or_default();
        let results = match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(wait)
            }
            _ => wait(),
        };
        let mut servers = Vec::with_capacity(defs.len());
        for (i, def) in defs.into_iter().enumerate() {
            let slot = match results.get(i) {
                Some(Ok(c)) => Slot::Connected(c.clone()),
                Some(Err(e)) => Slot::Failed(e.clone()),
                None => Slot::Failed(unstarted.clone()),
            };
            if let Slot::Failed(e) = &slot {
                warnings.push(format!("MCP server \"{}\" failed: {e}", def.name));
            }
            servers.push((def, slot));
        }
        SessionMcp {
            applied: Mutex::new(vec![0; servers.len()]),
            servers: Mutex::new(servers),
        }
    }

    fn servers(&self) -> std::sync::MutexGuard<'_, Vec<(McpServerDef, Slot)>> {
        self.servers.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True without servers.
    pub fn is_empty(&self) -> bool {
        self.servers().is_empty()
    }

    /// At session close: lets go of the connections (the last session of a shared one closes
    /// it, killing a stdio server's process group); the state then says "session closed".
    pub fn close(&self) {
        for (_, slot) in self.servers().iter_mut() {
            if matches!(slot, Slot::Connected(_)) {
                *slot = Slot::Failed("the session was closed".into());
            }
        }
    }

    /// The session tools of every connected server now (skipped tools go to `warnings`),
    /// remembering the generations used.
    pub fn tools(&self, warnings: &mut Vec<String>) -> Vec<Arc<dyn Tool>> {
        let mut applied = self.applied.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<Arc<dyn Tool>> = Vec::new();
        for (i, (def, slot)) in self.servers().iter().enumerate() {
            let Slot::Connected(c) = slot else { continue };
            let list = c.tools();
            if let Some(a) = applied.get_mut(i) {
                *a = list.generation;
            }
            for t in &list.tools {
                match McpTool::build(&def.name, t, c) {
                    Ok(t) => out.push(t),
                    Err(w) => warnings.push(w),
                }
            }
        }
        out
    }

    /// Before a turn: when a server's tool list changed since it was applied, replaces the
    /// agent's MCP tools.
    pub fn sync_tools(&self, agent: &Agent) {
        let changed = {
            let applied = self.applied.lock().unwrap_or_else(|p| p.into_inner());
            self.servers()
                .iter()
                .zip(applied.iter())
                .any(|((_, s), a)| match s {
                    Slot::Connected(c) => c.tools().generation != *a,
                    Slot::Failed(_) => false,
                })
        };
        if !changed {
            return;
        }
        let mut warnings = Vec::new();
        let fresh = self.tools(&mut warnings);
        for w in warnings {
            crate::core::log::log(crate::core::log::WARN, "robota::mcp", w);
        }
        let _ = agent.update_config(|c| {
            c.tools.retain(|t| !t.name().starts_with("mcp__"));
            c.tools.extend(fresh);
        });
    }

    /// `[{"name","transport","state":"connected"|"failed","reason"?,"tools"}]`.
    pub fn state(&self) -> Value {
        Value::Array(
            self.servers()
                .iter()
                .map(|(def, slot)| {
                    let failure = match slot {
                        Slot::Connected(c) => c.failure(),
                        Slot::Failed(e) => Some(e.clone()),
                    };
                    let tools = match slot {
                        Slot::Connected(c) if failure.is_none() => c.tools().tools.len(),
                        _ => 0,
                    };
                    let mut v = json!({"name": def.name, "transport": def.kind(),
                        "state": if failure.is_some() { "failed" } else { "connected" },
                        "tools": tools});
                    if let Some(r) = failure {
                        v["reason"] = json!(r);
                    }
                    v
                })
                .collect(),
        )
    }

    /// The `mcp` command's text for [`Self::state`].
    pub fn describe(state: &Value) -> String {
        let list = state.as_array().map(Vec::as_slice).unwrap_or_default();
        if list.is_empty() {
            return "No MCP servers configured.".into();
        }
        let mut out = String::from("MCP servers:");
        for s in list {
            let name = s["name"].as_str().unwrap_or_default();
            let kind = s["transport"].as_str().unwrap_or_default();
            match s["reason"].as_str() {
                Some(r) => out.push_str(&format!("\n  {name} ({kind}) — failed: {r}")),
                None => out.push_str(&format!(
                    "\n  {name} ({kind}) — connected, {} tools",
                    s["tools"]
                )),
            }
        }
        out
    }
}

/// The session's servers: `cfg.mcp_servers`, plus the project's `.mcp.json` under
/// `"settings":"project"` (the session's entries win); connected now.
pub fn start_for_session(
    shared: &crate::sdk::runtime::RuntimeShared,
    cfg: &mut crate::sdk::config::SessionConfig,
) -> SessionMcp {
    if cfg.mcp_servers.is_empty() && cfg.settings != "project" {
        return SessionMcp::default();
    }
    connect_for_session(shared, cfg)
}

/// [`start_for_session`] when there may be servers. Never inlined: a frame of its own, left
/// before the session underneath is built (`InteractiveSession::new_boxed`), and not entered
/// by a session without servers.
#[inline(never)]
fn connect_for_session(
    shared: &crate::sdk::runtime::RuntimeShared,
    cfg: &mut crate::sdk::config::SessionConfig,
) -> SessionMcp {
    let mut defs = cfg.mcp_servers.clone();
    if cfg.settings == "project" {
        let cwd = crate::sdk::project::context::absolute(std::path::Path::new(&cfg.cwd));
        for d in config::project_servers(&cwd, &mut cfg.params.warnings) {
            if !defs.iter().any(|x| x.name == d.name) {
                defs.push(d);
            }
        }
    }
    for def in &mut defs {
        if let config::McpTransport::Stdio { env_policy, .. } = &mut def.transport {
            *env_policy = cfg.tool_env.clone();
        }
    }
    SessionMcp::start(shared, defs, &mut cfg.params.warnings)
}
