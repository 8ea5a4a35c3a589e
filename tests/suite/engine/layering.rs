//! The layering of `robota_engine::sdk`: `config/` and `events/` are leaves, read by the
//! runtime and the interactive session but never reading them; `config/` (the documents) also
//! never reads the features that act on them (commands, subagents, host requests, persistence).

use std::path::{Path, PathBuf};

/// What a leaf folder may not mention: the runtime and the interactive session.
const FORBIDDEN: [&str; 6] = [
    "sdk::interactive",
    "sdk::runtime",
    "super::interactive",
    "super::runtime",
    "super::super::interactive",
    "super::super::runtime",
];

/// What `config/` may not mention besides [`FORBIDDEN`]: the folders that act on its documents
/// (`super::X` also covers `super::super::X`).
const FORBIDDEN_IN_CONFIG: [&str; 8] = [
    "sdk::commands",
    "sdk::subagent",
    "sdk::host",
    "sdk::persistence",
    "super::commands",
    "super::subagent",
    "super::host",
    "super::persistence",
];

/// Whether `line` names the module path `path` (not a longer name it begins, like
/// `super::host_commands` for `super::host`).
fn mentions(line: &str, path: &str) -> bool {
    line.match_indices(path).any(|(at, _)| {
        !line[at + path.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

#[test]
fn config_and_events_never_import_the_runtime_the_interactive_session_or_the_features() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/src/sdk");
    let mut checked = 0;
    let mut found = Vec::new();
    for leaf in ["config", "events"] {
        for path in rust_files(&root.join(leaf)) {
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                let extra: &[&str] = if leaf == "config" {
                    &FORBIDDEN_IN_CONFIG
                } else {
                    &[]
                };
                if let Some(bad) = FORBIDDEN.iter().chain(extra).find(|f| mentions(line, f)) {
                    found.push(format!("{}:{}: mentions {bad}", path.display(), n + 1));
                }
            }
            checked += 1;
        }
    }
    assert!(
        found.is_empty(),
        "a leaf imports upward:\n{}",
        found.join("\n")
    );
    assert!(checked >= 10, "only {checked} files found");
}
