//! What keeps a session's child processes contained, settled when the session is built: the
//! `$ENV:` secrets of its configuration registered (so no child inherits them) and its
//! sandbox resolved, and the configuration whose `SANDBOX_UNAVAILABLE` warning the first Bash
//! call checks (the probes of what this system can enforce wait until a command runs).

use std::path::Path;
use std::sync::Arc;

use crate::core::child_env::register_references;
use crate::core::sandbox::{Sandbox, SandboxConfig, SandboxMode};
use crate::sdk::config::SessionConfig;
use crate::sdk::error::{SdkError, SdkResult};
use crate::sdk::mcp::config::McpTransport;
use crate::sdk::runtime::RuntimeShared;

/// A session's containment, as [`prepare`] settled it.
#[derive(Default)]
pub struct Contained {
    /// The resolved sandbox: `None` when it is off, runs through the host's I/O port, or is
    /// the default one (the runtime's shared built-ins carry that one).
    pub sandbox: Option<Arc<Sandbox>>,
    /// The sandbox configuration whose `SANDBOX_UNAVAILABLE` warning
    /// ([`crate::core::sandbox::warning`]) the session's first Bash call emits; `None` when
    /// the sandbox is off.
    pub to_check: Option<SandboxConfig>,
}

/// Registers the session's secrets and resolves its sandbox.
// Never inlined: a frame of its own, left before the session underneath is built
// (`InteractiveSession::new_boxed`).
#[inline(never)]
pub fn prepare(shared: &RuntimeShared, cfg: &SessionConfig) -> SdkResult<Contained> {
    register_secrets(shared, cfg);
    if cfg.host_io || cfg.sandbox.mode == SandboxMode::Off {
        return Ok(Contained::default());
    }
    let to_check = Some(cfg.sandbox.clone());
    if cfg.sandbox == Default::default() {
        return Ok(Contained {
            sandbox: None,
            to_check,
        });
    }
    let cwd = super::context::absolute(Path::new(&cfg.cwd));
    let sandbox = Sandbox::new(cfg.sandbox.clone(), &cwd)
        .map_err(|e| SdkError::config(format!("session config: field \"sandbox\": {e}")))?;
    Ok(Contained {
        sandbox: sandbox.map(Arc::new),
        to_check,
    })
}

/// Every `$ENV:NAME` of the hooks, MCP servers and web-search key, registered before anything
/// runs (a hook's variable is a secret even before the hook first ran).
fn register_secrets(shared: &RuntimeShared, cfg: &SessionConfig) {
    let vars = super::assembly::env_of(shared);
    let lookup = |name: &str| vars.get(name);
    if let Some(hooks) = cfg
        .hooks
        .as_ref()
        .and_then(|h| serde_json::to_value(h).ok())
    {
        register_references(&hooks, &lookup);
    }
    for def in &cfg.mcp_servers {
        let values = match &def.transport {
            McpTransport::Stdio { env, .. } => env,
            McpTransport::Http { headers, .. } => headers,
        };
        for v in values.values() {
            register_references(&serde_json::Value::String(v.clone()), &lookup);
        }
    }
    let key = cfg
        .tool_config
        .as_deref()
        .and_then(|t| t.web_search.as_ref())
        .and_then(|w| w.api_key.clone());
    if let Some(key) = key {
        register_references(&serde_json::Value::String(key), &lookup);
    }
}
