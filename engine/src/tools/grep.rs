//! `Grep` — search file contents with a regex (case-sensitive unless asked), on ripgrep's crates
//! (`grep-regex`, `grep-searcher`, `ignore`): gitignore-aware, include globs with braces,
//! case-insensitive option, `content` / `files_with_matches` / `count` modes.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::overrides::{Override, OverrideBuilder};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::args::int;
use super::builtin::{Builtin, Spec};
use super::config::ToolEnv;
use super::ports::{FileKind, FsPort};
use super::result::ToolOutput;
use super::walk::{walk_files, Visitor, WalkSpec};

/// What Grep prints (JSON: `content`, `files_with_matches`, `count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrepMode {
    /// `<path>:<line>:<text>` for matches, `<path>:<line>-<text>` for context, `--` between blocks.
    Content,
    /// One path per matching file (default).
    FilesWithMatches,
    /// `<path>:<matching line count>` per matching file.
    Count,
}

/// One Grep request (paths absolute).
#[derive(Debug, Clone)]
pub struct GrepQuery {
    /// Regex (Rust `regex` syntax).
    pub pattern: String,
    /// File or directory to search.
    pub root: std::path::PathBuf,
    /// Include glob (ripgrep `-g` semantics: no `/` = matched against the file name at any depth).
    pub glob: Option<String>,
    /// Lines of context around each match (content mode).
    pub context: usize,
    /// Output mode.
    pub mode: GrepMode,
    /// Case-insensitive matching.
    pub case_insensitive: bool,
    /// Stop collecting after this many bytes of results.
    pub max_collect_bytes: usize,
    /// Paths the search never reads (the sandbox's `deny_read`, absolute).
    pub denied: Vec<std::path::PathBuf>,
}

/// Searches files; `Ok` is the output text, `Err` the error message.
pub fn run_grep(
    fs: &dyn FsPort,
    query: &GrepQuery,
    cancel: CancellationToken,
) -> Result<String, String> {
    let matcher = build_matcher(query)?;
    let meta = fs
        .metadata(&query.root)
        .map_err(|_| format!("Path not found: {}", query.root.display()))?;
    let collector = Collector::new(query);
    match meta.kind {
        FileKind::File => {
            collector.search(fs, &mut build_searcher(query), &matcher, &query.root);
        }
        FileKind::Dir => search_tree(fs, query, &matcher, &collector, &cancel)?,
        FileKind::Other => {
            return Err(format!(
                "Path is not a file or directory: {}",
                query.root.display()
            ))
        }
    }
    if cancel.is_cancelled() {
        return Err("Search was cancelled".to_string());
    }
    Ok(collector.into_output())
}

/// The pattern as a line-oriented matcher, case-insensitive when asked.
fn build_matcher(query: &GrepQuery) -> Result<RegexMatcher, String> {
    RegexMatcherBuilder::new()
        .case_insensitive(query.case_insensitive)
        .line_terminator(Some(b'\n'))
        .build(&query.pattern)
        .map_err(|_| format!("Invalid regex pattern: {}", query.pattern))
}

/// A searcher with the query's context lines; line numbers except in `files_with_matches`
/// mode; a NUL byte marks a file as binary.
fn build_searcher(query: &GrepQuery) -> Searcher {
    SearcherBuilder::new()
        .line_number(query.mode != GrepMode::FilesWithMatches)
        .before_context(query.context)
        .after_context(query.context)
        .binary_detection(BinaryDetection::quit(0))
        .build()
}

/// The include glob as a walk whitelist rooted at `root` (`None` when absent or empty).
fn include_glob(root: &Path, glob: Option<&str>) -> Result<Option<Override>, String> {
    let Some(g) = glob.filter(|g| !g.is_empty()) else {
        return Ok(None);
    };
    let invalid = |e: ignore::Error| format!("Invalid glob pattern: {g}: {e}");
    let mut builder = OverrideBuilder::new(root);
    builder.add(g).map_err(invalid)?;
    builder.build().map(Some).map_err(invalid)
}

