//! One incremental Server-Sent-Events parser shared by every HTTP provider.
//!
//! Follows the WHATWG event-stream rules: lines end in CRLF, LF or CR (also when the CR and the
//! LF arrive in different chunks); `:` starts a comment; `data:` lines of one event are joined
//! with `\n`; a blank line dispatches the event; an event without `data` is not dispatched. At
//! end of stream [`SseParser::finish`] dispatches a last event whose closing blank line (or
//! final line terminator) never came; callers decide whether it is complete
//! (see [`SseParser::has_partial_event`]).
//!
//! Zero-copy: when an event's single `data` line lies inside the chunk being fed, the callback
//! receives a slice of that chunk; only events spanning chunks or with several data lines are
//! copied (into buffers reused across events).

use std::borrow::Cow;

/// One dispatched event. The slices live only for the callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The `event:` field, or `""` when absent (the spec's default type is `message`).
    pub event: &'a str,
    /// The `data:` lines joined with `\n`.
    pub data: &'a str,
    /// The last `id:` seen, or `""`.
    pub id: &'a str,
}

/// Where the data of the event being built lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Data {
    /// No data line yet.
    None,
    /// One data line, at this byte range of the chunk being fed.
    Borrowed(usize, usize),
    /// In `self.data`.
    Owned,
}

/// The incremental parser. Feed it bytes as they arrive.
#[derive(Debug)]
pub struct SseParser {
    /// An incomplete line carried over from the previous chunk.
    partial: Vec<u8>,
    /// The previous chunk ended in CR: a leading LF of the next chunk belongs to it.
    skip_lf: bool,
    event: String,
    id: String,
    data: String,
    data_state: Data,
    /// Bytes of lines seen since the last dispatch (to tell a cut event at EOF).
    pending_fields: bool,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new()
    }
}

