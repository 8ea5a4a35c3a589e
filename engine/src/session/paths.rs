//! Path normalization for permission checks (security): `filePath` arguments of Read/Write/Edit
//! and the path globs of their patterns are compared as normalized absolute paths, so
//! `Read(/src/**)` cannot be satisfied by `/src/../etc/passwd` or by a symlink leading out.

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::core::permissions::{parse_pattern, PermissionLists};

/// Tools whose primary argument (`filePath`) is a path.
pub const PATH_TOOLS: [&str; 3] = ["Read", "Write", "Edit"];

/// Most symlinks followed while resolving one path (as the OS's `ELOOP` limit).
const MAX_SYMLINK_HOPS: usize = 40;

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn expand_home(raw: &str) -> PathBuf {
    if raw == "~" {
        if let Some(h) = home_dir() {
            return h;
        }
    } else if let Some(rest) = raw.strip_prefix("~/") {
        if let Some(h) = home_dir() {
            return h.join(rest);
        }
    }
    PathBuf::from(raw)
}

enum Part {
    Root(PathBuf),
    Cur,
    Parent,
    Name(OsString),
}

fn parts_of(path: &Path) -> Vec<Part> {
    let mut out = Vec::new();
    let mut root = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Prefix(p) => root.push(p.as_os_str()),
            Component::RootDir => {
                root.push(Component::RootDir.as_os_str());
                out.push(Part::Root(std::mem::take(&mut root)));
            }
            Component::CurDir => out.push(Part::Cur),
            Component::ParentDir => out.push(Part::Parent),
            Component::Normal(n) => out.push(Part::Name(n.to_os_string())),
        }
    }
    if !root.as_os_str().is_empty() {
        out.insert(0, Part::Root(root));
    }
    out
}

/// Resolves `raw` the way the OS would (like `realpath -m`): `~` expanded, relative to `cwd`,
/// `.` and `..` applied, and every existing symlink component followed; components that do
/// not exist are kept as written.
pub fn resolve_path(cwd: &Path, raw: &str) -> PathBuf {
    let expanded = expand_home(raw);
    let absolute = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    // Work list, consumed from the end.
    let mut todo: Vec<Part> = parts_of(&absolute);
    todo.reverse();
    let mut out = PathBuf::new();
    let mut hops = 0usize;
    while let Some(part) = todo.pop() {
        match part {
            Part::Root(r) => out = r,
            Part::Cur => {}
            Part::Parent => {
                out.pop();
            }
            Part::Name(name) => {
                let candidate = out.join(&name);
                let link = std::fs::symlink_metadata(&candidate)
                    .ok()
                    .filter(|m| m.file_type().is_symlink())
                    .and_then(|_| std::fs::read_link(&candidate).ok());
                match link {
                    Some(target) if hops < MAX_SYMLINK_HOPS => {
                        hops += 1;
                        let mut target_parts = parts_of(&target);
                        target_parts.reverse();
                        todo.extend(target_parts);
                    }
                    _ => out = candidate,
                }
            }
        }
    }
    out
}

const GLOB_META: [char; 4] = ['*', '?', '[', '{'];

/// Normalizes the path glob of a Read/Write/Edit pattern: `~` expanded, relative globs anchored
/// at `cwd`, and the literal directories before the first wildcard resolved like
/// [`resolve_path`]. Globs starting with a wildcard (`*`, `**/x`) are returned unchanged.
pub fn normalize_path_glob(cwd: &Path, glob: &str) -> String {
    if glob.is_empty() || glob.starts_with(GLOB_META) {
        return glob.to_string();
    }
    let expanded = expand_home(glob);
    let absolute = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    let text = absolute.to_string_lossy().into_owned();
    let segments: Vec<&str> = text.split('/').collect();
    let first_glob = segments
        .iter()
        .position(|s| s.contains(GLOB_META))
        .unwrap_or(segments.len());
    let literal = segments[..first_glob].join("/");
    let mut resolved = resolve_path(
        Path::new("/"),
        if literal.is_empty() { "/" } else { &literal },
    )
    .to_string_lossy()
    .into_owned();
    if first_glob < segments.len() {
        if !resolved.ends_with('/') {
            resolved.push('/');
        }
        resolved.push_str(&segments[first_glob..].join("/"));
    } else if text.ends_with('/') && !resolved.ends_with('/') {
        resolved.push('/');
    }
    resolved
}

/// The arguments as the permission check sees them: for Read/Write/Edit a string `filePath` is
/// replaced by its resolved absolute path (a copy); otherwise the arguments themselves.
pub fn normalize_args<'a>(cwd: &Path, tool: &str, args: &'a Value) -> Cow<'a, Value> {
    if !PATH_TOOLS.contains(&tool) || !matches!(args.get("filePath"), Some(Value::String(_))) {
        return Cow::Borrowed(args);
    }
    let mut out = args.clone();
    if let Some(Value::String(fp)) = out.get_mut("filePath") {
        *fp = resolve_path(cwd, fp).to_string_lossy().into_owned();
    }
    Cow::Owned(out)
}

/// The lists with the path globs of Read/Write/Edit patterns normalized (see [`normalize_path_glob`]).
pub fn normalize_lists(cwd: &Path, lists: &PermissionLists) -> PermissionLists {
    let fix = |p: &String| -> String {
        let (name, glob) = parse_pattern(p);
        match glob {
            Some(g) if PATH_TOOLS.contains(&name) => {
                format!("{name}({})", normalize_path_glob(cwd, g))
            }
            _ => p.clone(),
        }
    };
    PermissionLists {
        allow: lists.allow.iter().map(fix).collect(),
        deny: lists.deny.iter().map(fix).collect(),
    }
}