/// Searches every file the walk visits under the query's root directory, one searcher per
/// walker thread.
fn search_tree(
    fs: &dyn FsPort,
    query: &GrepQuery,
    matcher: &RegexMatcher,
    collector: &Collector,
    cancel: &CancellationToken,
) -> Result<(), String> {
    let spec = WalkSpec {
        root: query.root.clone(),
        overrides: include_glob(&query.root, query.glob.as_deref())?,
        max_depth: None,
        cancel: cancel.clone(),
        denied: query.denied.clone(),
    };
    walk_files(fs, &spec, || -> Visitor<'_> {
        let mut searcher = build_searcher(query);
        let matcher = matcher.clone();
        Box::new(move |path: &Path| collector.search(fs, &mut searcher, &matcher, path))
    });
    Ok(())
}

/// Gathers per-file results from all walker threads.
struct Collector {
    mode: GrepMode,
    /// (path, content text | count).
    results: Mutex<Vec<(String, String)>>,
    bytes: AtomicUsize,
    max_bytes: usize,
    overflow: AtomicBool,
}

impl Collector {
    /// An empty collector for the query's mode and byte limit.
    fn new(query: &GrepQuery) -> Self {
        Collector {
            mode: query.mode,
            results: Mutex::new(Vec::new()),
            bytes: AtomicUsize::new(0),
            max_bytes: query.max_collect_bytes,
            overflow: AtomicBool::new(false),
        }
    }

    /// The output text: `(no matches)`, or the results sorted by path in the mode's format,
    /// followed by a note when collecting stopped early.
    fn into_output(self) -> String {
        let overflow = self.overflow.load(Ordering::Relaxed);
        let mut results = self.results.into_inner().unwrap_or_default();
        if results.is_empty() {
            return "(no matches)".to_string();
        }
        results.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = format_results(self.mode, results);
        if overflow {
            out.push_str(&format!(
                "\n\n[Search stopped early: results exceeded {} bytes. Narrow the pattern, path or glob.]",
                self.max_bytes
            ));
        }
        out
    }

    /// Searches one file; returns `false` when the walk should stop.
    fn search(
        &self,
        fs: &dyn FsPort,
        searcher: &mut Searcher,
        matcher: &RegexMatcher,
        path: &Path,
    ) -> bool {
        let display = path.to_string_lossy();
        let mut sink = FileSink {
            mode: self.mode,
            path: &display,
            out: String::new(),
            count: 0,
            binary: false,
        };
        let res = if fs.is_native() {
            searcher.search_path(matcher, path, &mut sink)
        } else {
            match fs.read(path) {
                Ok(bytes) => searcher.search_slice(matcher, &bytes, &mut sink),
                Err(_) => return true,
            }
        };
        if res.is_err() || sink.binary || sink.count == 0 {
            return true;
        }
        let text = match self.mode {
            GrepMode::Content => sink.out,
            GrepMode::Count => sink.count.to_string(),
            GrepMode::FilesWithMatches => String::new(),
        };
        let added = display.len() + text.len() + 2;
        let total = self.bytes.fetch_add(added, Ordering::Relaxed) + added;
        if let Ok(mut r) = self.results.lock() {
            r.push((display.into_owned(), text));
        }
        if total > self.max_bytes {
            self.overflow.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }
}

/// Per-file results in the mode's format: paths, `path:count` lines, or the matched lines
/// without the final newline.
fn format_results(mode: GrepMode, results: Vec<(String, String)>) -> String {
    match mode {
        GrepMode::FilesWithMatches => results
            .iter()
            .map(|(p, _)| p.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        GrepMode::Count => results
            .iter()
            .map(|(p, c)| format!("{p}:{c}"))
            .collect::<Vec<_>>()
            .join("\n"),
        GrepMode::Content => {
            let mut s: String = results.into_iter().map(|(_, text)| text).collect();
            while s.ends_with('\n') {
                s.pop();
            }
            s
        }
    }
}

struct FileSink<'a> {
    mode: GrepMode,
    path: &'a str,
    out: String,
    count: u64,
    binary: bool,
}

fn push_line(out: &mut String, path: &str, line: Option<u64>, sep: char, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\n').trim_end_matches('\r');
    out.push_str(path);
    out.push(':');
    out.push_str(&line.unwrap_or(0).to_string());
    out.push(sep);
    out.push_str(text);
    out.push('\n');
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        match self.mode {
            GrepMode::FilesWithMatches => {
                self.count += 1;
                Ok(false)
            }
            GrepMode::Count => {
                self.count += m.lines().count().max(1) as u64;
                Ok(true)
            }
            GrepMode::Content => {
                let mut no = m.line_number();
                for line in m.lines() {
                    self.count += 1;
                    push_line(&mut self.out, self.path, no, ':', line);
                    no = no.map(|n| n + 1);
                }
                Ok(true)
            }
        }
    }

