//! AGENTS.md / CLAUDE.md walk-up (farthest ancestor first): from the absolute `cwd` up to the root,
//! root-first, each file read once, contents joined by a blank line; `.robota/memory/MEMORY.md`
//! and the active task context (`<cwd>/.agents/tasks/*.md`).

use std::path::{Path, PathBuf};

/// The loaded context files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectContext {
    /// Joined AGENTS.md files (empty when none).
    pub agents_md: String,
    /// Joined CLAUDE.md files (empty when none).
    pub claude_md: String,
    /// `<cwd>/.robota/memory/MEMORY.md` (empty when absent).
    pub memory_md: String,
    /// The active task context: `<cwd>/.agents/tasks/*.md` in file-name order, each trimmed,
    /// joined by a blank line (empty when there are none).
    pub tasks_md: String,
}

/// The task files of `cwd` (see [`ProjectContext::tasks_md`]).
pub fn task_context(cwd: &Path) -> String {
    let Ok(dir) = std::fs::read_dir(cwd.join(".agents/tasks")) else {
        return String::new();
    };
    let mut files: Vec<PathBuf> = dir
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Absolute `cwd` (joined to the process directory when relative; no symlink resolution).
pub fn absolute(cwd: &Path) -> PathBuf {
    if cwd.is_absolute() {
        cwd.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(cwd))
            .unwrap_or_else(|_| cwd.to_path_buf())
    }
}

/// Files named `name` from the root down to `cwd`, joined by `\n\n`.
pub fn walk_up(cwd: &Path, name: &str) -> String {
    let mut found: Vec<String> = cwd
        .ancestors()
        .filter_map(|d| std::fs::read_to_string(d.join(name)).ok())
        .collect();
    found.reverse();
    found.join("\n\n")
}

/// Loads the context of `cwd`.
pub fn load(cwd: &Path) -> ProjectContext {
    let cwd = absolute(cwd);
    ProjectContext {
        agents_md: walk_up(&cwd, "AGENTS.md"),
        claude_md: walk_up(&cwd, "CLAUDE.md"),
        memory_md: std::fs::read_to_string(cwd.join(".robota/memory/MEMORY.md"))
            .unwrap_or_default(),
        tasks_md: task_context(&cwd),
    }
}
