//! Glob and Grep (ports of Robota's glob/grep tool tests) on real trees, including a
//! generated tree with `.gitignore` files.

use crate::support::tools as tools_common;

use std::path::Path;
use std::sync::Arc;

use robota_engine::tools::{StdFs, TokioProcess, ToolEnv, ToolsConfig};
use serde_json::json;
use tools_common::{call, error, output, put, set_mtime, tool, tool_in};

fn abs(dir: &Path, rel: &str) -> String {
    dir.join(rel).to_string_lossy().into_owned()
}

// ---------------------------------------------------------------- Glob

#[tokio::test]
async fn glob_skips_node_modules_and_git_and_includes_dotfiles() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "src/a.ts", "");
    put(d, "src/deep/b.ts", "");
    put(d, ".hidden/c.ts", "");
    put(d, "node_modules/pkg/index.ts", "");
    put(d, ".git/hooks/x.ts", "");
    put(d, "src/c.js", "");
    for (i, f) in ["src/a.ts", "src/deep/b.ts", ".hidden/c.ts"]
        .iter()
        .enumerate()
    {
        set_mtime(&d.join(f), 1_000 + i as u64);
    }
    let r = call(&tool("Glob", d), json!({"pattern": "**/*.ts"})).await;
    assert_eq!(r["success"], true);
    // Newest first.
    assert_eq!(output(&r), ".hidden/c.ts\nsrc/deep/b.ts\nsrc/a.ts");
}

#[tokio::test]
async fn glob_orders_by_mtime_newest_first_and_reports_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, t) in [
        ("a.txt", 500),
        ("b.txt", 300),
        ("c.txt", 900),
        ("d.txt", 100),
        ("e.txt", 700),
    ] {
        put(d, name, name);
        set_mtime(&d.join(name), t);
    }
    let t = tool("Glob", d);
    let r = call(&t, json!({"pattern": "*.txt"})).await;
    assert_eq!(output(&r), "c.txt\ne.txt\na.txt\nb.txt\nd.txt");
    let r = call(&t, json!({"pattern": "*.txt", "limit": 2})).await;
    assert_eq!(
        output(&r),
        "c.txt\ne.txt\n\n[Showing 2 of 5 matches. Use limit parameter to see more.]"
    );
}

#[tokio::test]
async fn glob_star_does_not_cross_directories_and_braces_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "top.ts", "");
    put(d, "sub/inner.ts", "");
    put(d, "sub/view.tsx", "");
    put(d, "sub/style.css", "");
    set_mtime(&d.join("top.ts"), 30);
    set_mtime(&d.join("sub/inner.ts"), 20);
    set_mtime(&d.join("sub/view.tsx"), 10);
    let t = tool("Glob", d);
    let r = call(&t, json!({"pattern": "*.ts"})).await;
    assert_eq!(output(&r), "top.ts");
    let r = call(&t, json!({"pattern": "sub/*.{ts,tsx}"})).await;
    assert_eq!(output(&r), "sub/inner.ts\nsub/view.tsx");
    let r = call(&t, json!({"pattern": "*.{ts,tsx}", "path": "sub"})).await;
    assert_eq!(output(&r), "inner.ts\nview.tsx");
}

#[tokio::test]
async fn glob_no_matches_missing_path_and_bad_pattern() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.rs", "");
    let t = tool("Glob", dir.path());
    let r = call(&t, json!({"pattern": "**/*.py"})).await;
    assert_eq!(r, json!({"success": true, "output": "(no matches)"}));
    let r = call(&t, json!({"pattern": "*.rs", "path": "missing"})).await;
    assert_eq!(r["success"], false);
    assert_eq!(
        error(&r),
        format!("Path not found: {}", abs(dir.path(), "missing"))
    );
    let r = call(&t, json!({"pattern": "a[.rs"})).await;
    assert_eq!(r["success"], false);
    assert!(
        error(&r).starts_with("Invalid glob pattern: a[.rs: "),
        "{r}"
    );
}

// ---------------------------------------------------------------- Grep

#[tokio::test]
async fn grep_files_with_matches_is_default_and_sorted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "b.txt", "hello world\n");
    put(d, "a.txt", "say hello\n");
    put(d, "c.txt", "nothing\n");
    let r = call(&tool("Grep", d), json!({"pattern": "hello"})).await;
    assert_eq!(
        output(&r),
        format!("{}\n{}", abs(d, "a.txt"), abs(d, "b.txt"))
    );
}