    fn context(&mut self, _s: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.mode == GrepMode::Content && !matches!(c.kind(), SinkContextKind::Other) {
            push_line(&mut self.out, self.path, c.line_number(), '-', c.bytes());
        }
        Ok(true)
    }

    fn context_break(&mut self, _s: &Searcher) -> Result<bool, io::Error> {
        if self.mode == GrepMode::Content && self.count > 0 {
            self.out.push_str("--\n");
        }
        Ok(true)
    }

    fn binary_data(&mut self, _s: &Searcher, offset: u64) -> Result<bool, io::Error> {
        if offset < 8192 || self.count == 0 {
            self.binary = true;
        }
        Ok(false)
    }
}

/// Searches file contents.
pub struct GrepTool {
    spec: Spec,
}

impl GrepTool {
    /// A Grep tool on `env`.
    pub fn new(env: ToolEnv) -> Self {
        GrepTool {
            spec: Spec::of::<Self>(env),
        }
    }
}

/// Grep's arguments.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GrepArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    #[serde(default, deserialize_with = "int")]
    context_lines: Option<i64>,
    output_mode: Option<GrepMode>,
    #[serde(default)]
    case_insensitive: bool,
}

impl Builtin for GrepTool {
    type Args = GrepArgs;
    const NAME: &'static str = "Grep";
    const DESCRIPTION: &'static str = "Search file contents with a regular expression. Parameters: pattern (required), path (file or directory, default the working directory), glob (file filter such as \"*.{ts,tsx}\"), contextLines, outputMode (files_with_matches | content | count), caseInsensitive. Skips binary files, .gitignore'd files, .git and node_modules.";
    const READ_ONLY: bool = true;

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression to search for"},
                "path": {"type": "string", "description": "File or directory to search (default: the working directory)"},
                "glob": {"type": "string", "description": "Only search files matching this glob, e.g. \"*.ts\" or \"*.{ts,tsx}\" (a glob without \"/\" matches file names at any depth)"},
                "contextLines": {"type": "number", "description": "Lines of context before and after each match in content mode (default 0)"},
                "outputMode": {"type": "string", "enum": ["files_with_matches", "content", "count"], "description": "files_with_matches (default): matching file paths; content: matching lines as path:line:text; count: path:number of matching lines"},
                "caseInsensitive": {"type": "boolean", "description": "Ignore case (default false)"}
            },
            "required": ["pattern"]
        })
    }
    fn spec(&self) -> &Spec {
        &self.spec
    }

    fn run_blocking(env: &ToolEnv, args: GrepArgs, cancel: &CancellationToken) -> ToolOutput {
        if let Err(e) = env.sandbox_read_check(args.path.as_deref().unwrap_or(".")) {
            return ToolOutput::fail(e);
        }
        let query = GrepQuery {
            pattern: args.pattern,
            root: env.resolve(args.path.as_deref().unwrap_or(".")),
            glob: args.glob,
            context: args.context_lines.unwrap_or(0).clamp(0, 1000) as usize,
            mode: args.output_mode.unwrap_or(GrepMode::FilesWithMatches),
            case_insensitive: args.case_insensitive,
            max_collect_bytes: env.limits().grep_max_collect_bytes,
            denied: env.denied_reads().to_vec(),
        };
        run_grep(env.fs.as_ref(), &query, cancel.clone()).into()
    }
}
