//! One live connection to an MCP server (rmcp client service): start (stdio child in its own
//! process group, or streamable HTTP), the server's tool list (refreshed on
//! `notifications/tools/list_changed`), and tool calls bounded by abort and a timeout.
//! Dropping the last reference cancels the service, which closes the transport and kills the
//! child's process group.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;

use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, Tool as McpToolDef};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::config::{resolve_env, McpServerDef, McpTransport};
use super::http::McpHttp;
use crate::core::env_ref::EnvVars;

/// The client side's notification handler: a tool-list change refreshes the list.
#[derive(Clone, Default)]
pub struct Handler {
    conn: Arc<OnceLock<Weak<McpConnection>>>,
}

impl ClientHandler for Handler {
    #[allow(clippy::manual_async_fn)]
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl std::future::Future<Output = ()> + Send + '_ {
        async move {
            if let Some(c) = self.conn.get().and_then(Weak::upgrade) {
                // Outside the service loop: the refresh awaits a response from it.
                tokio::spawn(async move { c.refresh().await });
            }
        }
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

/// The tool list and how many times it changed.
#[derive(Default)]
pub struct ToolList {
    /// Bumped on every refresh.
    pub generation: u64,
    /// The server's tools as listed.
    pub tools: Vec<McpToolDef>,
}

/// A connected server.
pub struct McpConnection {
    /// The definition it was started from.
    pub def: McpServerDef,
    peer: Peer<RoleClient>,
    service: Mutex<Option<RunningService<RoleClient, Handler>>>,
    tools: RwLock<Arc<ToolList>>,
    generation: AtomicU64,
    handle: tokio::runtime::Handle,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "McpConnection({})", self.def.name)
    }
}

fn headers(
    map: &std::collections::BTreeMap<String, String>,
) -> Result<HashMap<HeaderName, HeaderValue>, String> {
    map.iter()
        .map(|(k, v)| {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|_| format!("header \"{k}\": invalid header name"))?;
            let value = HeaderValue::from_str(v)
                .map_err(|_| format!("header \"{k}\": invalid header value"))?;
            Ok((name, value))
        })
        .collect()
}

/// A program named by a path must exist before it is spawned: the spawn reports a failed `exec`
/// only where the child can write it back (not under valgrind, which ends such a child), so the
/// error is read here, the same everywhere. A bare name is looked up by the spawn itself.
fn check_program(command: &str, cwd: &str) -> std::io::Result<()> {
    let path = std::path::Path::new(command);
    if path.components().count() > 1 {
        std::fs::metadata(std::path::Path::new(cwd).join(path))?;
    }
    Ok(())
}

async fn start(
    def: &McpServerDef,
    handler: Handler,
    http: &reqwest::Client,
    env: &EnvVars,
) -> Result<RunningService<RoleClient, Handler>, String> {
    match &def.transport {
        McpTransport::Stdio {
            command,
            args,
            env: vars,
            cwd,
            env_policy,
        } => {
            let vars = resolve_env("env", vars, env)?;
            check_program(command, cwd).map_err(|e| format!("cannot start \"{command}\": {e}"))?;
            crate::core::child_signal::prepare();
            let mut cmd = tokio::process::Command::new(command);
            let vars: Vec<(String, String)> = vars.into_iter().collect();
            cmd.args(args)
                .env_clear()
                .envs(env_policy.environment(&vars))
                .current_dir(cwd);
            let mut wrapped = CommandWrap::from(cmd);
            // Own process group: closing kills the server and everything it started.
            wrapped.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
            let (transport, _) = TokioChildProcess::builder(wrapped)
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("cannot start \"{command}\": {e}"))?;
            handler
                .serve(transport)
                .await
                .map_err(|e| format!("initialize failed: {e}"))
        }
        McpTransport::Http { url, headers: h } => {
            let resolved = resolve_env("header", h, env)?;
            let cfg = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(headers(&resolved)?);
            let transport = StreamableHttpClientTransport::with_client(McpHttp(http.clone()), cfg);
            handler
                .serve(transport)
                .await
                .map_err(|e| format!("initialize failed: {e}"))
        }
    }
}

impl McpConnection {
    /// Starts the server and lists its tools within `def.startup_timeout_ms`.
    pub async fn connect(
        def: McpServerDef,
        http: reqwest::Client,
        env: EnvVars,
    ) -> Result<Arc<McpConnection>, String> {
        let limit = Duration::from_millis(def.startup_timeout_ms);
        let handler = Handler::default();
        let slot = handler.conn.clone();
        let fut = async {
            let service = start(&def, handler, &http, &env).await?;
            let tools = service
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| format!("tools/list failed: {e}"));
            match tools {
                Ok(t) => Ok((service, t)),
                Err(e) => {
                    let _ = service.cancel().await;
                    Err(e)
                }
            }
        };
        let (service, tools) = match tokio::time::timeout(limit, fut).await {
            Ok(r) => r?,
            Err(_) => {
                return Err(format!(
                    "did not start within {} ms (startup_timeout_ms)",
                    def.startup_timeout_ms
                ))
            }
        };
        let conn = Arc::new(McpConnection {
            peer: service.peer().clone(),
            def,
            service: Mutex::new(Some(service)),
            tools: RwLock::new(Arc::new(ToolList {
                generation: 1,
                tools,
            })),
            generation: AtomicU64::new(1),
            handle: tokio::runtime::Handle::current(),
        });
        let _ = slot.set(Arc::downgrade(&conn));
        Ok(conn)
    }

    /// The current tool list.
    pub fn tools(&self) -> Arc<ToolList> {
        self.tools.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Why the connection is unusable (`None` while it is up).
    pub fn failure(&self) -> Option<String> {
        self.peer
            .is_transport_closed()
            .then(|| "the server closed the connection".to_string())
    }

    /// Re-lists the tools (after `tools/list_changed`).
    pub async fn refresh(&self) {
        if let Ok(tools) = self.peer.list_all_tools().await {
            let generation = self.generation.fetch_add(1, Ordering::AcqRel) + 1;
            *self.tools.write().unwrap_or_else(|p| p.into_inner()) =
                Arc::new(ToolList { generation, tools });
        }
    }

    /// Calls tool `name` (the server's own name) with `args`; `Err` says what went wrong
    /// (abort, timeout, transport or protocol failure).
    pub async fn call(
        &self,
        name: &str,
        args: Value,
        cancel: &CancellationToken,
    ) -> Result<CallToolResult, String> {
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = match args {
            Value::Object(m) => Some(m),
            Value::Null => None,
            other => return Err(format!("arguments must be a JSON object, got {other}")),
        };
        let server = &self.def.name;
        let ms = self.def.call_timeout_ms;
        // Dropping the request future (abort, timeout) sends notifications/cancelled.
        tokio::select! {
            _ = cancel.cancelled() => Err("aborted".to_string()),
            r = tokio::time::timeout(Duration::from_millis(ms), self.peer.call_tool(params)) => match r {
                Err(_) => Err(format!("MCP server \"{server}\" did not answer within {ms} ms (timeout_ms)")),
                Ok(Err(e)) => Err(format!("MCP server \"{server}\": {e}")),
                Ok(Ok(res)) => Ok(res),
            }
        }
    }
}

impl Drop for McpConnection {
    fn drop(&mut self) {
        let service = self
            .service
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(s) = service {
            // Cancelling closes the transport; the child's process group is killed with it.
            self.handle.spawn(async move {
                let _ = s.cancel().await;
            });
        }
    }
}