#[tokio::test]
async fn grep_content_mode_with_context_separators() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(
        d,
        "f.txt",
        "l1\nMATCH one\nl3\nl4\nl5\nl6\nl7\nl8\nMATCH two\nl10\n",
    );
    let p = abs(d, "f.txt");
    let t = tool("Grep", d);
    let r = call(&t, json!({"pattern": "MATCH", "outputMode": "content"})).await;
    assert_eq!(output(&r), format!("{p}:2:MATCH one\n{p}:9:MATCH two"));
    let r = call(
        &t,
        json!({"pattern": "MATCH", "outputMode": "content", "contextLines": 1}),
    )
    .await;
    assert_eq!(
        output(&r),
        format!("{p}:1-l1\n{p}:2:MATCH one\n{p}:3-l3\n--\n{p}:8-l8\n{p}:9:MATCH two\n{p}:10-l10")
    );
    // Overlapping context merges into one block (no separator).
    let r = call(
        &t,
        json!({"pattern": "MATCH", "outputMode": "content", "contextLines": 3}),
    )
    .await;
    assert!(!output(&r).contains("--"), "{}", output(&r));
    assert!(output(&r).contains(&format!("{p}:5-l5\n{p}:6-l6")));
}

#[tokio::test]
async fn grep_glob_matches_in_subdirectories_and_supports_braces() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "root.ts", "needle\n");
    put(d, "src/deep/x.ts", "needle\n");
    put(d, "src/view.tsx", "needle\n");
    put(d, "src/other.js", "needle\n");
    let t = tool("Grep", d);
    let r = call(&t, json!({"pattern": "needle", "glob": "*.ts"})).await;
    assert_eq!(
        output(&r),
        format!("{}\n{}", abs(d, "root.ts"), abs(d, "src/deep/x.ts"))
    );
    let r = call(&t, json!({"pattern": "needle", "glob": "*.{ts,tsx}"})).await;
    assert_eq!(
        output(&r),
        format!(
            "{}\n{}\n{}",
            abs(d, "root.ts"),
            abs(d, "src/deep/x.ts"),
            abs(d, "src/view.tsx")
        )
    );
}

#[tokio::test]
async fn grep_count_mode_case_insensitive_and_single_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "a.txt", "Foo\nfoo\nbar\nFOO foo\n");
    put(d, "b.txt", "foo\n");
    let t = tool("Grep", d);
    let r = call(&t, json!({"pattern": "foo", "outputMode": "count"})).await;
    assert_eq!(
        output(&r),
        format!("{}:2\n{}:1", abs(d, "a.txt"), abs(d, "b.txt"))
    );
    let r = call(
        &t,
        json!({"pattern": "foo", "outputMode": "count", "caseInsensitive": true}),
    )
    .await;
    assert_eq!(
        output(&r),
        format!("{}:3\n{}:1", abs(d, "a.txt"), abs(d, "b.txt"))
    );
    let r = call(
        &t,
        json!({"pattern": "^FOO", "path": "a.txt", "outputMode": "content", "glob": "*.md"}),
    )
    .await;
    assert_eq!(output(&r), format!("{}:4:FOO foo", abs(d, "a.txt")));
}

#[tokio::test]
async fn grep_errors_and_no_matches() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.txt", "x\n");
    let t = tool("Grep", dir.path());
    let r = call(&t, json!({"pattern": "(unclosed"})).await;
    assert_eq!(
        r,
        json!({"success": false, "output": "", "error": "Invalid regex pattern: (unclosed"})
    );
    let r = call(&t, json!({"pattern": "x", "path": "nope"})).await;
    assert_eq!(
        error(&r),
        format!("Path not found: {}", abs(dir.path(), "nope"))
    );
    let r = call(&t, json!({"pattern": "zzz"})).await;
    assert_eq!(r, json!({"success": true, "output": "(no matches)"}));
    let r = call(&t, json!({"pattern": "x", "outputMode": "lines"})).await;
    assert_eq!(
        error(&r),
        "Validation Error: Invalid parameters for tool \"Grep\": Parameter \"outputMode\" must be one of: files_with_matches, content, count, got lines"
    );
}

#[tokio::test]
async fn grep_skips_binary_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("bin.dat"), b"needle\x00\x01\x02").unwrap();
    put(d, "t.txt", "needle\n");
    let r = call(&tool("Grep", d), json!({"pattern": "needle"})).await;
    assert_eq!(output(&r), abs(d, "t.txt"));
}

#[tokio::test]
async fn grep_refuses_a_bad_glob_and_a_path_that_is_not_a_file_or_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "a.txt", "x\n");
    let t = tool("Grep", d);
    let r = call(&t, json!({"pattern": "x", "glob": "a["})).await;
    assert_eq!(
        r,
        json!({"success": false, "output": "",
               "error": "Invalid glob pattern: a[: error parsing glob 'a[': unclosed character class; missing ']'"})
    );
    let _socket = std::os::unix::net::UnixListener::bind(d.join("sock")).unwrap();
    let r = call(&t, json!({"pattern": "x", "path": "sock"})).await;
    assert_eq!(
        error(&r),
        format!("Path is not a file or directory: {}", abs(d, "sock"))
    );
}

