//! The JSONL session log (reference §11.7): `<dir>/<session_id>.jsonl`, one JSON object per
//! line, `{"timestamp","sessionId","event",…fields}`, append-only. Secret-looking keys
//! (`api_key`, `authorization`, `access_token`, `refresh_token`, `secret`, `password`,
//! `x-api-key`, case-insensitive, whole key) are written as `"[REDACTED]"` at any depth.
//! Lines are formatted into memory and written by a background thread
//! ([`super::transcript_writer`]): at the end of each turn ([`Transcript::sync_later`]: written
//! and fsync'd after the turn, off its path) and when the log is closed ([`Transcript::sync`],
//! which waits until everything is on disk).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};

use super::transcript_payloads::{Payloads, PAYLOAD_LIMIT_BYTES};
use super::transcript_writer::Target;

/// What redacted values are written as.
pub const REDACTED: &str = "[REDACTED]";

/// Whether `key` names a secret (the reference's pattern
/// `api[-_]?key|authorization|access[-_]?token|refresh[-_]?token|secret|password|x[-_]?api[-_]?key`,
/// whole key, any case).
pub fn is_secret_key(key: &str) -> bool {
    // No allocation: this runs for every key of every line.
    let k = key.as_bytes();
    let eq = |a: &[u8], b: &str| a.eq_ignore_ascii_case(b.as_bytes());
    let starts = |a: &[u8], p: &str| a.len() >= p.len() && eq(&a[..p.len()], p);
    let ends = |a: &[u8], p: &str| a.len() >= p.len() && eq(&a[a.len() - p.len()..], p);
    let sep = |s: &[u8], a: &str, b: &str| {
        starts(s, a)
            && ends(&s[a.len()..], b)
            && matches!(&s[a.len()..s.len() - b.len()], b"" | b"-" | b"_")
    };
    eq(k, "authorization")
        || eq(k, "secret")
        || eq(k, "password")
        || sep(k, "api", "key")
        || sep(k, "access", "token")
        || sep(k, "refresh", "token")
        || (starts(k, "x") && {
            let r = &k[1..];
            let r = r
                .strip_prefix(b"-")
                .or_else(|| r.strip_prefix(b"_"))
                .unwrap_or(r);
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
pub(super) fn redacted_json_text(key: &str, v: &Value) -> Option<String> {
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

/// Formatted lines are handed to the writer thread once this many bytes are waiting (and at
/// every [`Transcript::sync_later`] / [`Transcript::sync`]).
pub const HANDOFF_BYTES: usize = 64 * 1024;

/// An open session log. Lines are formatted into memory on the caller's thread; the writer
/// thread ([`super::transcript_writer`]) writes them and fsyncs.
pub struct Transcript {
    path: PathBuf,
    /// `","sessionId":"<id>","event":"`, the part of every line between timestamp and event.
    mid: Vec<u8>,
    out: Mutex<Out>,
    target: Arc<Target>,
    payloads: Payloads,
}

/// Lines not yet handed to the writer, the last timestamp written (formatted once per
/// millisecond).
struct Out {
    pending: Vec<u8>,
    /// The last batch handed over, and whether lines came since the last fsync'd one.
    last_seq: u64,
    dirty: bool,
    stamp_ms: i64,
    stamp: String,
}

impl Out {
    fn refresh_stamp(&mut self) {
        // The clock read alone per line; the calendar work once per millisecond.
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        if ms != self.stamp_ms || self.stamp.is_empty() {
            self.stamp_ms = ms;
            self.stamp = chrono::DateTime::from_timestamp_millis(ms)
                .unwrap_or_default()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        }
    }
}

/// Appends `s` as a JSON string (without escaping when it needs none, as event names).
fn push_str(w: &mut Vec<u8>, s: &str) -> io::Result<()> {
    if s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        w.push(b'"');
        w.extend_from_slice(s.as_bytes());
        w.push(b'"');
        Ok(())
    } else {
        Ok(serde_json::to_writer(w, s)?)
    }
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
        let mut mid = b"\",\"sessionId\":".to_vec();
        serde_json::to_writer(&mut mid, session_id)?;
        mid.extend_from_slice(b",\"event\":");
        Ok(Transcript {
            path,
            mid,
            out: Mutex::new(Out {
                pending: Vec::with_capacity(8 * 1024),
                last_seq: 0,
                dirty: false,
                stamp_ms: 0,
                stamp: String::new(),
            }),
            target: Target::new(file),
            payloads: Payloads::new(dir, session_id, PAYLOAD_LIMIT_BYTES),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Out> {
        self.out.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends one line: `{"timestamp","sessionId","event","turn_id"?,…fields}` (fields named
    /// `v` and `type` are left out; `turn_id` 0 is left out; a field named like a line key,
    /// e.g. a message's own `timestamp`, is written as `payload_<name>`). A field whose JSON
    /// exceeds the payload limit goes to a payload file (see [`super::transcript_payloads`]).
    /// Nothing is written after the writer failed ([`Self::take_error`]).
    pub fn record(&self, event: &str, turn_id: u64, fields: &Map<String, Value>) -> io::Result<()> {
        if self.target.failed() {
            return Ok(());
        }
        let mut guard = self.lock();
        let start = guard.pending.len();
        let line = self.line(&mut guard, event, turn_id, fields);
        self.finish_line(&mut guard, start, line)
    }

    fn line(
        &self,
        out: &mut Out,
        event: &str,
        turn_id: u64,
        fields: &Map<String, Value>,
    ) -> io::Result<()> {
        self.head(out, event, turn_id)?;
        let w = &mut out.pending;
        for (k, v) in fields {
            if k == "v" || k == "type" || (k == "turn_id" && turn_id != 0) {
                continue;
            }
            w.push(b',');
            if matches!(k.as_str(), "timestamp" | "sessionId" | "event") {
                w.extend_from_slice(b"\"payload_");
                w.extend_from_slice(k.as_bytes());
                w.push(b'"');
            } else {
                serde_json::to_writer(&mut *w, k)?;
            }
            w.push(b':');
            if is_secret_key(k) {
                serde_json::to_writer(&mut *w, REDACTED)?;
                continue;
            }
            let at = w.len();
            serde_json::to_writer(&mut *w, &Redacted(v))?;
            if w.len() - at > self.payloads.limit() {
                w.truncate(at);
                serde_json::to_writer(&mut *w, &self.payloads.normalize(v)?)?;
            }
        }
        w.extend_from_slice(b"}\n");
        Ok(())
    }

    /// Appends one line with a single text field (`{…,"<key>":"<text>"}`).
    pub fn record_text(&self, event: &str, turn_id: u64, key: &str, text: &str) -> io::Result<()> {
        if self.target.failed() {
            return Ok(());
        }
        let mut guard = self.lock();
        let start = guard.pending.len();
        let line = self.head(&mut guard, event, turn_id).and_then(|()| {
            let w = &mut guard.pending;
            w.push(b',');
            push_str(w, key)?;
            w.push(b':');
            serde_json::to_writer(&mut *w, text)?;
            w.extend_from_slice(b"}\n");
            Ok(())
        });
        self.finish_line(&mut guard, start, line)
    }

    /// After a line: a failed one is taken back whole; many waiting bytes go to the writer.
    fn finish_line(&self, out: &mut Out, start: usize, line: io::Result<()>) -> io::Result<()> {
        if line.is_err() {
            out.pending.truncate(start);
            return line;
        }
        out.dirty = true;
        if out.pending.len() >= HANDOFF_BYTES {
            self.hand_off(out, false);
        }
        line
    }

    /// Writes a line's first fields.
    fn head(&self, out: &mut Out, event: &str, turn_id: u64) -> io::Result<()> {
        out.refresh_stamp();
        let w = &mut out.pending;
        w.extend_from_slice(b"{\"timestamp\":\"");
        w.extend_from_slice(out.stamp.as_bytes());
        w.extend_from_slice(&self.mid);
        push_str(w, event)?;
        if turn_id != 0 {
            w.extend_from_slice(b",\"turn_id\":");
            w.extend_from_slice(crate::core::util::decimal(turn_id, &mut [0; 20]).as_bytes());
        }
        Ok(())
    }

    /// Hands the waiting lines to the writer (to be fsync'd after them when `sync`, which
    /// is skipped when nothing came since the last fsync); returns the last batch's number.
    fn hand_off(&self, out: &mut Out, sync: bool) -> u64 {
        if out.pending.is_empty() && !(sync && out.dirty) {
            return out.last_seq;
        }
        let (seq, next) = self.target.submit(std::mem::take(&mut out.pending), sync);
        out.pending = next;
        out.last_seq = seq;
        out.dirty = !sync;
        seq
    }

    /// Hands the lines formatted so far to the writer thread, which writes them and fsyncs the
    /// file; returns at once (at the end of each turn).
    pub fn sync_later(&self) {
        let mut out = self.lock();
        self.hand_off(&mut out, true);
    }

    /// Writes every line so far and fsyncs the file; returns when they are on disk (or the
    /// writer failed: its error).
    pub fn sync(&self) -> io::Result<()> {
        let seq = {
            let mut out = self.lock();
            self.hand_off(&mut out, true)
        };
        self.target.wait(seq);
        match self.target.error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The writer's failure (a write or fsync), once: lines handed over since were dropped and
    /// no more are written.
    pub fn take_error(&self) -> Option<io::Error> {
        self.target.take_error()
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
