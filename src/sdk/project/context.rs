//! AGENTS.md / CLAUDE.md walk-up (reference §12.3): from the absolute `cwd` up to the root,
//! root-first, each file read once, contents joined by a blank line; the "Compact
//! Instructions" section of the CLAUDE.md text; `.robota/memory/MEMORY.md`.

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
    /// The "Compact Instructions" section of `claude_md`.
    pub compact_instructions: Option<String>,
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
fn walk_up(cwd: &Path, name: &str) -> String {
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
    let claude_md = walk_up(&cwd, "CLAUDE.md");
    ProjectContext {
        agents_md: walk_up(&cwd, "AGENTS.md"),
        compact_instructions: compact_instructions(&claude_md),
        claude_md,
        memory_md: std::fs::read_to_string(cwd.join(".robota/memory/MEMORY.md"))
            .unwrap_or_default(),
    }
}

/// `Some(level)` for a Markdown heading line (`#` … `######` then a space or the end).
fn heading_level(line: &str) -> Option<usize> {
    let t = line.trim_start();
    let n = t.bytes().take_while(|b| *b == b'#').count();
    let rest = &t[n..];
    ((1..=6).contains(&n) && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some(n)
}

/// The section under the first heading containing "compact instructions" (any case), up to
/// the next heading of the same or a higher level; trimmed, `None` when empty.
pub fn compact_instructions(text: &str) -> Option<String> {
    let mut level = None;
    let mut out = Vec::new();
    for line in text.lines() {
        match (level, heading_level(line)) {
            (None, Some(l)) if line.to_lowercase().contains("compact instructions") => {
                level = Some(l)
            }
            (Some(cur), Some(l)) if l <= cur => break,
            (Some(_), _) => out.push(line),
            _ => {}
        }
    }
    let s = out.join("\n").trim().to_string();
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_section_stops_at_same_level() {
        let t = "# A\nx\n## Compact Instructions\nkeep the plan\n### sub\nmore\n## Next\nno";
        assert_eq!(
            compact_instructions(t).as_deref(),
            Some("keep the plan\n### sub\nmore")
        );
        assert_eq!(compact_instructions("# compact instructions\n\n"), None);
        assert_eq!(compact_instructions("#nope compact instructions\nx"), None);
    }
}
