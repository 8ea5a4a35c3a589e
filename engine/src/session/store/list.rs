//! Listing saved sessions (newest `updatedAt` first, unreadable files skipped) and deleting one
//! (a no-op when it is absent).
//!
//! A listing reads only what it shows: the directory's index (`index`: what earlier
//! listings read, by file stamp) and, for files it does not know, the head of each file (the
//! summary fields are written first, one per line) and its last bytes (a file cut short does
//! not end with `}`), never the messages. A file whose head is not in that shape is parsed whole; a file that cannot be
//! read or parsed is skipped and reported by name.

use std::collections::HashMap;
use std::fs::{self, DirEntry, File};
use std::io::{self, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::index::{self, Entry, Stamp};
use super::{session_file_path, StoreError};

/// `kind` of a session file.
pub const SNAPSHOT_KIND: &str = "robota.session";

/// Bytes read from the start of a file for its summary.
const HEAD_BYTES: usize = 2048;
/// Threads reading heads at most.
const MAX_LIST_THREADS: usize = 4;
/// Fewer files than this per thread are not worth a thread.
const MIN_FILES_PER_THREAD: usize = 256;
/// Bytes read from the end of a file to check it is complete.
const TAIL_BYTES: u64 = 16;

/// One saved session as a listing shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// Session id.
    pub id: String,
    /// User-facing name (`null` when unnamed).
    pub name: Option<String>,
    /// Working directory.
    pub cwd: String,
    /// ISO creation time.
    pub created_at: String,
    /// ISO time of the last save.
    pub updated_at: String,
    /// Successful turns.
    pub message_count: u64,
}

/// A file a listing skipped.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkippedFile {
    /// File name inside the directory.
    pub file: String,
    /// Why.
    pub error: String,
}

/// The result of [`list`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    /// Newest `updated_at` first (ties: id).
    pub sessions: Vec<SessionSummary>,
    /// Unreadable or corrupt files, by name.
    pub skipped: Vec<SkippedFile>,
}

/// Lists `<dir>/*.json` (a missing directory lists nothing), keeping sessions whose `cwd`
/// equals `cwd` when given, newest first, at most `limit`. Files whose stamp the directory's
/// index knows are not opened (see [`index`]). Temp files of saves
/// whose process was killed before the rename are removed on the way.
pub fn list(dir: &Path, cwd: Option<&str>, limit: Option<usize>) -> Result<Listing, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Listing::default()),
        Err(e) => {
            return Err(StoreError::Io(format!(
                "cannot list \"{}\": {e}",
                dir.display()
            )))
        }
    };
    let files: Vec<(String, DirEntry)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            // What a save killed before its rename left behind.
            if crate::core::atomic_file::is_stale_temp_file(&name) {
                let _ = fs::remove_file(e.path());
                return None;
            }
            (name.ends_with(".json") && !name.starts_with('.')).then_some((name, e))
        })
        .collect();
    let known = index::load(dir);
    // Stat calls (and the reads of unknown files) are syscall-bound: split them over the cores.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, MAX_LIST_THREADS);
    let chunk = files.len().div_ceil(workers).max(MIN_FILES_PER_THREAD);
    let parts: Vec<Part<'_>> = std::thread::scope(|scope| {
        let known = &known;
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| scope.spawn(move || read_part(part, known)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let fresh = parts.iter().map(|p| p.fresh.len()).sum::<usize>();
    let cached = parts.iter().map(|p| p.cached.len()).sum::<usize>();
    let mut sessions: Vec<&SessionSummary> = Vec::with_capacity(files.len());
    let mut out = Listing::default();
    for p in &parts {
        let cached = p
            .cached
            .iter()
            .map(|e| (e.file.as_str(), e.session.as_ref().ok_or(e.error.as_ref())));
        let fresh = p
            .fresh
            .iter()
            .map(|(name, _, r)| (name.as_str(), r.as_ref().map_err(Some)));
        for (name, result) in cached.chain(fresh) {
            match result {
                Ok(s) => {
                    if cwd.is_none_or(|c| c == s.cwd) {
                        sessions.push(s);
                    }
                }
                Err(error) => out.skipped.push(SkippedFile {
                    file: name.to_string(),
                    error: error
                        .cloned()
                        .unwrap_or_else(|| "not a session file".into()),
                }),
            }
        }
    }
    sessions.sort_unstable_by(|a, b| {
        b.updated_at
            .cmp(&a.updated_at)
            .then_with(|| a.id.cmp(&b.id))
    });
    if let Some(n) = limit {
        sessions.truncate(n);
    }
    out.sessions = sessions.into_iter().cloned().collect();
    out.skipped.sort_unstable_by(|a, b| a.file.cmp(&b.file));
    if fresh > 0 || cached != known.len() {
        let entries = parts.iter().flat_map(|p| {
            let fresh = p.fresh.iter().filter_map(|(_, e, _)| e.as_ref());
            p.cached.iter().copied().chain(fresh)
        });
        index::store(dir, entries);
    }
    Ok(out)
}

