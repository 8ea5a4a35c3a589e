//! Grep and Glob on a generated tree of 20,000 files, against `rg`, `find` and `fd` (each
//! compared only when installed; `apt-get install -y ripgrep fd-find`).
//!
//! `cargo bench --bench search` prints one line per case: the median of several warm runs.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use robota_engine::core::tool::{Tool, ToolContext};
use robota_engine::tools::{builtin_tools_with, ToolsConfig};
use serde_json::{json, Value};

const FILES: usize = 20_000;
const RUNS: usize = 7;

/// 20 × 25 directories × 40 files; one file in ten contains the needle; a `.gitignore`
/// excludes one directory per top-level package.
fn generate(root: &Path) -> std::io::Result<()> {
    let exts = ["rs", "ts", "md", "txt"];
    let mut n = 0;
    std::fs::write(root.join(".gitignore"), "ignored_*/\n")?;
    for a in 0..20 {
        for b in 0..25 {
            let dir = if b == 0 {
                root.join(format!("pkg{a}/ignored_{b}"))
            } else {
                root.join(format!("pkg{a}/mod{b}"))
            };
            std::fs::create_dir_all(&dir)?;
            for c in 0..40 {
                let ext = exts[(a + b + c) % exts.len()];
                let mut body = String::with_capacity(1200);
                for line in 0..24 {
                    body.push_str(&format!(
                        "fn item_{a}_{b}_{c}_{line}(value: usize) -> usize {{ value * {line} }}\n"
                    ));
                }
                if n % 10 == 0 {
                    body.push_str("// NEEDLE_TOKEN found here\n");
                }
                std::fs::write(dir.join(format!("file{c}.{ext}")), body)?;
                n += 1;
            }
        }
    }
    debug_assert_eq!(n, FILES);
    Ok(())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time_tool(rt: &tokio::runtime::Runtime, tool: &Arc<dyn Tool>, args: Value) -> (Duration, usize) {
    let run = || {
        let out = rt
            .block_on(tool.execute(args.clone(), &ToolContext::detached("bench")))
            .unwrap_or_default();
        let doc: Value = serde_json::from_str(out.as_str().unwrap_or("{}")).unwrap_or_default();
        doc["output"].as_str().unwrap_or("").lines().count()
    };
    let lines = run();
    let times = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed()
        })
        .collect();
    (median(times), lines)
}

fn which(bin: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_string_lossy()
        .split(':')
        .map(|d| Path::new(d).join(bin))
        .find(|p| p.is_file())
}

fn time_cmd(bin: &Path, args: &[&str], cwd: &Path) -> Option<(Duration, usize)> {
    let run = || -> Option<usize> {
        let out = Command::new(bin)
            .args(args)
            .current_dir(cwd)
            .stderr(Stdio::null())
            .output()
            .ok()?;
        Some(out.stdout.iter().filter(|&&b| b == b'\n').count())
    };
    let lines = run()?;
    let times = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed()
        })
        .collect();
    Some((median(times), lines))
}

fn report(label: &str, ours: (Duration, usize), other: Option<(&str, (Duration, usize))>) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    match other {
        Some((name, o)) => println!(
            "{label:<34} robota {:>8.1} ms ({:>5} lines) | {name:<26} {:>8.1} ms ({:>5} lines) | ratio {:.2}x",
            ms(ours.0),
            ours.1,
            ms(o.0),
            o.1,
            ms(ours.0) / ms(o.0).max(0.001)
        ),
        None => println!(
            "{label:<34} robota {:>8.1} ms ({:>5} lines) | (no external tool installed)",
            ms(ours.0),
            ours.1
        ),
    }
}

fn main() {
    // `cargo test --benches` runs benches in test mode; keep that fast.
    if std::env::args().any(|a| a == "--test") {
        return;
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot create a temp dir: {e}");
            return;
        }
    };
    let root = dir.path();
    let t = Instant::now();
    if let Err(e) = generate(root) {
        eprintln!("cannot generate the tree: {e}");
        return;
    }
    println!(
        "tree: {FILES} files under {} (generated in {:.1}s), {RUNS} warm runs, median",
        root.display(),
        t.elapsed().as_secs_f64()
    );
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cannot start tokio: {e}");
            return;
        }
    };
    // Make the tree a git repository so rg and fd honour its .gitignore like Grep/Glob do.
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status()
        .is_ok_and(|s| s.success());
    println!("git repository: {git} (external tools honour .gitignore only inside one)");
    // No output truncation: compare full result sets.
    let mut config = ToolsConfig::default();
    config.limits.max_output_chars = usize::MAX / 4;
    let tools = builtin_tools_with(root, config);
    let (grep, glob) = (tools[5].clone(), tools[4].clone());
    let rg = which("rg");
    let fd = which("fd").or_else(|| which("fdfind"));
    let find = which("find");

    let ours = time_tool(&rt, &grep, json!({"pattern": "NEEDLE_TOKEN"}));
    let other = rg
        .as_deref()
        .and_then(|rg| time_cmd(rg, &["-l", "--hidden", "-g", "!.git", "NEEDLE_TOKEN"], root))
        .map(|r| ("rg -l --hidden", r));
    report("Grep files_with_matches", ours, other);

    let ours = time_tool(
        &rt,
        &grep,
        json!({"pattern": "NEEDLE_TOKEN", "outputMode": "content"}),
    );
    let other = rg
        .as_deref()
        .and_then(|rg| time_cmd(rg, &["-n", "--hidden", "-g", "!.git", "NEEDLE_TOKEN"], root))
        .map(|r| ("rg -n --hidden", r));
    report("Grep content", ours, other);

    let ours = time_tool(
        &rt,
        &grep,
        json!({"pattern": "value \\* 2[0-3]", "outputMode": "count", "glob": "*.{rs,ts}"}),
    );
    let other = rg
        .as_deref()
        .and_then(|rg| {
            time_cmd(
                rg,
                &[
                    "-c",
                    "--hidden",
                    "-g",
                    "!.git",
                    "-g",
                    "*.{rs,ts}",
                    "value \\* 2[0-3]",
                ],
                root,
            )
        })
        .map(|r| ("rg -c -g '*.{rs,ts}'", r));
    report("Grep count, regex, brace glob", ours, other);

    let ours = time_tool(&rt, &glob, json!({"pattern": "**/*.rs", "limit": 100000}));
    let other = rg
        .as_deref()
        .and_then(|rg| {
            time_cmd(
                rg,
                &["--files", "--hidden", "-g", "!.git", "-g", "*.rs"],
                root,
            )
        })
        .map(|r| ("rg --files -g '*.rs'", r));
    report("Glob **/*.rs", ours, other);
    if let Some(fd) = fd.as_deref() {
        let other = time_cmd(fd, &["--hidden", "-E", ".git", "-t", "f", "-e", "rs"], root)
            .map(|r| ("fd -e rs", r));
        report("Glob **/*.rs", ours, other);
    }
    if let Some(find) = find.as_deref() {
        let other = time_cmd(find, &[".", "-type", "f", "-name", "*.rs"], root)
            .map(|r| ("find -name '*.rs'", r));
        report("Glob **/*.rs (find ignores .gitignore)", ours, other);
    }
}
