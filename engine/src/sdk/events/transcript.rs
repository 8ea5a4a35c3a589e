//! Session transcripts (session JSON `"transcript": true | "DIR"`): every event the session
//! emits is also logged for `<DIR>/<session_id>.jsonl` (`true`: `<cwd>/.robota/logs`, the
//! directory Robota uses) before the host gets it, one line per event, redacted. A hot event's
//! line is only recorded (copied, with the time) on the emitting thread; the transcript writer
//! thread formats a turn's lines, writes them and fsyncs after `turn_completed` was passed on
//! (off the turn's path; a subagent's turn waits for it); `session_closed` of a closed session
//! is passed on once every line is on disk, that of a freed one hands the last lines over
//! without waiting (freeing never blocks) and the end of the runtime waits for them. A
//! transcript that cannot be opened or written gives one `WARNING` event
//! (`code:"TRANSCRIPT_FAILED"`; a failure of the writer thread is reported with the next
//! event) and the session goes on. With a session store on the runtime
//! (`robota_runtime_set_store`) the lines are appended through it instead of a file.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::sdk::config::SessionConfig;
use crate::sdk::events::{self, kind_name, tool_call_json, Event, EventSink, Payload};
use crate::session::transcript::LineSink;
use crate::session::transcript::Transcript;

/// `durable_turns`: a turn's lines are on disk before its `turn_completed` goes on (subagents:
/// the parent's `SubagentStop` hooks read `agent_transcript_path` right after); `released`:
/// the host freed the session (nobody gets `session_closed`, and freeing never blocks).
fn write(t: &Transcript, ev: &Event, durable_turns: bool, released: bool) -> std::io::Result<()> {
    let name = kind_name(ev.kind);
    match &ev.payload {
        Payload::Text(text) => t.record_text(name, ev.turn_id, "text", text)?,
        Payload::Json(Value::Object(m)) => t.record(name, ev.turn_id, m)?,
        Payload::JsonText(d) => t.record_json_text(name, ev.turn_id, d.as_bytes())?,
        Payload::Json(other) => {
            let mut m = Map::new();
            m.insert("data".into(), other.clone());
            t.record(name, ev.turn_id, &m)?
        }
        Payload::ToolCall(c) => match tool_call_json(c) {
            Value::Object(m) => t.record(name, ev.turn_id, &m)?,
            _ => t.record(name, ev.turn_id, &Map::new())?,
        },
    }
    match ev.kind {
        events::TURN_COMPLETED if durable_turns => t.sync()?,
        events::TURN_COMPLETED => t.sync_later(),
        // Freed: handed over, not waited for (`robota_session_free` never blocks); the lines
        // are on disk within a poll of the writer, at the latest when the runtime ends.
        events::SESSION_CLOSED if released => t.sync_later(),
        events::SESSION_CLOSED => t.sync()?,
        _ => {}
    }
    match t.take_error() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn warning(path: &Path, e: &dyn std::fmt::Display) -> Value {
    json!({"code": "TRANSCRIPT_FAILED",
           "message": format!("the transcript {} cannot be written ({e}); the session goes on without it", path.display())})
}

/// The session's transcript: appended to `store_lines` when given (the runtime's session
/// store; named `store:<session_id>`), else the file `<dir>/<session_id>.jsonl`.
fn open(
    store_lines: Option<Arc<dyn LineSink>>,
    dir: &Path,
    session_id: &str,
) -> Result<Transcript, Value> {
    if let Some(sink) = store_lines {
        let name = format!("store:{session_id}");
        return Transcript::open_sink(&name, session_id, sink)
            .map_err(|e| warning(Path::new(&name), &e));
    }
    Transcript::open(dir, session_id)
        .map_err(|e| warning(&dir.join(format!("{session_id}.jsonl")), &e))
}

/// Wraps `sink` so every event is logged first (into `store_lines` when given, see `open`).
/// Returns the sink and, when the transcript
/// cannot be opened, the `WARNING` payload to emit once the session exists.
pub fn attach(
    store_lines: Option<Arc<dyn LineSink>>,
    sink: EventSink,
    cfg: &SessionConfig,
    session_id: &str,
    tool_names: &[String],
    released: Arc<AtomicBool>,
) -> (EventSink, Option<Value>) {
    let Some(dir) = &cfg.transcript else {
        return (sink, None);
    };
    let t = match open(store_lines, dir, session_id) {
        Ok(t) => t,
        Err(w) => return (sink, Some(w)),
    };
    let system = cfg.system_prompt.clone().unwrap_or_default();
    let init = json!({"cwd": cfg.cwd, "model": cfg.model, "provider": cfg.provider,
                      "systemPromptLength": system.chars().count(), "systemPrompt": system,
                      "tools": tool_names});
    if let Value::Object(m) = &init {
        if let Err(e) = t.record("session_init", 0, m) {
            return (sink, Some(warning(t.path(), &e)));
        }
    }
    let failed = AtomicBool::new(false);
    let durable_turns = cfg.params.agents.depth > 0;
    let tapped: EventSink = Arc::new(move |ev: Event| {
        if !failed.load(Ordering::Relaxed) {
            let freed = released.load(Ordering::Acquire);
            if let Err(e) = write(&t, &ev, durable_turns, freed) {
                if !failed.swap(true, Ordering::Relaxed) {
                    sink(Event::json(
                        events::WARNING,
                        ev.turn_id,
                        warning(t.path(), &e),
                    ));
                }
            }
        }
        sink(ev)
    });
    (tapped, None)
}
