//! Transcript lines between the event and the file: a [`Batch`] holds the lines a session
//! recorded, most of them not formatted yet (a text delta's text, an event's JSON text, each
//! with the time, turn and event name it was recorded with: one copy on the emitting thread);
//! the writer thread formats them ([`LineFormat::format`]) into
//! `{"timestamp","sessionId","event","turn_id"?,…fields}` lines just before it writes them.
//! Lines of the cold events (built as maps) arrive formatted.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use super::payloads::Payloads;
use super::splice::splice;
use super::{is_secret_key, Redacted, REDACTED};
use crate::core::json_bytes::push_json_string;

/// How a recorded line is to be formatted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Already formatted (the whole line).
    Line,
    /// One text field: `,"<key>":"<text>"`.
    Text,
    /// The members of a JSON object (an event already written as JSON text).
    Json,
}

/// One recorded line (its body follows the previous line's in [`Batch::raw`]).
#[derive(Clone, Copy)]
struct Entry {
    /// When it was recorded (the event's time), in milliseconds since the epoch.
    ms: i64,
    turn_id: u64,
    form: Form,
    event: &'static str,
    key: &'static str,
    body_len: usize,
}

/// Lines recorded and not written yet, in order.
#[derive(Default)]
pub(super) struct Batch {
    entries: Vec<Entry>,
    raw: Vec<u8>,
}

impl Batch {
    /// An empty batch with room for a turn of short lines (allocated when the transcript is
    /// opened, not while a turn records).
    pub(super) fn with_capacity() -> Self {
        Batch {
            entries: Vec::with_capacity(64),
            raw: Vec::with_capacity(8 * 1024),
        }
    }

    /// An empty batch with the room `other` has (one that replaces a full batch).
    pub(super) fn with_capacity_like(other: &Batch) -> Self {
        Batch {
            entries: Vec::with_capacity(other.entries.capacity()),
            raw: Vec::with_capacity(other.raw.capacity()),
        }
    }

    /// Whether no line is waiting.
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Bytes waiting (about what the lines will take, less their heads).
    pub(super) fn len(&self) -> usize {
        self.raw.len()
    }

    /// Empties it, keeping its memory.
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.raw.clear();
    }

    /// Memory held.
    pub(super) fn capacity(&self) -> usize {
        self.raw.capacity() + self.entries.capacity() * std::mem::size_of::<Entry>()
    }

    fn push(
        &mut self,
        form: Form,
        ms: i64,
        turn_id: u64,
        event: &'static str,
        key: &'static str,
        body: &[u8],
    ) {
        self.raw.extend_from_slice(body);
        self.entries.push(Entry {
            ms,
            turn_id,
            form,
            event,
            key,
            body_len: body.len(),
        });
    }

    /// Records a line with one text field, recorded at `ms` (since the epoch).
    pub(super) fn push_text(
        &mut self,
        ms: i64,
        event: &'static str,
        turn_id: u64,
        key: &'static str,
        text: &str,
    ) {
        self.push(Form::Text, ms, turn_id, event, key, text.as_bytes());
    }

    /// Records a line with the members of the JSON object `text`, recorded at `ms`.
    pub(super) fn push_json(&mut self, ms: i64, event: &'static str, turn_id: u64, text: &[u8]) {
        self.push(Form::Json, ms, turn_id, event, "", text);
    }

    /// Formats a whole line now (`line` appends it to the buffer it is given).
    pub(super) fn push_line(
        &mut self,
        line: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
    ) -> io::Result<()> {
        let start = self.raw.len();
        if let Err(e) = line(&mut self.raw) {
            self.raw.truncate(start);
            return Err(e);
        }
        self.entries.push(Entry {
            ms: 0,
            turn_id: 0,
            form: Form::Line,
            event: "",
            key: "",
            body_len: self.raw.len() - start,
        });
        Ok(())
    }
}

/// A timestamp, `YYYY-MM-DDTHH:MM:SS.mmmZ`, formatted once per second (within a second only
/// its milliseconds are rewritten).
#[derive(Default)]
pub(super) struct Stamp {
    ms: i64,
    text: Vec<u8>,
}

impl Stamp {
    /// The text of `ms`.
    pub(super) fn at(&mut self, ms: i64) -> &[u8] {
        if ms == self.ms && !self.text.is_empty() {
            return &self.text;
        }
        let same_second = ms.div_euclid(1000) == self.ms.div_euclid(1000);
        self.ms = ms;
        if same_second && self.text.len() == 24 && self.text[19] == b'.' {
            let m = ms.rem_euclid(1000);
            self.text[20] = b'0' + (m / 100) as u8;
            self.text[21] = b'0' + (m / 10 % 10) as u8;
            self.text[22] = b'0' + (m % 10) as u8;
        } else {
            self.text = crate::core::util::iso_millis(
                chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default(),
            )
            .into_bytes();
        }
        &self.text
    }
}

/// What the writer keeps between batches (no allocation per line).
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) stamp: Stamp,
    keys: Vec<(usize, usize)>,
    /// The head of the last recorded line, up to its fields (a text line's: up to its text),
    /// and what it was made of: consecutive lines of one transcript, millisecond, event, turn
    /// and key share it (a turn's text deltas, mostly).
    head: Vec<u8>,
    head_of: Option<HeadOf>,
}

/// What a line head is made of (names by address: they are static strings).
#[derive(Clone, Copy, PartialEq, Eq)]
struct HeadOf {
    format: u64,
    ms: i64,
    event: (usize, usize),
    key: (usize, usize),
    turn_id: u64,
    form: Form,
}

