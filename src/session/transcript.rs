//! The JSONL session log (reference §11.7): `<dir>/<session_id>.jsonl`, one JSON object per
//! line, `{"timestamp","sessionId","event",…fields}`, append-only. Secret-looking keys
//! (`api_key`, `authorization`, `access_token`, `refresh_token`, `secret`, `password`,
//! `x-api-key`, case-insensitive, whole key) are written as `"[REDACTED]"` at any depth.
//! Lines are buffered and flushed + fsync'd by [`Transcript::sync`] (at the end of each turn).

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};

use crate::core::util::now_iso;

/// What redacted values are written as.
pub const REDACTED: &str = "[REDACTED]";

/// Whether `key` names a secret (the reference's pattern
/// `api[-_]?key|authorization|access[-_]?token|refresh[-_]?token|secret|password|x[-_]?api[-_]?key`,
/// whole key, any case).
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    let sep = |s: &str, a: &str, b: &str| {
        s.strip_prefix(a)
            .and_then(|r| r.strip_suffix(b))
            .is_some_and(|m| matches!(m, "" | "-" | "_"))
    };
    k == "authorization"
        || k == "secret"
        || k == "password"
        || sep(&k, "api", "key")
        || sep(&k, "access", "token")
        || sep(&k, "refresh", "token")
        || k.strip_prefix('x').is_some_and(|r| {
            let r = r.strip_prefix(['-', '_']).unwrap_or(r);
            sep(r, "api", "key")
        })
}

/// Serializes a value with secret keys redacted, without copying it.
pub struct Redacted<'a>(pub &'a Value);

impl Serialize for Redacted<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    if is_secret_key(k) {
                        map.serialize_entry(k, REDACTED)?;
                    } else if let Some(text) = redacted_json_text(k, v) {
                        map.serialize_entry(k, &text)?;
                    } else {
                        map.serialize_entry(k, &Redacted(v))?;
                    }
                }
                map.end()
            }
            Value::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(&Redacted(v))?;
                }
                seq.end()
            }
            other => other.serialize(s),
        }
    }
}

fn has_secret(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, v)| is_secret_key(k) || has_secret(v)),
        Value::Array(a) => a.iter().any(has_secret),
        _ => false,
    }
}

/// Tool-call `arguments` travel as JSON text: redacted inside when they hold a secret key.
fn redacted_json_text(key: &str, v: &Value) -> Option<String> {
    let Value::String(text) = v else { return None };
    if key != "arguments" || !text.trim_start().starts_with('{') {
        return None;
    }
    let parsed: Value = serde_json::from_str(text).ok()?;
    if !has_secret(&parsed) {
        return None;
    }
    serde_json::to_string(&Redacted(&parsed)).ok()
}

/// An open session log.
pub struct Transcript {
    path: PathBuf,
    session_id: String,
    out: Mutex<BufWriter<File>>,
}

impl Transcript {
    /// Opens (creating the directory and the file when missing) `<dir>/<session_id>.jsonl`
    /// for appending. `session_id` must already be a valid id. A last line without its line
    /// end (a process killed between two writes of one line) is cut off first, so new lines
    /// never glue onto it.
    pub fn open(dir: &Path, session_id: &str) -> io::Result<Transcript> {
        fs::create_dir_all(dir)?;
        let path = dir.join(format!("{session_id}.jsonl"));
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)?;
        drop_torn_tail(&mut file)?;
        Ok(Transcript {
            path,
            session_id: session_id.to_string(),
            out: Mutex::new(BufWriter::with_capacity(64 * 1024, file)),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line: `{"timestamp","sessionId","event","turn_id"?,…fields}` (fields named
    /// `v` and `type` are left out; `turn_id` 0 is left out; a field named like a line key,
    /// e.g. a message's own `timestamp`, is written as `payload_<name>`).
    pub fn record(&self, event: &str, turn_id: u64, fields: &Map<String, Value>) -> io::Result<()> {
        let mut w = self.out.lock().unwrap_or_else(|p| p.into_inner());
        self.head(&mut *w, event, turn_id)?;
        for (k, v) in fields {
            if k == "v" || k == "type" || (k == "turn_id" && turn_id != 0) {
                continue;
            }
            w.write_all(b",")?;
            if matches!(k.as_str(), "timestamp" | "sessionId" | "event") {
                w.write_all(b"\"payload_")?;
                w.write_all(k.as_bytes())?;
                w.write_all(b"\"")?;
            } else {
                serde_json::to_writer(&mut *w, k)?;
            }
            w.write_all(b":")?;
            if is_secret_key(k) {
                serde_json::to_writer(&mut *w, REDACTED)?;
            } else {
                serde_json::to_writer(&mut *w, &Redacted(v))?;
            }
        }
        w.write_all(b"}\n")
    }

    /// Appends one line with a single text field (`{…,"<key>":"<text>"}`).
    pub fn record_text(&self, event: &str, turn_id: u64, key: &str, text: &str) -> io::Result<()> {
        let mut w = self.out.lock().unwrap_or_else(|p| p.into_inner());
        self.head(&mut *w, event, turn_id)?;
        w.write_all(b",")?;
        serde_json::to_writer(&mut *w, key)?;
        w.write_all(b":")?;
        serde_json::to_writer(&mut *w, text)?;
        w.write_all(b"}\n")
    }

    fn head(&self, w: &mut impl Write, event: &str, turn_id: u64) -> io::Result<()> {
        w.write_all(b"{\"timestamp\":\"")?;
        w.write_all(now_iso().as_bytes())?;
        w.write_all(b"\",\"sessionId\":")?;
        serde_json::to_writer(&mut *w, &self.session_id)?;
        w.write_all(b",\"event\":")?;
        serde_json::to_writer(&mut *w, event)?;
        if turn_id != 0 {
            write!(w, ",\"turn_id\":{turn_id}")?;
        }
        Ok(())
    }

    /// Writes buffered lines out and fsyncs the file.
    pub fn sync(&self) -> io::Result<()> {
        let mut w = self.out.lock().unwrap_or_else(|p| p.into_inner());
        w.flush()?;
        w.get_ref().sync_data()
    }
}

/// Truncates `file` after its last `\n` when its last byte is not one (empty stays empty).
fn drop_torn_tail(file: &mut File) -> io::Result<()> {
    let len = file.metadata()?.len();
    let mut end = len;
    let mut buf = vec![0u8; 8192];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let part = &mut buf[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(part)?;
        if end == len && part.last() == Some(&b'\n') {
            return Ok(());
        }
        if let Some(i) = memchr::memrchr(b'\n', part) {
            return file.set_len(start + i as u64 + 1);
        }
        end = start;
    }
    if len > 0 {
        file.set_len(0)?;
    }
    Ok(())
}

impl Drop for Transcript {
    fn drop(&mut self) {
        let _ = self.sync();
    }
}
