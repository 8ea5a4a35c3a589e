//! `Edit` — replace an exact string in a file (it must be unique unless `replaceAll`). Byte-exact:
//! CRLF, tabs and any UTF-8 (or non-UTF-8) content outside the replaced span are preserved.

use memchr::memmem;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::builtin::{blocking, Builtin, Spec};
use super::config::ToolEnv;
use super::ports::FileKind;
use super::result::ToolOutput;
use crate::core::diff::{file_diff, FileDiff};
use crate::core::tool::ToolContext;

/// Replaces `oldString` with `newString` (first occurrence, which must be unique, or all).
pub struct EditTool {
    spec: Spec,
}

impl EditTool {
    /// An Edit tool on `env`.
    pub fn new(env: ToolEnv) -> Self {
        EditTool {
            spec: Spec::of::<Self>(env),
        }
    }
}

/// Edit's arguments.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EditArgs {
    file_path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

/// The outcome of applying an edit to `content`.
pub(crate) enum EditOutcome {
    /// New bytes, count replaced, 1-based line of the first occurrence.
    Replaced(Vec<u8>, usize, u64),
    /// `oldString` does not occur.
    NotFound,
    /// More than one occurrence without `replaceAll`.
    NotUnique(usize),
}

/// Applies the edit (plain byte matching, non-overlapping, left to right).
pub(crate) fn apply(content: &[u8], old: &[u8], new: &[u8], all: bool) -> EditOutcome {
    let finder = memmem::Finder::new(old);
    let positions: Vec<usize> = finder.find_iter(content).collect();
    // find_iter yields non-overlapping matches left to right.
    let Some(&first) = positions.first() else {
        return EditOutcome::NotFound;
    };
    if !all && positions.len() > 1 {
        return EditOutcome::NotUnique(positions.len());
    }
    let used: &[usize] = if all { &positions } else { &positions[..1] };
    let mut out = Vec::with_capacity(content.len() + used.len() * new.len());
    let mut last = 0;
    for &p in used {
        out.extend_from_slice(&content[last..p]);
        out.extend_from_slice(new);
        last = p + old.len();
    }
    out.extend_from_slice(&content[last..]);
    let line = memchr::memchr_iter(b'\n', &content[..first]).count() as u64 + 1;
    EditOutcome::Replaced(out, used.len(), line)
}

#[async_trait::async_trait]
impl Builtin for EditTool {
    type Args = EditArgs;
    const NAME: &'static str = "Edit";
    const DESCRIPTION: &'static str = "Replace an exact string in a file. Parameters: filePath, oldString, newString (required), replaceAll (boolean, default false). oldString must match exactly (whitespace and line endings included) and be unique unless replaceAll is true. Reports the number of replacements.";

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "filePath": {"type": "string", "description": "Path of the file to edit"},
                "oldString": {"type": "string", "description": "The exact text to replace (must be unique in the file unless replaceAll is true)"},
                "newString": {"type": "string", "description": "The replacement text"},
                "replaceAll": {"type": "boolean", "description": "Replace every occurrence (default false)"}
            },
            "required": ["filePath", "oldString", "newString"]
        })
    }
    fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Runs [`edit`] and records its diff for the tool's state.
    async fn run(&self, args: EditArgs, ctx: &ToolContext) -> ToolOutput {
        let env = self.spec().env.clone();
        let slot = ctx.diff.clone();
        blocking(move || {
            let (out, diff) = edit(&env, args);
            if let Some(d) = diff {
                slot.set(d);
            }
            out
        })
        .await
    }

    fn run_blocking(env: &ToolEnv, args: EditArgs, _cancel: &CancellationToken) -> ToolOutput {
        edit(env, args).0
    }
}

/// Applies the edit; the diff of the file's old and new content on success.
fn edit(env: &ToolEnv, args: EditArgs) -> (ToolOutput, Option<FileDiff>) {
    let fail = |m: String| (ToolOutput::fail(m), None);
    let display = args.file_path;
    if args.old_string.is_empty() {
        return fail(
            "oldString must not be empty (use Write to create or replace a whole file)".into(),
        );
    }
    if let Err(e) = env.sandbox_write_check(&display) {
        return fail(e);
    }
    let path = env.resolve(&display);
    let fs = &env.fs;
    match fs.metadata(&path) {
        Ok(m) if m.kind == FileKind::File => {}
        Ok(_) => return fail(format!("Path is not a file: {display}")),
        Err(_) => return fail(format!("File not found: {display}")),
    }
    let content = match fs.read(&path) {
        Ok(c) => c,
        Err(_) => return fail(format!("File not found: {display}")),
    };
    let (old, new) = (args.old_string.as_bytes(), args.new_string.as_bytes());
    match apply(&content, old, new, args.replace_all) {
        EditOutcome::NotFound => fail(format!("oldString not found in file: {display}")),
        EditOutcome::NotUnique(n) => fail(format!(
            "oldString is not unique in file (found {n} occurrences). Provide more context to make it unique, or use replaceAll:true."
        )),
        EditOutcome::Replaced(bytes, count, line) => match fs.write_atomic(&path, &bytes) {
            Ok(()) => {
                let mut out = ToolOutput::ok(format!("Replaced {count} occurrence(s) in {display}"));
                out.start_line = Some(line);
                (out, file_diff(&display, &content, &bytes))
            }
            Err(e) => fail(e.to_string()),
        },
    }
}
