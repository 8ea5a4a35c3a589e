//! `Glob` — find files matching a glob pattern (gitignore-aware; paths relative to the search
//! path, newest first).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use globset::GlobBuilder;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::args::int;
use super::builtin::{Builtin, Spec};
use super::config::{normalize_lexical, ToolEnv};
use super::ports::{FileKind, FsPort};
use super::result::ToolOutput;
use super::walk::{walk_files, Visitor, WalkSpec};

/// Lists files matching a pattern, newest first, relative to the search path.
pub struct GlobTool {
    spec: Spec,
}

impl GlobTool {
    /// A Glob tool on `env`.
    pub fn new(env: ToolEnv) -> Self {
        GlobTool {
            spec: Spec::of::<Self>(env),
        }
    }
}

/// Glob's arguments.
#[derive(Deserialize)]
pub(crate) struct GlobArgs {
    pattern: String,
    path: Option<String>,
    #[serde(default, deserialize_with = "int")]
    limit: Option<i64>,
}

fn has_glob_meta(s: &str) -> bool {
    s.contains(['*', '?', '[', '{', '\\'])
}

/// Splits `a/b/**/*.rs` into the literal directory prefix `a/b` and the rest `**/*.rs`.
fn split_literal_prefix(pattern: &str) -> (String, String) {
    let parts: Vec<&str> = pattern.split('/').collect();
    let mut n = 0;
    while n + 1 < parts.len() && !has_glob_meta(parts[n]) {
        n += 1;
    }
    (parts[..n].join("/"), parts[n..].join("/"))
}

/// Finds the files; `Ok` holds the output text.
pub(crate) fn run_glob(
    fs: &dyn FsPort,
    root: &Path,
    pattern: &str,
    limit: usize,
    cancel: CancellationToken,
    denied: &[PathBuf],
) -> Result<String, String> {
    match fs.metadata(root) {
        Ok(m) if m.kind == FileKind::Dir => {}
        Ok(_) => return Err(format!("Path is not a directory: {}", root.display())),
        Err(_) => return Err(format!("Path not found: {}", root.display())),
    }
    let mut pat = pattern.trim();
    while let Some(rest) = pat.strip_prefix("./") {
        pat = rest;
    }
    let absolute = pat.starts_with('/');
    let (prefix, rest) = split_literal_prefix(pat.trim_start_matches('/'));
    let base = if absolute {
        PathBuf::from("/")
    } else {
        root.to_path_buf()
    };
    let walk_root = normalize_lexical(&base.join(&prefix));
    let glob = GlobBuilder::new(&rest)
        .literal_separator(true)
        .build()
        .and_then(crate::core::glob_match::compile)
        .map_err(|e| format!("Invalid glob pattern: {pattern}: {e}"))?;
    if !matches!(fs.metadata(&walk_root), Ok(m) if m.kind == FileKind::Dir) {
        return Ok("(no matches)".to_string());
    }
    let max_depth = if rest.contains("**") {
        None
    } else {
        Some(rest.split('/').count())
    };
    let spec = WalkSpec {
        root: walk_root.clone(),
        overrides: None,
        max_depth,
        cancel: cancel.clone(),
        denied: denied.to_vec(),
    };
    let found: Mutex<Vec<(SystemTime, PathBuf)>> = Mutex::new(Vec::new());
    walk_files(fs, &spec, || -> Visitor<'_> {
        let glob = &glob;
        let found = &found;
        let walk_root = &walk_root;
        Box::new(move |path: &Path| {
            let Ok(rel) = path.strip_prefix(walk_root) else {
                return true;
            };
            if glob.is_match(rel) {
                let mtime = fs
                    .metadata(path)
                    .ok()
                    .and_then(|m| m.modified)
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                if let Ok(mut f) = found.lock() {
                    f.push((mtime, path.to_path_buf()));
                }
            }
            true
        })
    });
    if cancel.is_cancelled() {
        return Err("Search was cancelled".to_string());
    }
    let mut found = found.into_inner().unwrap_or_default();
    if found.is_empty() {
        return Ok("(no matches)".to_string());
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let shown: Vec<String> = found
        .iter()
        .take(limit)
        .map(|(_, p)| {
            let shown = if absolute {
                p.as_path()
            } else {
                p.strip_prefix(root).unwrap_or(p)
            };
            shown.to_string_lossy().into_owned()
        })
        .collect();
    let mut out = shown.join("\n");
    if total > limit {
        out.push_str(&format!(
            "\n\n[Showing {limit} of {total} matches. Use limit parameter to see more.]"
        ));
    }
    Ok(out)
}

impl Builtin for GlobTool {
    type Args = GlobArgs;
    const NAME: &'static str = "Glob";
    const DESCRIPTION: &'static str = "Find files matching a glob pattern (\"*\" within a directory, \"**\" across directories, braces like \"*.{ts,tsx}\"). Parameters: pattern (required), path (directory to search, default the working directory), limit (default 1000). Returns paths relative to the search path, newest first; .gitignore'd files, .git and node_modules are skipped.";
    const READ_ONLY: bool = true;

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern, e.g. \"**/*.ts\", \"src/**/*.{ts,tsx}\""},
                "path": {"type": "string", "description": "Directory to search in (default: the working directory)"},
                "limit": {"type": "number", "description": "Maximum number of paths to return (default 1000)"}
            },
            "required": ["pattern"]
        })
    }
    fn spec(&self) -> &Spec {
        &self.spec
    }

    fn run_blocking(env: &ToolEnv, args: GlobArgs, cancel: &CancellationToken) -> ToolOutput {
        if let Err(e) = env.sandbox_read_check(args.path.as_deref().unwrap_or(".")) {
            return ToolOutput::fail(e);
        }
        let root = env.resolve(args.path.as_deref().unwrap_or("."));
        let limit = args
            .limit
            .map(|l| l.max(1) as usize)
            .unwrap_or(env.limits().glob_default_limit);
        run_glob(
            env.fs.as_ref(),
            &root,
            &args.pattern,
            limit,
            cancel.clone(),
            env.denied_reads(),
        )
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::split_literal_prefix;

    #[test]
    fn literal_prefix() {
        assert_eq!(
            split_literal_prefix("src/a/**/*.rs"),
            ("src/a".into(), "**/*.rs".into())
        );
        assert_eq!(split_literal_prefix("*.rs"), ("".into(), "*.rs".into()));
        assert_eq!(
            split_literal_prefix("docs/readme.md"),
            ("docs".into(), "readme.md".into())
        );
    }
}