#[tokio::test]
async fn grep_stops_collecting_past_its_byte_limit_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "a.txt", "needle one\nneedle two\n");
    let mut config = ToolsConfig::default();
    config.limits.grep_max_collect_bytes = 10;
    let env = ToolEnv::with_ports(d, Arc::new(StdFs), Arc::new(TokioProcess), config);
    let p = abs(d, "a.txt");
    let note =
        "[Search stopped early: results exceeded 10 bytes. Narrow the pattern, path or glob.]";
    let r = call(
        &tool_in("Grep", &env),
        json!({"pattern": "needle", "outputMode": "content"}),
    )
    .await;
    assert_eq!(
        r,
        json!({"success": true, "output": format!("{p}:1:needle one\n{p}:2:needle two\n\n{note}")})
    );
    let r = call(
        &tool_in("Grep", &env),
        json!({"pattern": "needle", "path": "a.txt"}),
    )
    .await;
    assert_eq!(
        r,
        json!({"success": true, "output": format!("{p}\n\n{note}")})
    );
}

/// A generated tree: 3 packages × 4 dirs × 5 files, with root and nested `.gitignore` files,
/// `node_modules`, `.git` and a negated pattern.
fn generated_tree(d: &Path) {
    put(d, ".gitignore", "build/\n*.log\n!keep.log\n");
    for pkg in 0..3 {
        for sub in 0..4 {
            for f in 0..5 {
                put(
                    d,
                    &format!("pkg{pkg}/dir{sub}/file{f}.rs"),
                    &format!("// pkg {pkg} dir {sub} file {f}\nfn item_{f}() {{ TOKEN }}\n"),
                );
            }
        }
        put(d, &format!("pkg{pkg}/build/gen.rs"), "TOKEN\n");
        put(d, &format!("pkg{pkg}/node_modules/dep/lib.rs"), "TOKEN\n");
        put(d, &format!("pkg{pkg}/trace.log"), "TOKEN\n");
    }
    put(d, "keep.log", "TOKEN\n");
    put(d, "pkg1/.gitignore", "dir3/\n");
    put(d, ".git/objects/blob.rs", "TOKEN\n");
}

#[tokio::test]
async fn grep_and_glob_respect_gitignore_on_generated_tree() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    generated_tree(d);
    // 3*4*5 = 60 .rs files, minus pkg1/dir3 (5) = 55, plus keep.log.
    let r = call(
        &tool("Grep", d),
        json!({"pattern": "TOKEN", "outputMode": "count"}),
    )
    .await;
    let lines: Vec<&str> = output(&r).lines().collect();
    assert_eq!(lines.len(), 56, "{}", output(&r));
    assert!(lines.contains(&format!("{}:1", abs(d, "keep.log")).as_str()));
    assert!(!output(&r).contains("build"));
    assert!(!output(&r).contains("node_modules"));
    assert!(!output(&r).contains("trace.log"));
    assert!(!output(&r).contains("pkg1/dir3"));
    assert!(!output(&r).contains(".git/"));

    let r = call(
        &tool("Glob", d),
        json!({"pattern": "**/*.rs", "limit": 5000}),
    )
    .await;
    let paths: Vec<&str> = output(&r).lines().collect();
    assert_eq!(paths.len(), 55);
    assert!(paths
        .iter()
        .all(|p| !p.contains("build/") && !p.starts_with("pkg1/dir3")));
    let r = call(&tool("Glob", d), json!({"pattern": "pkg0/dir0/*.rs"})).await;
    assert_eq!(output(&r).lines().count(), 5);
    let r = call(&tool("Glob", d), json!({"pattern": "*.log"})).await;
    assert_eq!(output(&r), "keep.log");
}

#[tokio::test]
async fn cancelled_searches_say_so() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.txt", "needle\n");
    let ctx = robota_engine::core::tool::ToolContext::detached("c");
    ctx.cancel.cancel();
    for (name, args) in [
        ("Grep", json!({"pattern": "needle"})),
        ("Glob", json!({"pattern": "*.txt"})),
    ] {
        let r = tools_common::call_ctx(&tool(name, dir.path()), args, &ctx).await;
        assert_eq!(
            r,
            json!({"success": false, "output": "", "error": "Search was cancelled"}),
            "{name}"
        );
    }
}
