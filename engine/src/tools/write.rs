//! `Write` — write content to a file atomically (a sibling temp file renamed over the target,
//! parent directories created, the old file's mode kept).

use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::builtin::{Builtin, Spec};
use super::config::ToolEnv;
use super::ports::FileKind;
use super::result::ToolOutput;

/// Creates or replaces a file (parents created), reporting the UTF-8 byte count.
pub struct WriteTool {
    spec: Spec,
}

impl WriteTool {
    /// A Write tool on `env`.
    pub fn new(env: ToolEnv) -> Self {
        WriteTool {
            spec: Spec::of::<Self>(env),
        }
    }
}

/// Write's arguments.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WriteArgs {
    file_path: String,
    content: String,
}

impl Builtin for WriteTool {
    type Args = WriteArgs;
    const NAME: &'static str = "Write";
    const DESCRIPTION: &'static str = "Write content to a file, creating parent directories as needed and replacing any existing content atomically. Parameters: filePath (required), content (required). Reports the number of bytes written.";

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "filePath": {"type": "string", "description": "Path of the file to write (absolute, or relative to the working directory)"},
                "content": {"type": "string", "description": "The complete new content of the file"}
            },
            "required": ["filePath", "content"]
        })
    }
    fn spec(&self) -> &Spec {
        &self.spec
    }

    fn run_blocking(env: &ToolEnv, args: WriteArgs, _cancel: &CancellationToken) -> ToolOutput {
        let WriteArgs { file_path, content } = args;
        let path = env.resolve(&file_path);
        if let Ok(meta) = env.fs.metadata(&path) {
            if meta.kind == FileKind::Dir {
                return ToolOutput::fail(format!("Path is a directory: {file_path}"));
            }
        }
        match env.fs.write_atomic(&path, content.as_bytes()) {
            Ok(()) => ToolOutput::ok(format!("Written {} bytes to {file_path}", content.len())),
            Err(e) => ToolOutput::fail(e.to_string()),
        }
    }
}
