//! MCP server definitions: the session JSON's `"mcp_servers"` (added in ABI 1.1) and the project's
//! `.mcp.json` (`{"mcpServers":{…}}`, the file Claude Code reads) under `"settings":"project"`.
//!
//! `{"NAME":{"command","args"?,"env"?,"cwd"?}}` is a stdio server;
//! `{"NAME":{"type":"http","url","headers"?}}` a streamable-HTTP one. Both take optional
//! `"timeout_ms"` (one tool call, default [`DEFAULT_CALL_TIMEOUT_MS`]) and
//! `"startup_timeout_ms"` (connect + initialize + first tools/list, default
//! [`DEFAULT_STARTUP_TIMEOUT_MS`]). `$ENV:NAME` in `headers` and `env` values is resolved at
//! connect time.

use std::collections::BTreeMap;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::core::env_ref::EnvVars;
use crate::core::known_keys::keys;
use crate::sdk::config::check_strict;
use crate::sdk::config::document::McpServerDocument;
use crate::sdk::error::{SdkError, SdkResult};

/// Default timeout of one MCP tool call (ms).
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 120_000;
/// Default timeout of a server's start (ms).
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 30_000;

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// Program.
        command: String,
        /// Arguments.
        args: Vec<String>,
        /// Extra environment (values may be `$ENV:NAME`).
        env: BTreeMap<String, String>,
        /// Working directory (relative to the session's `cwd`; default the session's `cwd`).
        cwd: String,
        /// Which of the host's variables the server inherits (the session's `tool_env`).
        env_policy: std::sync::Arc<crate::core::child_env::ChildEnvPolicy>,
    },
    /// Streamable HTTP.
    Http {
        /// Endpoint URL.
        url: String,
        /// Extra request headers (values may be `$ENV:NAME`).
        headers: BTreeMap<String, String>,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct McpServerDef {
    /// The name tools are prefixed with (`mcp__NAME__tool`).
    pub name: String,
    /// Transport.
    pub transport: McpTransport,
    /// Timeout of one tool call (ms).
    pub call_timeout_ms: u64,
    /// Timeout of the start (ms).
    pub startup_timeout_ms: u64,
}

impl McpServerDef {
    /// `"stdio"` or `"http"`.
    pub fn kind(&self) -> &'static str {
        match self.transport {
            McpTransport::Stdio { .. } => "stdio",
            McpTransport::Http { .. } => "http",
        }
    }
}

/// `m[key]` as a `T` (absent or `null`: `None`); another value fails with
/// `<what>: "<key>" must be <expectation>`.
fn get<T: DeserializeOwned>(
    what: &str,
    m: &Map<String, Value>,
    key: &str,
    expectation: &str,
) -> Result<Option<T>, String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => T::deserialize(v)
            .map(Some)
            .map_err(|_| format!("{what}: \"{key}\" must be {expectation}")),
    }
}

/// An object of strings (`env`, `headers`); a value of another type names its entry.
fn string_map(
    what: &str,
    m: &Map<String, Value>,
    key: &str,
) -> Result<Option<BTreeMap<String, String>>, String> {
    let what = format!("{what}: \"{key}\"");
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(entries)) => entries
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(format!("{what}.\"{k}\" must be a string")),
            })
            .collect::<Result<_, _>>()
            .map(Some),
        Some(_) => Err(format!("{what} must be an object of strings")),
    }
}

/// A server's document read field by field from its object `m` (keys it does not know are not
/// looked at; the session JSON refuses them first); `what` names the server in errors.
pub fn document(what: &str, m: &Map<String, Value>) -> Result<McpServerDocument, String> {
    const STRING: &str = "a string";
    const POSITIVE: &str = "a positive integer";
    Ok(McpServerDocument {
        kind: get(what, m, "type", STRING)?,
        command: get(what, m, "command", STRING)?,
        args: get(what, m, "args", "an array of strings")?,
        env: string_map(what, m, "env")?,
        cwd: get(what, m, "cwd", STRING)?,
        url: get(what, m, "url", STRING)?,
        headers: string_map(what, m, "headers")?,
        timeout_ms: get(what, m, "timeout_ms", POSITIVE)?,
        startup_timeout_ms: get(what, m, "startup_timeout_ms", POSITIVE)?,
    })
}

