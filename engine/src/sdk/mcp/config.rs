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

use serde_json::{Map, Value};

use crate::core::env_ref::EnvVars;

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

fn string_map(what: &str, v: Option<&Value>) -> Result<BTreeMap<String, String>, String> {
    match v {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(format!("{what}.\"{k}\" must be a string")),
            })
            .collect(),
        Some(_) => Err(format!("{what} must be an object of strings")),
    }
}

fn timeout(what: &str, m: &Map<String, Value>, key: &str, default: u64) -> Result<u64, String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{what}: \"{key}\" must be a positive integer")),
    }
}

/// Parses one server definition; `session_cwd` anchors a relative `cwd`.
pub fn parse_server(name: &str, v: &Value, session_cwd: &str) -> Result<McpServerDef, String> {
    let what = format!("MCP server \"{name}\"");
    if name.is_empty() || name.contains("__") {
        return Err(format!(
            "{what}: the name must be non-empty and must not contain \"__\""
        ));
    }
    let Value::Object(m) = v else {
        return Err(format!("{what} must be an object"));
    };
    let s = |k: &str| -> Result<Option<String>, String> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("{what}: \"{k}\" must be a string")),
        }
    };
    let kind = s("type")?.unwrap_or_else(|| {
        if m.contains_key("url") {
            "http".into()
        } else {
            "stdio".into()
        }
    });
    let transport = match kind.as_str() {
        "stdio" => {
            let command = s("command")?
                .filter(|c| !c.is_empty())
                .ok_or_else(|| format!("{what}: missing required field \"command\""))?;
            let args = match m.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| x.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| format!("{what}: \"args\" must be an array of strings"))?,
                Some(_) => return Err(format!("{what}: \"args\" must be an array of strings")),
            };
            let cwd = match s("cwd")? {
                Some(c) => Path::new(session_cwd)
                    .join(c)
                    .to_string_lossy()
                    .into_owned(),
                None => session_cwd.to_string(),
            };
            McpTransport::Stdio {
                command,
                args,
                env: string_map(&format!("{what}: \"env\""), m.get("env"))?,
                cwd,
            }
        }
        "http" | "streamable-http" | "streamable_http" => McpTransport::Http {
            url: s("url")?
                .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
                .ok_or_else(|| format!("{what}: \"url\" must be an http:// or https:// URL"))?,
            headers: string_map(&format!("{what}: \"headers\""), m.get("headers"))?,
        },
        other => {
            return Err(format!(
                "{what}: unsupported \"type\" \"{other}\" (supported: \"stdio\", \"http\")"
            ))
        }
    };
    Ok(McpServerDef {
        name: name.to_string(),
        transport,
        call_timeout_ms: timeout(&what, m, "timeout_ms", DEFAULT_CALL_TIMEOUT_MS)?,
        startup_timeout_ms: timeout(&what, m, "startup_timeout_ms", DEFAULT_STARTUP_TIMEOUT_MS)?,
    })
}

/// Parses the session JSON's `"mcp_servers"` (errors name the server and field).
pub fn parse_servers(v: Option<&Value>, session_cwd: &str) -> Result<Vec<McpServerDef>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| parse_server(k, v, session_cwd))
            .collect(),
        Some(_) => Err("field \"mcp_servers\" must be an object keyed by server name".into()),
    }
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