fn to_str(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

impl SseParser {
    /// A fresh parser.
    pub fn new() -> Self {
        SseParser {
            partial: Vec::new(),
            skip_lf: false,
            event: String::new(),
            id: String::new(),
            data: String::new(),
            data_state: Data::None,
            pending_fields: false,
        }
    }

    /// Forgets everything (used before a retry on a new response).
    pub fn reset(&mut self) {
        self.partial.clear();
        self.skip_lf = false;
        self.event.clear();
        self.id.clear();
        self.data.clear();
        self.data_state = Data::None;
        self.pending_fields = false;
    }

    /// True when bytes of an event arrived that were never dispatched (a stream cut mid-event).
    pub fn has_partial_event(&self) -> bool {
        !self.partial.is_empty() || self.pending_fields
    }

    /// End of stream: dispatches the event still being built, as if a blank line followed (a
    /// last line without terminator counts as a line). Nothing happens when no event is pending.
    /// The parser is reset afterwards.
    pub fn finish<E>(
        &mut self,
        mut on_event: impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            let r = self.line_owned(&line, &mut on_event);
            self.partial = line;
            r?;
        }
        let r = if self.pending_fields {
            self.dispatch(None, &mut on_event)
        } else {
            Ok(())
        };
        self.reset();
        r
    }

    /// Feeds one chunk; calls `on_event` for every complete event, in order. Stops at the first
    /// error the callback returns (the parser state is then unspecified; call [`Self::reset`]).
    pub fn feed<E>(
        &mut self,
        chunk: &[u8],
        mut on_event: impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if chunk.is_empty() {
            return Ok(());
        }
        let mut pos = 0;
        if self.skip_lf {
            self.skip_lf = false;
            if chunk.first() == Some(&b'\n') {
                pos = 1;
            }
        }
        // Complete a line carried over from the previous chunk.
        if !self.partial.is_empty() {
            match memchr::memchr2(b'\n', b'\r', &chunk[pos..]) {
                None => {
                    self.partial.extend_from_slice(&chunk[pos..]);
                    return Ok(());
                }
                Some(i) => {
                    let end = pos + i;
                    let mut line = std::mem::take(&mut self.partial);
                    line.extend_from_slice(&chunk[pos..end]);
                    pos = self.after_terminator(chunk, end);
                    let r = self.line_owned(&line, &mut on_event);
                    line.clear();
                    self.partial = line;
                    r?;
                }
            }
        }
        while pos < chunk.len() {
            let Some(i) = memchr::memchr2(b'\n', b'\r', &chunk[pos..]) else {
                self.partial.extend_from_slice(&chunk[pos..]);
                break;
            };
            let (start, end) = (pos, pos + i);
            pos = self.after_terminator(chunk, end);
            self.line_in_chunk(chunk, start, end, &mut on_event)?;
        }
        // A borrowed data range must not outlive the chunk.
        if let Data::Borrowed(s, e) = self.data_state {
            self.data.clear();
            self.data.push_str(&to_str(&chunk[s..e]));
            self.data_state = Data::Owned;
        }
        Ok(())
    }

    /// Position after the line terminator at `end` (CRLF counts as one; a CR at the very end
    /// of the chunk may be followed by an LF in the next one).
    fn after_terminator(&mut self, chunk: &[u8], end: usize) -> usize {
        if chunk[end] == b'\r' {
            match chunk.get(end + 1) {
                Some(b'\n') => end + 2,
                Some(_) => end + 1,
                None => {
                    self.skip_lf = true;
                    end + 1
                }
            }
        } else {
            end + 1
        }
    }

    fn line_in_chunk<E>(
        &mut self,
        chunk: &[u8],
        start: usize,
        end: usize,
        on_event: &mut impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let line = &chunk[start..end];
        if line.is_empty() {
            return self.dispatch(Some(chunk), on_event);
        }
        let (field, vstart) = split_field(line);
        if field == b"data" && self.data_state == Data::None {
            self.pending_fields = true;
            self.data_state = Data::Borrowed(start + vstart, end);
            return Ok(());
        }
        if field == b"data" {
            if let Data::Borrowed(s, e) = self.data_state {
                self.data.clear();
                self.data.push_str(&to_str(&chunk[s..e]));
                self.data_state = Data::Owned;
            }
        }
        self.field(field, &line[vstart..]);
        Ok(())
    }

    fn line_owned<E>(
        &mut self,
        line: &[u8],
        on_event: &mut impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if line.is_empty() {
            return self.dispatch(None, on_event);
        }
        let (field, vstart) = split_field(line);
        self.field(field, &line[vstart..]);
        Ok(())
    }

    /// Applies a field whose value is copied (never the first borrowed data line).
    fn field(&mut self, field: &[u8], value: &[u8]) {
        match field {
            b"" => {} // a comment line (`:` first)
            b"data" => {
                self.pending_fields = true;
                if self.data_state != Data::None {
                    self.data.push('\n');
                } else {
                    self.data.clear();
                }
                self.data.push_str(&to_str(value));
                self.data_state = Data::Owned;
            }
            b"event" => {
                self.pending_fields = true;
                self.event.clear();
                self.event.push_str(&to_str(value));
            }
            b"id" if !value.contains(&0) => {
                self.id.clear();
                self.id.push_str(&to_str(value));
            }
            _ => {} // `retry` and unknown fields are ignored
        }
    }

    fn dispatch<E>(
        &mut self,
        chunk: Option<&[u8]>,
        on_event: &mut impl FnMut(SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.pending_fields = false;
        let state = std::mem::replace(&mut self.data_state, Data::None);
        let r = match (state, chunk) {
            (Data::None, _) => Ok(()),
            (Data::Borrowed(s, e), Some(c)) => {
                let bytes = &c[s..e];
                match std::str::from_utf8(bytes) {
                    Ok(data) => on_event(SseEvent {
                        event: &self.event,
                        data,
                        id: &self.id,
                    }),
                    Err(_) => {
                        let data = to_str(bytes);
                        on_event(SseEvent {
                            event: &self.event,
                            data: &data,
                            id: &self.id,
                        })
                    }
                }
            }
            // Borrowed without a chunk cannot happen (converted at chunk end); treat as owned.
            (Data::Borrowed(..), None) | (Data::Owned, _) => on_event(SseEvent {
                event: &self.event,
                data: &self.data,
                id: &self.id,
            }),
        };
        self.event.clear();
        self.data.clear();
        r
    }
}

/// Splits `field: value` (one optional space after the colon is dropped); a line without a
/// colon is a field with an empty value; a line starting with `:` yields the empty field name.
fn split_field(line: &[u8]) -> (&[u8], usize) {
    match memchr::memchr(b':', line) {
        None => (line, line.len()),
        Some(c) => {
            let v = if line.get(c + 1) == Some(&b' ') {
                c + 2
            } else {
                c + 1
            };
            (&line[..c], v)
        }
    }
}
