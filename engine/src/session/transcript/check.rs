//! Reading and validating the session transcript this library writes: [`load`] parses the
//! non-blank lines; [`validate`] checks its invariants:
//! one session id, `session_init` first, timestamps in order, turns that start and complete
//! one at a time, every tool call (`tool_start`) ended exactly once inside its turn, every
//! tool call of a committed assistant message answered by exactly one tool message, nothing
//! after `session_closed` but the `session_init` of the same session resumed (its lines are
//! appended to the same file), and complete external payload references.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// Machine-readable code (`TOOL_RESULT_MISSING`, …).
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// 1-based line number, when the issue is at one line.
    pub line: Option<usize>,
}

/// Reads a transcript: each non-blank line as JSON, external payload references replaced by
/// their files' content. A missing file is an empty transcript; a line that is not JSON, or a
/// payload file that is missing or altered, is an error naming the line.
/// Reads a transcript: each non-blank line as JSON. A missing file is an empty transcript;
/// a last line without its line end (a writer killed mid-line) is left out; any other line
/// that is not JSON is an error naming its number.
pub fn load(path: &Path) -> Result<Vec<Value>, String> {
    let bytes = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let whole = match bytes.iter().rposition(|b| *b == b'\n') {
        Some(i) => &bytes[..=i],
        None => &[][..],
    };
    let text = std::str::from_utf8(whole)
        .map_err(|e| format!("cannot read {}: not UTF-8: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let mut v: Value = serde_json::from_str(l)
                .map_err(|e| format!("{} line {}: not JSON: {e}", path.display(), i + 1))?;
            let dir = path.parent().unwrap_or(Path::new("."));
            super::payloads::resolve(&mut v, dir)
                .map_err(|e| format!("{} line {}: {e}", path.display(), i + 1))?;
            Ok(v)
        })
        .collect()
}

fn issue(code: &'static str, line: Option<usize>, message: String) -> Issue {
    Issue {
        code,
        message,
        line,
    }
}

#[derive(Default)]
struct Checker {
    issues: Vec<Issue>,
    open_turn: Option<(u64, usize)>,
    /// tool_call_id → (line of tool_start, ends seen)
    tools: HashMap<String, (usize, u32)>,
    /// tool call ids of committed assistant messages → (line, answers seen)
    calls: HashMap<String, (usize, u32)>,
    closed_at: Option<usize>,
}

impl Checker {
    fn end_turn(&mut self) {
        let mut open: Vec<(String, usize)> = self
            .tools
            .drain()
            .filter(|(_, (_, ends))| *ends == 0)
            .map(|(id, (line, _))| (id, line))
            .collect();
        open.sort_by_key(|(_, l)| *l);
        for (id, line) in open {
            self.issues.push(issue(
                "TOOL_RESULT_MISSING",
                Some(line),
                format!("Tool call {id} has no tool_end before its turn ended."),
            ));
        }
    }