/// A positive timeout, `default` when absent.
fn timeout(what: &str, key: &str, ms: Option<u64>, default: u64) -> Result<u64, String> {
    match ms {
        None => Ok(default),
        Some(0) => Err(format!("{what}: \"{key}\" must be a positive integer")),
        Some(n) => Ok(n),
    }
}

/// The transport of a server's document; `session_cwd` anchors a relative `cwd`.
fn transport(what: &str, d: McpServerDocument, session_cwd: &str) -> Result<McpTransport, String> {
    let kind = d
        .kind
        .unwrap_or_else(|| if d.url.is_some() { "http" } else { "stdio" }.into());
    match kind.as_str() {
        "stdio" => Ok(McpTransport::Stdio {
            command: d
                .command
                .filter(|c| !c.is_empty())
                .ok_or_else(|| format!("{what}: missing required field \"command\""))?,
            args: d.args.unwrap_or_default(),
            env: d.env.unwrap_or_default(),
            cwd: match d.cwd {
                Some(c) => Path::new(session_cwd)
                    .join(c)
                    .to_string_lossy()
                    .into_owned(),
                None => session_cwd.to_string(),
            },
            env_policy: crate::core::child_env::ChildEnvPolicy::shared_default(),
        }),
        "http" | "streamable-http" | "streamable_http" => Ok(McpTransport::Http {
            url: d
                .url
                .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
                .ok_or_else(|| format!("{what}: \"url\" must be an http:// or https:// URL"))?,
            headers: d.headers.unwrap_or_default(),
        }),
        other => Err(format!(
            "{what}: unsupported \"type\" \"{other}\" (supported: \"stdio\", \"http\")"
        )),
    }
}

/// The server `name` of its document.
pub fn server(name: &str, d: McpServerDocument, session_cwd: &str) -> Result<McpServerDef, String> {
    let what = server_label(name);
    let (call, startup) = (d.timeout_ms, d.startup_timeout_ms);
    Ok(McpServerDef {
        name: name.to_string(),
        transport: transport(&what, d, session_cwd)?,
        call_timeout_ms: timeout(&what, "timeout_ms", call, DEFAULT_CALL_TIMEOUT_MS)?,
        startup_timeout_ms: timeout(
            &what,
            "startup_timeout_ms",
            startup,
            DEFAULT_STARTUP_TIMEOUT_MS,
        )?,
    })
}

/// The session JSON's `"mcp_servers"` as their documents, in document order; `w` names the
/// document in errors, which name the server and the field.
pub fn documents(w: &str, v: &Value) -> SdkResult<Vec<(String, McpServerDocument)>> {
    let Value::Object(servers) = v else {
        return Err(SdkError::config(format!(
            "{w}: field \"mcp_servers\" must be an object keyed by server name"
        )));
    };
    let error = |e: String| SdkError::config(format!("{w}: {e}"));
    servers
        .iter()
        .map(|(name, v)| {
            let m = server_object(name, v).map_err(error)?;
            let what = server_label(name);
            check_strict(&format!("{w}: {what}"), m, keys::<McpServerDocument>())?;
            Ok((name.clone(), document(&what, m).map_err(error)?))
        })
        .collect()
}

/// The servers of the session JSON's documents.
pub fn servers(
    w: &str,
    docs: Vec<(String, McpServerDocument)>,
    session_cwd: &str,
) -> SdkResult<Vec<McpServerDef>> {
    docs.into_iter()
        .map(|(name, d)| {
            server(&name, d, session_cwd).map_err(|e| SdkError::config(format!("{w}: {e}")))
        })
        .collect()
}

