//! The file walk shared by Glob and Grep.
//!
//! Rules in both modes: hidden (dot) files are included, any entry named `.git` or
//! `node_modules` is skipped, `.gitignore` (and `.ignore`) files are honoured even outside a git
//! repository, symlinks are not followed.
//!
//! * Native ports ([`FsPort::is_native`]) use ripgrep's parallel walker (`ignore`), which also
//!   honours `.gitignore` files of parent directories, `.git/info/exclude` and the global
//!   git excludes file.
//! * Other ports get a sequential walk made of `read_dir` calls, name-sorted, honouring the
//!   `.gitignore` files found at or below the search root (read through the port).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::Override;
use ignore::{WalkBuilder, WalkState};
use tokio_util::sync::CancellationToken;

use super::ports::{FileKind, FsPort};

/// Directory names never entered.
pub const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// What to walk.
pub(crate) struct WalkSpec {
    /// Absolute directory to start at.
    pub root: PathBuf,
    /// Whitelist globs (Grep's `glob`), matched like ripgrep's `-g`.
    pub overrides: Option<Override>,
    /// Depth limit (1 = the root's direct entries).
    pub max_depth: Option<usize>,
    /// Stops the walk.
    pub cancel: CancellationToken,
    /// Paths never entered nor visited (the sandbox's `deny_read`, absolute).
    pub denied: Vec<PathBuf>,
}

/// A per-thread visitor: called with each file's path; returns `false` to stop the walk.
pub(crate) type Visitor<'s> = Box<dyn FnMut(&Path) -> bool + Send + 's>;

/// Walks the files under `spec.root`. `make_visitor` is called once per walker thread.
pub(crate) fn walk_files<'s, M>(fs: &dyn FsPort, spec: &WalkSpec, make_visitor: M)
where
    M: Fn() -> Visitor<'s> + Sync,
{
    if fs.is_native() {
        walk_native(spec, make_visitor)
    } else {
        walk_port(fs, spec, make_visitor)
    }
}

fn walk_native<'s, M>(spec: &WalkSpec, make_visitor: M)
where
    M: Fn() -> Visitor<'s> + Sync,
{
    let mut builder = WalkBuilder::new(&spec.root);
    let denied = spec.denied.clone();
    builder
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .max_depth(spec.max_depth)
        .filter_entry(move |e| {
            let name = e.file_name();
            !SKIPPED_DIRS.iter().any(|s| name == *s) && !denied.iter().any(|d| e.path() == d)
        });
    if let Some(ov) = &spec.overrides {
        builder.overrides(ov.clone());
    }
    let cancel = &spec.cancel;
    builder.build_parallel().run(|| {
        let mut visit = make_visitor();
        Box::new(move |entry| {
            if cancel.is_cancelled() {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            if visit(entry.path()) {
                WalkState::Continue
            } else {
                WalkState::Quit
            }
        })
    });
}

fn load_gitignore(fs: &dyn FsPort, dir: &Path) -> Option<Arc<Gitignore>> {
    let bytes = fs.read(&dir.join(".gitignore")).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut builder = GitignoreBuilder::new(dir);
    for line in text.lines() {
        let _ = builder.add_line(None, line);
    }
    builder.build().ok().map(Arc::new)
}

fn ignored(chain: &[Arc<Gitignore>], path: &Path, is_dir: bool) -> bool {
    for gi in chain.iter().rev() {
        let m = gi.matched(path, is_dir);
        if m.is_ignore() {
            return true;
        }
        if m.is_whitelist() {
            return false;
        }
    }
    false
}

fn walk_port<'s, M>(fs: &dyn FsPort, spec: &WalkSpec, make_visitor: M)
where
    M: Fn() -> Visitor<'s> + Sync,
{
    let mut visit = make_visitor();
    let mut stack: Vec<(PathBuf, usize, Vec<Arc<Gitignore>>)> =
        vec![(spec.root.clone(), 0, vec![])];
    while let Some((dir, depth, mut chain)) = stack.pop() {
        if spec.cancel.is_cancelled() {
            return;
        }
        let Ok(mut entries) = fs.read_dir(&dir) else {
            continue;
        };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        if entries
            .iter()
            .any(|e| e.name == ".gitignore" && e.kind == FileKind::File)
        {
            if let Some(gi) = load_gitignore(fs, &dir) {
                chain.push(gi);
            }
        }
        let mut subdirs = Vec::new();
        for entry in entries {
            if SKIPPED_DIRS.contains(&entry.name.as_str()) {
                continue;
            }
            let path = dir.join(&entry.name);
            let is_dir = entry.kind == FileKind::Dir;
            if spec.denied.contains(&path) || ignored(&chain, &path, is_dir) {
                continue;
            }
            if let Some(ov) = &spec.overrides {
                if ov.matched(&path, is_dir).is_ignore() {
                    continue;
                }
            }
            match entry.kind {
                FileKind::Dir => {
                    if spec.max_depth.is_none_or(|m| depth + 1 < m) {
                        subdirs.push(path);
                    }
                }
                FileKind::File => {
                    if !visit(&path) {
                        return;
                    }
                }
                FileKind::Other => {}
            }
        }
        // Reverse so the stack pops them in name order.
        for sub in subdirs.into_iter().rev() {
            stack.push((sub, depth + 1, chain.clone()));
        }
    }
}
