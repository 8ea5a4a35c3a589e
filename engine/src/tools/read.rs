//! `Read` — read file contents with line numbers (from `offset`, 1-based, at most `limit` lines,
//! default 2000; binary files refused). An image file (PNG, JPEG, GIF, WebP by its magic bytes)
//! is returned to the model as an image part after a one-line text naming it.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::args::int;
use super::builtin::{blocking, Builtin, Spec};
use super::config::ToolEnv;
use super::ports::FileKind;
use super::result::ToolOutput;
use crate::core::image::{inline_image, sniff_media_type, MAX_IMAGE_BYTES};
use crate::core::message::Part;
use crate::core::tool::ToolContext;

/// Reads a text file as `<n>\t<line>` lines under a `[File: ...]` header.
pub struct ReadTool {
    spec: Spec,
}

impl ReadTool {
    /// A Read tool on `env`.
    pub fn new(env: ToolEnv) -> Self {
        ReadTool {
            spec: Spec::of::<Self>(env),
        }
    }
}

/// Read's arguments.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReadArgs {
    file_path: String,
    #[serde(default, deserialize_with = "int")]
    offset: Option<i64>,
    #[serde(default, deserialize_with = "int")]
    limit: Option<i64>,
}

/// Formats the Read output of `bytes` (already checked to be text).
pub(crate) fn render(display: &str, bytes: &[u8], offset: usize, limit: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let total = lines.len();
    if total == 0 {
        return format!("[File: {display} (0 lines)]\n");
    }
    let start = offset.max(1);
    let from = (start - 1).min(total);
    let to = from.saturating_add(limit).min(total);
    let selected = &lines[from..to];
    let n = selected.len();
    let last_no = start + n.saturating_sub(1);
    let width = last_no.to_string().len();
    let body = selected
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{:>width$}\t{line}", start + i))
        .collect::<Vec<_>>()
        .join("\n");
    let header = if n < total {
        format!(
            "[File: {display} (lines {start}-{} of {total})]\n",
            (start + n) as i64 - 1
        )
    } else {
        format!("[File: {display} ({total} lines)]\n")
    };
    header + &body
}

#[async_trait]
impl Builtin for ReadTool {
    type Args = ReadArgs;
    const NAME: &'static str = "Read";
    const DESCRIPTION: &'static str = "Read a file's contents with line numbers. Parameters: filePath (required; absolute or relative to the working directory), offset (1-based start line), limit (number of lines, default 2000). Output starts with a [File: ...] header; an image file (PNG, JPEG, GIF, WebP) is shown to you as an image; other binary files and directories are refused.";
    const READ_ONLY: bool = true;

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "filePath": {"type": "string", "description": "Path of the file to read (absolute, or relative to the working directory)"},
                "offset": {"type": "number", "description": "1-based line number to start from (default 1)"},
                "limit": {"type": "number", "description": "Maximum number of lines to return (default 2000)"}
            },
            "required": ["filePath"]
        })
    }
    fn spec(&self) -> &Spec {
        &self.spec
    }

    async fn run(&self, args: ReadArgs, ctx: &ToolContext) -> ToolOutput {
        let env = self.spec().env.clone();
        let attachments = ctx.attachments.clone();
        blocking(move || {
            let (out, image) = read(&env, args);
            if let Some(part) = image {
                attachments.attach(part);
            }
            out
        })
        .await
    }
}

/// The text of a Read of an image file (the image itself follows it as a part).
pub(crate) fn image_text(display: &str, media_type: &str, len: usize) -> String {
    format!("[Image: {display} ({media_type}, {len} bytes)]")
}

/// Reads a file: the result document, and the image part when the file is an image.
fn read(env: &ToolEnv, args: ReadArgs) -> (ToolOutput, Option<Part>) {
    let display = args.file_path;
    let offset = args.offset.unwrap_or(1).max(1) as usize;
    let limit = args
        .limit
        .map(|l| l.max(0) as usize)
        .unwrap_or(env.limits().read_default_limit);
    if let Err(e) = env.sandbox_read_check(&display) {
        return (ToolOutput::fail(e), None);
    }
    let path = env.resolve(&display);
    let fs = &env.fs;
    let done = |bytes: Vec<u8>| {
        if let Some(media_type) = sniff_media_type(&bytes) {
            if bytes.len() > MAX_IMAGE_BYTES {
                return (ToolOutput::fail(format!("Image too large: {display} is {} bytes, over the limit of {MAX_IMAGE_BYTES} bytes (5 MiB)", bytes.len())), None);
            }
            let text = image_text(&display, media_type, bytes.len());
            return (ToolOutput::ok(text), inline_image(&bytes).ok());
        }
        if bytes[..bytes.len().min(8192)].contains(&0) {
            return (
                ToolOutput::fail(format!("Binary file not supported: {display}")),
                None,
            );
        }
        (
            ToolOutput::ok(render(&display, &bytes, offset, limit)),
            None,
        )
    };
    // A port that is not the OS's (the host I/O port: each call a round trip to the
    // host) reads first; `metadata` then only names why a read failed.
    if !fs.is_native() {
        match fs.read(&path) {
            Ok(bytes) => return done(bytes),
            // Aborted: nobody will answer a `stat` either.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                return (ToolOutput::fail(e.to_string()), None)
            }
            Err(_) => {}
        }
    }
    let meta = match fs.metadata(&path) {
        Ok(m) => m,
        Err(_) => return (ToolOutput::fail(format!("File not found: {display}")), None),
    };
    if meta.kind != FileKind::File {
        return (
            ToolOutput::fail(format!("Path is not a file: {display}")),
            None,
        );
    }
    match fs.read(&path) {
        Ok(b) => done(b),
        Err(e) => (ToolOutput::fail(e.to_string()), None),
    }
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn headers() {
        assert_eq!(render("f", b"", 1, 10), "[File: f (0 lines)]\n");
        assert_eq!(
            render("f", b"a\nb\n", 1, 10),
            "[File: f (2 lines)]\n1\ta\n2\tb"
        );
        assert_eq!(
            render("f", b"a\n", 100, 10),
            "[File: f (lines 100-99 of 1)]\n"
        );
        let ten: String = (1..=10).map(|i| format!("l{i}\n")).collect();
        assert_eq!(
            render("f", ten.as_bytes(), 8, 5),
            "[File: f (lines 8-10 of 10)]\n 8\tl8\n 9\tl9\n10\tl10"
        );
    }
}
