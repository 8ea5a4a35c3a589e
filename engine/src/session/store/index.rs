//! The listing's index of a session directory: `<dir>/.robota-index.jsonl`, a cache of what
//! [`list`](super::list::list) read from each session file, keyed by the file's name
//! and stamp (inode, size, modification time). A listing stats every `*.json` file (one
//! `fstatat`, no open or read) and reads only the files whose stamp is not in the index — new,
//! replaced (every save renames a new inode over the old file) or changed in place — then
//! rewrites the index when anything differed. The index is never needed: a missing, older,
//! unreadable or corrupt one is rebuilt from the files, so session files of any version stay
//! listable and resumable.
//!
//! Format: a first line `{"v":1,"kind":"robota.session-index"}`, then one line per file:
//! `{"file","stamp":{"ino","size","mtime","mtime_nsec"}}` plus `"session":{summary}` or `"error":"…"`
//! (why the file is skipped).

use std::collections::HashMap;
use std::fs::{self, Metadata};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::list::SessionSummary;
use crate::core::atomic_file::replace_file;

/// The index's file name inside the session directory (hidden: never listed as a session).
pub const INDEX_FILE: &str = ".robota-index.jsonl";

/// `kind` of the index's first line.
const INDEX_KIND: &str = "robota.session-index";

/// Format version of the index (a different one is ignored and rewritten).
const INDEX_VERSION: u32 = 1;

/// What identifies one version of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    ino: u64,
    size: u64,
    mtime: i64,
    mtime_nsec: i64,
}

impl Stamp {
    /// The stamp of `meta`.
    pub fn of(meta: &Metadata) -> Stamp {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Stamp {
                ino: meta.ino(),
                size: meta.size(),
                mtime: meta.mtime(),
                mtime_nsec: meta.mtime_nsec(),
            }
        }
        #[cfg(not(unix))]
        {
            let t = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            Stamp {
                ino: 0,
                size: meta.len(),
                mtime: t.as_secs() as i64,
                mtime_nsec: i64::from(t.subsec_nanos()),
            }
        }
    }
}

/// What a listing learnt about one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// File name inside the directory.
    pub file: String,
    /// The file version this describes.
    pub stamp: Stamp,
    /// Its summary, when it is a session file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionSummary>,
    /// Why it is skipped, when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Header<'a> {
    v: u32,
    kind: &'a str,
}

/// The entries of `<dir>`'s index by file name (empty when there is none or it is not a
/// version-1 index; a line that does not parse is left out).
pub fn load(dir: &Path) -> HashMap<String, Entry> {
    let Ok(text) = fs::read(dir.join(INDEX_FILE)) else {
        return HashMap::new();
    };
    let mut lines = text.split(|b| *b == b'\n');
    let ours = lines
        .next()
        .and_then(|l| serde_json::from_slice::<Header<'_>>(l).ok())
        .is_some_and(|h| h.v == INDEX_VERSION && h.kind == INDEX_KIND);
    if !ours {
        return HashMap::new();
    }
    lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice::<Entry>(l).ok())
        .map(|e| (e.file.clone(), e))
        .collect()
}

/// Replaces `<dir>`'s index with `entries` (best effort: a directory that cannot be written
/// keeps listing by reading the files).
pub fn store<'a>(dir: &Path, entries: impl Iterator<Item = &'a Entry>) {
    let mut out = Vec::with_capacity(64 * 1024);
    let header = Header {
        v: INDEX_VERSION,
        kind: INDEX_KIND,
    };
    if serde_json::to_writer(&mut out, &header).is_err() {
        return;
    }
    out.push(b'\n');
    for e in entries {
        if serde_json::to_writer(&mut out, e).is_err() {
            return;
        }
        out.push(b'\n');
    }
    let _ = replace_file(&dir.join(INDEX_FILE), &out, false);
}