/// Deletes `<dir>/<id>.json`; [`StoreError::NotFound`] when there is none.
pub fn delete(dir: &Path, id: &str) -> Result<(), StoreError> {
    let path = session_file_path(dir, id).map_err(StoreError::InvalidId)?;
    fs::remove_file(&path).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            StoreError::NotFound(format!(
                "no saved session \"{id}\" in \"{}\"",
                dir.display()
            ))
        } else {
            StoreError::Io(format!("cannot delete \"{}\": {e}", path.display()))
        }
    })
}

/// One positional read (no seek syscall where the OS has `pread`).
fn read_at(f: &mut File, offset: u64, buf: &mut [u8]) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}

/// What one listing thread found: the index entries of the files whose stamp it knew, and
/// per other file its new entry (none when it cannot be stat'ed) and its summary or why it
/// is skipped.
#[derive(Default)]
struct Part<'a> {
    cached: Vec<&'a Entry>,
    fresh: Vec<(String, Option<Entry>, Result<SessionSummary, String>)>,
}

fn read_part<'a>(files: &[(String, DirEntry)], known: &'a HashMap<String, Entry>) -> Part<'a> {
    let mut out = Part::default();
    for (name, dir_entry) in files {
        let stamp = dir_entry.metadata().ok().map(|m| Stamp::of(&m));
        let cached = known
            .get(name)
            .filter(|e| stamp.is_some_and(|s| s == e.stamp));
        if let Some(e) = cached {
            out.cached.push(e);
            continue;
        }
        let (stamp, result) = read_summary(&dir_entry.path());
        let entry = stamp.map(|stamp| Entry {
            file: name.clone(),
            stamp,
            session: result.as_ref().ok().cloned(),
            error: result.as_ref().err().cloned(),
        });
        out.fresh.push((name.clone(), entry, result));
    }
    out
}

/// The summary of one file, with the stamp of the version read (none when it cannot be
/// opened).
fn read_summary(path: &Path) -> (Option<Stamp>, Result<SessionSummary, String>) {
    let mut f = match File::open(path) {
        Ok(f) => f,
        Err(e) => return (None, Err(format!("cannot open: {e}"))),
    };
    let meta = match f.metadata() {
        Ok(m) => m,
        Err(e) => return (None, Err(e.to_string())),
    };
    let stamp = Stamp::of(&meta);
    (Some(stamp), summary_of_file(&mut f, meta.len()))
}

fn summary_of_file(f: &mut File, len: u64) -> Result<SessionSummary, String> {
    let mut head = vec![0u8; HEAD_BYTES.min(len as usize)];
    f.read_exact(&mut head).map_err(|e| e.to_string())?;
    if len as usize > HEAD_BYTES {
        let mut tail = [0u8; TAIL_BYTES as usize];
        read_at(f, len - TAIL_BYTES, &mut tail).map_err(|e| e.to_string())?;
        if tail.trim_ascii_end().last() != Some(&b'}') {
            return Err("the file is truncated (it does not end with '}')".into());
        }
        if let Some(s) = head_summary(&head) {
            return Ok(s);
        }
    }
    // Small or unusual files: parse the whole document (from the open file: the same version).
    let mut text = String::new();
    read_at_start(f, &mut text)?;
    let doc: Map<String, Value> =
        serde_json::from_str(&text).map_err(|e| format!("not a session file: {e}"))?;
    summary_of(&doc).ok_or_else(|| "not a session file: missing \"session_id\"".to_string())
}

/// The whole file, from its start, as text.
fn read_at_start(f: &mut File, text: &mut String) -> Result<(), String> {
    use std::io::{Seek, SeekFrom};
    f.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    f.read_to_string(text).map_err(|e| e.to_string())?;
    Ok(())
}

/// The summary fields from the head of a file written by the store: `{` then one
/// `  "key": scalar,` line per field, up to the first non-scalar value.
fn head_summary(head: &[u8]) -> Option<SessionSummary> {
    let text = std::str::from_utf8(head)
        .or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
        .ok()?;
    let mut lines = text.split('\n');
    if lines.next()? != "{" {
        return None;
    }
    let mut map = Map::new();
    for line in lines {
        let rest = line.strip_prefix("  \"")?;
        let (key, value) = rest.split_once("\": ")?;
        if value.starts_with(['{', '[']) {
            // Complete head: the summary fields come before the first non-scalar value.
            let ours = map.get("kind").and_then(Value::as_str) == Some(SNAPSHOT_KIND)
                && map.contains_key("cwd");
            return ours.then(|| summary_of(&map)).flatten();
        }
        let value = value.strip_suffix(',')?;
        map.insert(key.to_string(), serde_json::from_str(value).ok()?);
    }
    None
}

fn summary_of(doc: &Map<String, Value>) -> Option<SessionSummary> {
    let s = |k: &str| doc.get(k).and_then(Value::as_str).map(str::to_string);
    let config = doc.get("config").and_then(Value::as_object);
    let from_config = |k: &str| config.and_then(|c| c.get(k)).and_then(Value::as_str);
    Some(SessionSummary {
        id: s("session_id").or_else(|| s("id"))?,
        name: s("name").or_else(|| from_config("name").map(str::to_string)),
        cwd: s("cwd")
            .or_else(|| from_config("cwd").map(str::to_string))
            .unwrap_or_default(),
        created_at: s("created_at").unwrap_or_default(),
        updated_at: s("updated_at").unwrap_or_default(),
        message_count: doc
            .get("message_count")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    })
}
