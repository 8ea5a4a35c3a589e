//! An MCP server's tool as a session tool `mcp__<server>__<tool>` (holding its connection weakly:
//! the session owns it): the server's JSON Schema as
//! parameters, and its result mapped faithfully: text alone stays text; images (and audio,
//! resources) keep their MCP content blocks; `structuredContent` is kept beside them; `isError`
//! makes the call fail with the server's text. The session's dispatcher applies permissions,
//! hooks and output truncation like for any tool.

use std::sync::{Arc, Weak};

use async_trait::async_trait;
use rmcp::model::{CallToolResult, ContentBlock, Tool as McpToolDef};
use serde_json::{json, Value};

use super::connection::McpConnection;
use crate::core::tool::{Tool, ToolContext, ToolResult};

/// `mcp__<server>__<tool>`, with characters providers refuse in names replaced by `_`.
pub fn exposed_name(server: &str, tool: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("mcp__{}__{}", clean(server), clean(tool))
}

/// One server tool bound to its connection.
pub struct McpTool {
    name: String,
    remote: String,
    description: String,
    parameters: Value,
    read_only: bool,
    conn: Weak<McpConnection>,
    server: String,
}

impl McpTool {
    /// The tool `def` of `conn`, or why it is skipped (its schema is not a valid JSON Schema).
    pub fn build(
        server: &str,
        def: &McpToolDef,
        conn: &Arc<McpConnection>,
    ) -> Result<Arc<dyn Tool>, String> {
        let name = exposed_name(server, &def.name);
        let parameters = Value::Object(def.input_schema.as_ref().clone());
        if let Err(e) = crate::tools::validation::SchemaValidator::new(&parameters) {
            return Err(format!(
                "MCP server \"{server}\": tool \"{}\" skipped: {e}",
                def.name
            ));
        }
        Ok(Arc::new(McpTool {
            name,
            remote: def.name.to_string(),
            description: def.description.as_deref().unwrap_or_default().to_string(),
            parameters,
            read_only: def
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false),
            conn: Arc::downgrade(conn),
            server: server.to_string(),
        }))
    }
}

/// The tool message for a server result (see the module doc).
pub fn map_result(r: CallToolResult) -> ToolResult {
    let texts: Vec<&str> = r
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    let only_text = texts.len() == r.content.len();
    if r.is_error == Some(true) {
        return Err(if only_text && !texts.is_empty() {
            texts.join("\n")
        } else {
            serde_json::to_string(&r.content).unwrap_or_default()
        });
    }
    if only_text && r.structured_content.is_none() {
        return Ok(Value::String(texts.join("\n")));
    }
    let mut out = json!({ "content": r.content });
    if let Some(s) = r.structured_content {
        out["structuredContent"] = s;
    }
    Ok(out)
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn read_only(&self) -> bool {
        self.read_only
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        // The session holds the connection; after its close the tool has nothing to call.
        let conn = self.conn.upgrade().ok_or_else(|| {
            format!(
                "MCP server \"{}\" is closed (the session was closed)",
                self.server
            )
        })?;
        map_result(conn.call(&self.remote, args, &ctx.cancel).await?)
    }
}