    fn line(&mut self, n: usize, ev: &str, e: &Value) {
        let turn = e.get("turn_id").and_then(Value::as_u64).unwrap_or(0);
        let call_id = || {
            e.get("tool_call_id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        match ev {
            "turn_started" => {
                if let Some((t, l)) = self.open_turn {
                    self.issues.push(issue(
                        "TURN_OVERLAP",
                        Some(n),
                        format!("Turn {turn} started while turn {t} (line {l}) was still running."),
                    ));
                    self.end_turn();
                }
                self.open_turn = Some((turn, n));
            }
            "turn_completed" => match self.open_turn {
                Some((t, _)) if t == turn => {
                    self.end_turn();
                    self.open_turn = None;
                }
                _ if e.get("started") == Some(&Value::Bool(false)) => {}
                _ => self.issues.push(issue(
                    "TURN_NOT_STARTED",
                    Some(n),
                    format!("Turn {turn} completed without having started."),
                )),
            },
            "tool_start" => {
                if self.open_turn.map(|(t, _)| t) != Some(turn) {
                    self.issues.push(issue(
                        "EVENT_OUTSIDE_TURN",
                        Some(n),
                        format!("tool_start of turn {turn} outside that turn."),
                    ));
                }
                self.tools.insert(call_id(), (n, 0));
            }
            "tool_end" => match self.tools.get_mut(&call_id()) {
                Some((_, ends)) => {
                    *ends += 1;
                    if *ends > 1 {
                        self.issues.push(issue(
                            "TOOL_RESULT_DUPLICATE",
                            Some(n),
                            format!("Tool call {} ended more than once.", call_id()),
                        ));
                    }
                }
                None => self.issues.push(issue(
                    "TOOL_RESULT_ORPHAN",
                    Some(n),
                    format!(
                        "tool_end for {} without a tool_start in its turn.",
                        call_id()
                    ),
                )),
            },
            "message" => self.message(n, e),
            "text_delta" | "thinking_delta" if self.open_turn.is_none() => {
                self.issues.push(issue(
                    "EVENT_OUTSIDE_TURN",
                    Some(n),
                    format!("{ev} outside a turn."),
                ));
            }
            _ => {}
        }
    }

    fn message(&mut self, n: usize, e: &Value) {
        let field = |a: &str, b: &str| e.get(a).or_else(|| e.get(b));
        if let Some(calls) = field("toolCalls", "tool_calls").and_then(Value::as_array) {
            for c in calls {
                if let Some(id) = c.get("id").and_then(Value::as_str) {
                    self.calls.insert(id.to_string(), (n, 0));
                }
            }
        }
        if e.get("role").and_then(Value::as_str) == Some("tool") {
            let id = field("toolCallId", "tool_call_id")
                .and_then(Value::as_str)
                .unwrap_or("");
            match self.calls.get_mut(id) {
                Some((_, answers)) => {
                    *answers += 1;
                    if *answers > 1 {
                        self.issues.push(issue(
                            "TOOL_ANSWER_DUPLICATE",
                            Some(n),
                            format!("Tool call {id} is answered more than once."),
                        ));
                    }
                }
                None => self.issues.push(issue(
                    "TOOL_ANSWER_ORPHAN",
                    Some(n),
                    format!("Tool message answers {id}, which no assistant message called."),
                )),
            }
        }
    }
}

/// The session id of the first entry (`""` when it has none).
fn session_of(entries: &[Value]) -> &str {
    entries
        .first()
        .and_then(|e| e.get("sessionId"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

impl Checker {
    /// The transcript must start with `session_init`.
    fn check_starts_with_init(&mut self, entries: &[Value]) {
        if entries
            .first()
            .and_then(|e| e.get("event"))
            .and_then(Value::as_str)
            != Some("session_init")
        {
            self.issues.push(issue(
                "SESSION_INIT_MISSING",
                entries.first().map(|_| 1),
                "The transcript does not start with session_init.".into(),
            ));
        }
    }

    /// The entry's `event` and `timestamp`; `None` (and an issue) when either is missing.
    fn envelope<'e>(&mut self, n: usize, e: &'e Value) -> Option<(&'e str, &'e str)> {
        let (Some(ev), Some(ts)) = (
            e.get("event").and_then(Value::as_str),
            e.get("timestamp").and_then(Value::as_str),
        ) else {
            self.issues.push(issue(
                "ENTRY_INVALID",
                Some(n),
                "An entry lacks \"event\" or \"timestamp\".".into(),
            ));
            return None;
        };
        Some((ev, ts))
    }

    /// The entry belongs to `session` and is not older than the entry before (`last_ts`).
    fn check_session_and_order(
        &mut self,
        n: usize,
        e: &Value,
        session: &str,
        ts: &str,
        last_ts: &str,
    ) {
        if e.get("sessionId").and_then(Value::as_str) != Some(session) {
            self.issues.push(issue(
                "SESSION_ID_MISMATCH",
                Some(n),
                format!("Entry belongs to another session than {session}."),
            ));
        }
        if ts < last_ts {
            self.issues.push(issue(
                "TIMESTAMP_ORDER",
                Some(n),
                format!("Timestamp {ts} is earlier than the one before ({last_ts})."),
            ));
        }
    }

    /// Tracks `session_closed` and a resuming `session_init`; any other entry after a close is
    /// an issue.
    fn track_close_and_resume(&mut self, n: usize, ev: &str) {
        if ev == "session_init" && n > 1 {
            // The session resumed (after a close, or after a process that was killed: a turn
            // it left open is not reported, as one at the end of a killed session's file is
            // not).
            self.closed_at = None;
            if self.open_turn.take().is_some() {
                self.tools.clear();
            }
        } else if let Some(at) = self.closed_at {
            self.issues.push(issue(
                "EVENT_AFTER_CLOSE",
                Some(n),
                format!("{ev} after session_closed (line {at})."),
            ));
        }
        if ev == "session_closed" {
            self.closed_at = Some(n);
        }
    }

    /// The entry's external payload references are complete.
    fn check_payload_refs(&mut self, n: usize, e: &Value) {
        if super::payloads::has_invalid_reference(e) {
            self.issues.push(issue(
                "PAYLOAD_REFERENCE_INVALID",
                Some(n),
                "An external payload reference lacks encoding \"json\", sha256, relativePath or byteLength.".into(),
            ));
        }
    }

    /// The checks at the end of the transcript: a turn left open in a closed session, and tool
    /// calls of committed assistant messages that no tool message answered; returns all issues.
    fn finish(mut self) -> Vec<Issue> {
        if let Some((t, l)) = self.open_turn {
            if self.closed_at.is_some() {
                self.issues.push(issue(
                    "TURN_NOT_COMPLETED",
                    Some(l),
                    format!("Turn {t} never completed."),
                ));
            }
        }
        let mut unanswered: Vec<(usize, String)> = self
            .calls
            .iter()
            .filter(|(_, (_, a))| *a == 0)
            .map(|(id, (l, _))| (*l, id.clone()))
            .collect();
        unanswered.sort();
        for (l, id) in unanswered {
            self.issues.push(issue(
                "TOOL_ANSWER_MISSING",
                Some(l),
                format!("Tool call {id} of an assistant message has no tool message."),
            ));
        }
        self.issues
    }
}

/// Checks a transcript's invariants; an empty list means it is valid.
pub fn validate(entries: &[Value]) -> Vec<Issue> {
    let mut c = Checker::default();
    let session = session_of(entries);
    c.check_starts_with_init(entries);
    let mut last_ts = "";
    for (i, e) in entries.iter().enumerate() {
        let n = i + 1;
        let Some((ev, ts)) = c.envelope(n, e) else {
            continue;
        };
        c.check_session_and_order(n, e, session, ts, last_ts);
        last_ts = ts;
        c.track_close_and_resume(n, ev);
        c.check_payload_refs(n, e);
        c.line(n, ev, e);
    }
    c.finish()
}
