//! `Write` — write content to a file atomically (a sibling temp file renamed over the target,
//! parent directories created, the old file's mode kept).

use async_trait::async_trait;
use serde_json::{json, Value};

use super::common::{arg_str, blocking, Spec};
use super::config::ToolEnv;
use super::ports::FileKind;
use super::result::ToolOutput;
use crate::core::tool::{Tool, ToolContext, ToolResult};

/// Creates or replaces a file (parents created), reporting the UTF-8 byte count.
pub struct WriteTool {
    env: ToolEnv,
    spec: Spec,
}

impl WriteTool {
    /// A Write tool on `env`.
    pub fn new(env: ToolEnv) -> Self {
        WriteTool {
            env,
            spec: Spec::new(json!({
                "type": "object",
                "properties": {
                    "filePath": {"type": "string", "description": "Path of the file to write (absolute, or relative to the working directory)"},
                    "content": {"type": "string", "description": "The complete new content of the file"}
                },
                "required": ["filePath", "content"]
            })),
        }
    }
}

#[async_trait]
impl Tool for WriteTool {
    fn name(&self) -> &str {
        "Write"
    }
    fn description(&self) -> &str {
        "Write content to a file, creating parent directories as needed and replacing any existing content atomically. Parameters: filePath (required), content (required). Reports the number of bytes written."
    }
    fn parameters(&self) -> &Value {
        &self.spec.parameters
    }
    fn schema(&self) -> std::sync::Arc<crate::core::provider::ToolSchema> {
        self.spec.schema.get(self)
    }
    async fn execute(&self, args: Value, _ctx: &ToolContext) -> ToolResult {
        let max = self.env.limits().max_output_chars;
        if let Err(fail) = self.spec.validate(self.name(), &args) {
            return fail.into_result(max);
        }
        let display = arg_str(&args, "filePath").unwrap_or_default().to_string();
        let content = arg_str(&args, "content").unwrap_or_default().to_string();
        let path = self.env.resolve(&display);
        let fs = self.env.fs.clone();
        blocking(move || {
            if let Ok(meta) = fs.metadata(&path) {
                if meta.kind == FileKind::Dir {
                    return ToolOutput::fail(format!("Path is a directory: {display}"));
                }
            }
            match fs.write_atomic(&path, content.as_bytes()) {
                Ok(()) => ToolOutput::ok(format!("Written {} bytes to {display}", content.len())),
                Err(e) => ToolOutput::fail(e.to_string()),
            }
        })
        .await
        .into_result(max)
    }
}