/// `MCP server "<name>"`, how errors name a server.
pub fn server_label(name: &str) -> String {
    format!("MCP server \"{name}\"")
}

/// A server's name and object, before its fields are read: the name must be usable in tool
/// names, the definition an object.
pub fn server_object<'a>(name: &str, v: &'a Value) -> Result<&'a Map<String, Value>, String> {
    let what = server_label(name);
    if name.is_empty() || name.contains("__") {
        return Err(format!(
            "{what}: the name must be non-empty and must not contain \"__\""
        ));
    }
    v.as_object()
        .ok_or_else(|| format!("{what} must be an object"))
}

/// Parses one server definition (unknown keys ignored, as in `.mcp.json`); `session_cwd`
/// anchors a relative `cwd`.
pub fn parse_server(name: &str, v: &Value, session_cwd: &str) -> Result<McpServerDef, String> {
    let m = server_object(name, v)?;
    server(name, document(&server_label(name), m)?, session_cwd)
}

/// The servers of `<cwd>/.mcp.json` (absent file: none); problems become `warnings` and skip
/// only the server (or file) at fault.
pub fn project_servers(cwd: &Path, warnings: &mut Vec<String>) -> Vec<McpServerDef> {
    let path = cwd.join(".mcp.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    let doc: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            warnings.push(format!("{}: invalid JSON: {e}", path.display()));
            return Vec::new();
        }
    };
    let Some(servers) = doc.get("mcpServers").and_then(Value::as_object) else {
        warnings.push(format!(
            "{}: expected {{\"mcpServers\":{{…}}}}",
            path.display()
        ));
        return Vec::new();
    };
    let cwd_text = cwd.to_string_lossy();
    let mut out = Vec::new();
    for (name, v) in servers {
        match parse_server(name, v, &cwd_text) {
            Ok(d) => out.push(d),
            Err(e) => warnings.push(format!("{}: {e}", path.display())),
        }
    }
    out
}

/// Resolves `$ENV:NAME` values of `map`; an unset variable is an error naming the entry.
pub fn resolve_env(
    what: &str,
    map: &BTreeMap<String, String>,
    env: &EnvVars,
) -> Result<BTreeMap<String, String>, String> {
    map.iter()
        .map(|(k, v)| {
            env.resolve(v)
                .map(|r| (k.clone(), r))
                .ok_or_else(|| format!("{what} \"{k}\": {v} is not set"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_and_errors() {
        let d = parse_server("fs", &json!({"command": "npx", "args": ["-y", "x"]}), "/w")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.kind(), "stdio");
        assert_eq!(d.call_timeout_ms, DEFAULT_CALL_TIMEOUT_MS);
        let h = parse_server(
            "h",
            &json!({"type": "http", "url": "http://127.0.0.1:1/mcp",
            "headers": {"Authorization": "$ENV:TOKEN"}, "timeout_ms": 5}),
            "/w",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(h.kind(), "http");
        assert_eq!(h.call_timeout_ms, 5);
        let err = |v: Value| parse_server("s", &v, "/w").err().unwrap_or_default();
        assert_eq!(
            err(json!({"args": []})),
            "MCP server \"s\": missing required field \"command\""
        );
        assert_eq!(
            err(json!({"type": "sse", "url": "http://x"})),
            "MCP server \"s\": unsupported \"type\" \"sse\" (supported: \"stdio\", \"http\")"
        );
        assert_eq!(
            err(json!({"command": "x", "args": [1]})),
            "MCP server \"s\": \"args\" must be an array of strings"
        );
        assert_eq!(
            parse_server("a__b", &json!({"command": "x"}), "/w").err(),
            Some(
                "MCP server \"a__b\": the name must be non-empty and must not contain \"__\""
                    .into()
            )
        );
    }
}
