//! The JSONL session log: `<dir>/<session_id>.jsonl`, one JSON object per
//! line, `{"timestamp","sessionId","event",…fields}`, append-only. Secret-looking keys
//! (`api_key`, `authorization`, `access_token`, `refresh_token`, `secret`, `password`,
//! `x-api-key`, case-insensitive, whole key) are written as `"[REDACTED]"` at any depth.
//! Lines are recorded into memory (a hot event's text only copied, with the time it was
//! recorded at: `format`) and formatted, written and fsync'd by a
//! background thread (`writer`): at the end of each turn
//! ([`Transcript::sync_later`]: after the turn, off its path) and when the log is closed
//! ([`Transcript::sync`], which waits until everything is on disk).
//!
//! This folder holds the log ([`Transcript`], here) and its parts: [`check`] (load and
//! validate a transcript), `format` (lines as recorded and as written), [`payloads`] (values
//! over the payload limit in files of their own), `pending` (lines waiting for the writer),
//! `splice` (a known line copied without parsing it) and `writer` (the one writer thread per
//! process).

pub mod check;
mod format;
pub mod payloads;
mod pending;
mod splice;
mod writer;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};

use self::format::LineFormat;
use self::payloads::{Payloads, PAYLOAD_LIMIT_BYTES};
pub use self::writer::LineSink;
use self::writer::{settle_path, Output, PendingGuard, Target};
use crate::core::event_time::event_millis;

/// What redacted values are written as.
pub const REDACTED: &str = "[REDACTED]";

/// Whether `key` names a secret (Robota's pattern
/// `api[-_]?key|authorization|access[-_]?token|refresh[-_]?token|secret|password|x[-_]?api[-_]?key`,
/// whole key, any case).
pub fn is_secret_key(key: &str) -> bool {
    is_secret_key_bytes(key.as_bytes())
}

/// [`is_secret_key`] of a key's UTF-8 bytes.
pub fn is_secret_key_bytes(k: &[u8]) -> bool {
    // No allocation: this runs for every key of every line. Most keys are turned away by
    // their length (6–9 or 11–13) and last letter (n, t, d or y, any case).
    if !matches!(k.len(), 6..=9 | 11..=13)
        || !matches!(k.last().map(|c| c | 0x20), Some(b'n' | b't' | b'd' | b'y'))
    {
        return false;
    }
    matches_secret_pattern(k)
}

