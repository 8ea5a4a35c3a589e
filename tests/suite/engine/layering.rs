//! The layering of `robota_engine::sdk`: `config/` and `events/` are leaves, read by the
//! runtime and the interactive session but never reading them.

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
fn config_and_events_never_import_the_runtime_or_the_interactive_session() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/src/sdk");
    let mut checked = 0;
    let mut found = Vec::new();
    for leaf in ["config", "events"] {
        for path in rust_files(&root.join(leaf)) {
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                if let Some(bad) = FORBIDDEN.iter().find(|f| line.contains(*f)) {
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
