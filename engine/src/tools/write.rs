//! `Write` — write content to a file atomically (a sibling temp file renamed over the target,
//! parent directories created, the old file's mode kept).

use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::builtin::{blocking, Builtin, Spec};
use super::config::ToolEnv;
use super::ports::FileKind;
use super::result::ToolOutput;
use crate::core::diff::{file_diff, FileDiff, MAX_DIFF_BYTES};
use crate::core::tool::ToolContext;

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

#[async_trait::async_trait]
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

    /// Runs [`write`] and records its diff for the tool's state.
    async fn run(&self, args: WriteArgs, ctx: &ToolContext) -> ToolOutput {
        let env = self.spec().env.clone();
        let slot = ctx.diff.clone();
        blocking(move || {
            let (out, diff) = write(&env, args);
            if let Some(d) = diff {
                slot.set(d);
            }
            out
        })
        .await
    }

    fn run_blocking(env: &ToolEnv, args: WriteArgs, _cancel: &CancellationToken) -> ToolOutput {
        write(env, args).0
    }
}

/// Writes the file; the diff against its old content (a new file: every line added; none for a
/// file too large to show).
fn write(env: &ToolEnv, args: WriteArgs) -> (ToolOutput, Option<FileDiff>) {
    let WriteArgs { file_path, content } = args;
    if let Err(e) = env.sandbox_write_check(&file_path) {
        return (ToolOutput::fail(e), None);
    }
    let path = env.resolve(&file_path);
    let old = match env.fs.metadata(&path) {
        Ok(meta) if meta.kind == FileKind::Dir => {
            return (
                ToolOutput::fail(format!("Path is a directory: {file_path}")),
                None,
            )
        }
        Ok(meta) if meta.len > MAX_DIFF_BYTES as u64 => None,
        Ok(_) => env.fs.read(&path).ok(),
        Err(_) => Some(Vec::new()),
    };
    match env.fs.write_atomic(&path, content.as_bytes()) {
        Ok(()) => (
            ToolOutput::ok(format!("Written {} bytes to {file_path}", content.len())),
            old.and_then(|o| file_diff(&file_path, &o, content.as_bytes())),
        ),
        Err(e) => (ToolOutput::fail(e.to_string()), None),
    }
}