/// Robota's secret-key pattern itself (see [`is_secret_key`]).
fn matches_secret_pattern(k: &[u8]) -> bool {
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

/// Recorded lines are handed to the writer thread once this many bytes are waiting (and at
/// every [`Transcript::sync_later`] / [`Transcript::sync`]).
pub const HANDOFF_BYTES: usize = 64 * 1024;

/// An open session log. Lines are recorded into memory on the caller's thread (a hot event's
/// text copied with its time, a cold event's line formatted) into the transcript's
/// `pending::Pending` lines; the writer thread (`writer`) takes them when handed
/// over, formats the rest, writes them and fsyncs.
pub struct Transcript {
    path: PathBuf,
    target: Arc<Target>,
}

impl Transcript {
    /// Opens (creating the directory and the file when missing) `<dir>/<session_id>.jsonl`
    /// for appending. `session_id` must already be a valid id. A last line without its line
    /// end (a process killed between two writes of one line) is cut off first, so new lines
    /// never glue onto it.
    pub fn open(dir: &Path, session_id: &str) -> io::Result<Transcript> {
        fs::create_dir_all(dir)?;
        let path = dir.join(format!("{session_id}.jsonl"));
        // A transcript of the same file may still have lines on their way (its session was
        // freed just now): they go first, and the tail is read only once they are written.
        settle_path(&path);
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)?;
        drop_torn_tail(&mut file)?;
        let format = LineFormat::new(
            session_id,
            Payloads::new(dir, session_id, PAYLOAD_LIMIT_BYTES),
        )?;
        Ok(Transcript {
            target: Target::new(path.clone(), Output::File(file), format),
            path,
        })
    }

    /// A log whose lines go to `sink` instead of a file (the host's session store); values are
    /// kept inline (no payload files). `name` stands for the path in messages.
    pub fn open_sink(
        name: &str,
        session_id: &str,
        sink: Arc<dyn LineSink>,
    ) -> io::Result<Transcript> {
        let path = PathBuf::from(name);
        settle_path(&path);
        let format = LineFormat::new(session_id, Payloads::new(&path, session_id, usize::MAX))?;
        Ok(Transcript {
            target: Target::new(path.clone(), Output::Sink(sink), format),
            path,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line: `{"timestamp","sessionId","event","turn_id"?,…fields}` (fields named
    /// `v` and `type` are left out; `turn_id` 0 is left out; a field named like a line key,
    /// e.g. a message's own `timestamp`, is written as `payload_<name>`). A field whose JSON
    /// exceeds the payload limit goes to a payload file (see [`payloads`]).
    /// The line is formatted now (an error, such as a payload file that cannot be written, is
    /// returned and the line left out). Nothing is written after the writer failed
    /// ([`Self::take_error`]).
    pub fn record(&self, event: &str, turn_id: u64, fields: &Map<String, Value>) -> io::Result<()> {
        if self.target.failed() {
            return Ok(());
        }
        let format = self.target.format();
        let mut guard = self.target.pending();
        let p = &mut *guard;
        let ms = p.line_millis(event_millis());
        let stamp = p.stamp.at(ms);
        let line = p.batch.push_line(|w| {
            format.head(w, stamp, event.as_bytes(), turn_id)?;
            format.fields(w, turn_id, fields)
        });
        self.finish_line(guard, line)
    }

    /// [`Self::record`] of the members of `text`, a JSON object as `serde_json` writes it (an
    /// event that is already JSON text): only copied now, with the event's time; the writer
    /// thread formats the line. It copies the members into the line without parsing them
    /// when a scan proves the line the same (`splice`), else parses them
    /// and writes them as [`Self::record`] does (text that is not an object: a line without
    /// fields); a failure there (a payload file) is the writer's ([`Self::take_error`]).
    pub fn record_json_text(
        &self,
        event: &'static str,
        turn_id: u64,
        text: &[u8],
    ) -> io::Result<()> {
        if self.target.failed() {
            return Ok(());
        }
        let mut p = self.target.pending();
        let ms = p.line_millis(event_millis());
        p.batch.push_json(ms, event, turn_id, text);
        self.finish_line(p, Ok(()))
    }

    /// Appends one line with a single text field (`{…,"<key>":"<text>"}`): only copied now,
    /// with the event's time; the writer thread formats it.
    pub fn record_text(
        &self,
        event: &'static str,
        turn_id: u64,
        key: &'static str,
        text: &str,
    ) -> io::Result<()> {
        if self.target.failed() {
            return Ok(());
        }
        let mut p = self.target.pending();
        let ms = p.line_millis(event_millis());
        p.batch.push_text(ms, event, turn_id, key, text);
        self.finish_line(p, Ok(()))
    }

    /// After a line: many waiting bytes go to the writer.
    fn finish_line(&self, mut p: PendingGuard<'_>, line: io::Result<()>) -> io::Result<()> {
        if line.is_ok() {
            p.unsynced = true;
            if p.batch.len() >= HANDOFF_BYTES {
                p.close_batch();
                self.hand_off(p, false);
            }
        }
        line
    }

    /// Hands the waiting lines to the writer (to be fsync'd after them when `sync`, which
    /// is skipped when nothing came since the last fsync); returns the hand-over's number.
    /// The writer's queue is entered after the lines' lock is released (a writer that could
    /// not be started runs on this thread and takes that lock).
    fn hand_off(&self, mut p: PendingGuard<'_>, sync: bool) -> u64 {
        let (seq, enqueue) = p.hand_over(sync);
        drop(p);
        if enqueue {
            self.target.enqueue();
        }
        seq
    }

    /// Hands the lines recorded so far to the writer thread, which formats and writes them and
    /// fsyncs the file; returns at once (at the end of each turn).
    pub fn sync_later(&self) {
        self.hand_off(self.target.pending(), true);
    }

    /// Writes every line so far and fsyncs the file; returns when they are on disk (or the
    /// writer failed: its error).
    pub fn sync(&self) -> io::Result<()> {
        let seq = self.hand_off(self.target.pending(), true);
        self.target.wait(seq);
        match self.target.error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The writer's failure (formatting a line, a write or an fsync), once: lines handed over
    /// since were dropped and no more are written.
    pub fn take_error(&self) -> Option<io::Error> {
        self.target.take_error()
    }
}

/// Truncates `file` after its last `\n` when its last byte is not one (empty stays empty).
fn drop_torn_tail(file: &mut File) -> io::Result<()> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
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
    file.set_len(0)
}

impl Drop for Transcript {
    /// Hands the last lines to the writer (to be written and fsync'd) without waiting: a
    /// session is freed without blocking (ABI); [`settle_all`] at the end of the runtime
    /// waits for them.
    fn drop(&mut self) {
        self.sync_later();
    }
}

/// Stops the transcript writer before its next batch until the guard is dropped: for tests of
/// paths that must not wait for the disk (such as `robota_session_free`).
#[doc(hidden)]
pub fn hold_writes() -> std::sync::MutexGuard<'static, ()> {
    writer::hold_writes()
}

/// Blocks until every transcript line handed over so far in this process is written (and
/// fsync'd where asked): called when a runtime ends, so the lines of the sessions it ran are
/// on disk when `robota_runtime_free` returns.
pub fn settle_all() {
    writer::settle_all();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_handed_over_in_a_row_share_one_write_per_poll() {
        use super::writer::POLL;
        let dir = tempfile::tempdir().unwrap();
        let t = Transcript::open(dir.path(), "session_paced").unwrap();
        let start = std::time::Instant::now();
        let mut turns = 0u64;
        // A turn's lines and its hand-over every 50 µs or so (the turn's own work stands in
        // as a pause), for ten polls: without pacing the writer takes each turn's lines as
        // soon as it is done with the last ones, fsync included (hundreds of passes).
        while start.elapsed() < POLL * 10 {
            for _ in 0..20 {
                t.record_text("text_delta", turns + 1, "text", "word ")
                    .unwrap();
            }
            t.sync_later();
            turns += 1;
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        let polls = (start.elapsed().as_millis() / POLL.as_millis()) as u64;
        let passes = t.target.passes();
        // One pass per poll, one more for a pass under way at the start, and room for the few
        // passes another test's `sync` (which is not paced) may start meanwhile.
        assert!(
            passes <= polls + 8,
            "{passes} passes in {polls} polls for {turns} turns"
        );
        t.sync().unwrap();
        let text = std::fs::read_to_string(t.path()).unwrap();
        assert_eq!(text.lines().count() as u64, turns * 20);
        let last = text.lines().last().unwrap();
        assert!(last.contains(&format!("\"turn_id\":{turns},")), "{last}");
    }

    #[test]
    fn the_quick_rejection_never_turns_a_secret_key_away() {
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for (a, b) in [
            ("api", "key"),
            ("access", "token"),
            ("refresh", "token"),
            ("xapi", "key"),
            ("x-api", "key"),
            ("x_api", "key"),
        ] {
            for sep in ["", "-", "_", "__"] {
                keys.push(format!("{a}{sep}{b}").into_bytes());
            }
        }
        keys.extend(["authorization", "secret", "password"].map(|k| k.as_bytes().to_vec()));
        let mut rng = fastrand::Rng::with_seed(11);
        let base = keys.clone();
        for k in &base {
            for _ in 0..20 {
                keys.push(
                    k.iter()
                        .map(|c| {
                            if rng.bool() {
                                c.to_ascii_uppercase()
                            } else {
                                *c
                            }
                        })
                        .collect(),
                );
            }
        }
        for _ in 0..20_000 {
            let n = rng.usize(0..16);
            keys.push(
                (0..n)
                    .map(|_| *rng.choice(b"apikeyPASWORDtnsecr-_x").unwrap_or(&b'a'))
                    .collect(),
            );
        }
        let mut secret = 0;
        for k in &keys {
            assert_eq!(
                is_secret_key_bytes(k),
                matches_secret_pattern(k),
                "{}",
                String::from_utf8_lossy(k)
            );
            secret += usize::from(matches_secret_pattern(k));
        }
        assert!(secret > 300, "{secret}");
    }
}