impl Scratch {
    /// Appends the head of the recorded line `e` of `format`: `{"timestamp",…"turn_id"?` and,
    /// for a text line, `,"<key>":`; with room reserved for the rest of the line.
    fn push_head(&mut self, format: &LineFormat, e: &Entry, w: &mut Vec<u8>) -> io::Result<()> {
        let ms = e.ms;
        let of = HeadOf {
            format: format.id,
            ms,
            event: (e.event.as_ptr() as usize, e.event.len()),
            key: (e.key.as_ptr() as usize, e.key.len()),
            turn_id: e.turn_id,
            form: e.form,
        };
        if self.head_of != Some(of) {
            self.head_of = None;
            self.head.clear();
            format.head(
                &mut self.head,
                self.stamp.at(ms),
                e.event.as_bytes(),
                e.turn_id,
            )?;
            if e.form == Form::Text {
                self.head.push(b',');
                push_str(&mut self.head, e.key.as_bytes())?;
                self.head.push(b':');
            }
            self.head_of = Some(of);
        }
        w.reserve(self.head.len() + e.body_len + 16);
        w.extend_from_slice(&self.head);
        Ok(())
    }
}

/// Whether a field is named like one of the line's own keys (written `payload_<name>`).
pub(super) fn is_line_key(key: &[u8]) -> bool {
    matches!(key, b"timestamp" | b"sessionId" | b"event")
}

/// Whether `s` is written as a JSON string without escapes and is a plain name.
fn is_plain(s: &[u8]) -> bool {
    s.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// How one transcript's lines are written.
pub(super) struct LineFormat {
    /// Tells this format from every other one of the process (for [`Scratch`]).
    id: u64,
    /// `","sessionId":"<id>","event":`, the part of every line between timestamp and event.
    mid: Vec<u8>,
    pub(super) payloads: Payloads,
}

/// Appends `n` in decimal.
fn push_u64(w: &mut Vec<u8>, n: u64) {
    w.extend_from_slice(crate::core::util::decimal(n, &mut [0; 20]).as_bytes());
}

/// Appends `s` as a JSON string (without escaping when it needs none, as event names).
fn push_str(w: &mut Vec<u8>, s: &[u8]) -> io::Result<()> {
    if is_plain(s) {
        w.reserve(s.len() + 2);
        w.push(b'"');
        w.extend_from_slice(s);
        w.push(b'"');
        Ok(())
    } else {
        let s = std::str::from_utf8(s).map_err(io::Error::other)?;
        Ok(serde_json::to_writer(w, s)?)
    }
}

impl LineFormat {
    /// The format of the transcript of `session_id`.
    pub(super) fn new(session_id: &str, payloads: Payloads) -> io::Result<Self> {
        let mut mid = b"\",\"sessionId\":".to_vec();
        serde_json::to_writer(&mut mid, session_id)?;
        mid.extend_from_slice(b",\"event\":");
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Ok(LineFormat { id, mid, payloads })
    }

    /// Writes a line's first fields.
    pub(super) fn head(
        &self,
        w: &mut Vec<u8>,
        stamp: &[u8],
        event: &[u8],
        turn_id: u64,
    ) -> io::Result<()> {
        w.extend_from_slice(b"{\"timestamp\":\"");
        w.extend_from_slice(stamp);
        w.extend_from_slice(&self.mid);
        push_str(w, event)?;
        if turn_id != 0 {
            w.extend_from_slice(b",\"turn_id\":");
            push_u64(w, turn_id);
        }
        Ok(())
    }

    /// Writes a line's fields after its head, and its end (the exact path: see
    /// [`super::Transcript::record`]).
    pub(super) fn fields(
        &self,
        w: &mut Vec<u8>,
        turn_id: u64,
        fields: &Map<String, Value>,
    ) -> io::Result<()> {
        for (k, v) in fields {
            if k == "v" || k == "type" || (k == "turn_id" && turn_id != 0) {
                continue;
            }
            w.push(b',');
            if is_line_key(k.as_bytes()) {
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

    /// Appends the lines of `batch` to `w`. On a failure the lines before the failing one
    /// stay in `w`, complete.
    pub(super) fn format(
        &self,
        batch: &Batch,
        scratch: &mut Scratch,
        w: &mut Vec<u8>,
    ) -> io::Result<()> {
        let mut at = 0;
        for e in &batch.entries {
            let end = at + e.body_len;
            let Some(body) = batch.raw.get(at..end) else {
                return Err(io::Error::other("a transcript batch is inconsistent"));
            };
            at = end;
            let start = w.len();
            let line = match e.form {
                Form::Line => {
                    w.extend_from_slice(body);
                    Ok(())
                }
                Form::Text => scratch.push_head(self, e, w).map(|()| {
                    push_json_string(w, body);
                    w.extend_from_slice(b"}\n");
                }),
                Form::Json => scratch
                    .push_head(self, e, w)
                    .and_then(|()| self.json(w, e.turn_id, body, &mut scratch.keys)),
            };
            if let Err(err) = line {
                w.truncate(start);
                return Err(err);
            }
        }
        Ok(())
    }

    /// The fields of a JSON object text: copied when [`splice`] proves that the same, else
    /// parsed and written by [`Self::fields`] (text that is not an object: no fields).
    pub(super) fn json(
        &self,
        w: &mut Vec<u8>,
        turn_id: u64,
        text: &[u8],
        keys: &mut Vec<(usize, usize)>,
    ) -> io::Result<()> {
        let at = w.len();
        if splice(text, turn_id, self.payloads.limit(), w, keys) {
            return Ok(());
        }
        w.truncate(at);
        let fields = match serde_json::from_slice(text) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        self.fields(w, turn_id, &fields)
    }
}

#[cfg(test)]
mod tests;
