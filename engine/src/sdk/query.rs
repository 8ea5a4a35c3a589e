//! One-shot query (Robota's `createQuery`, `robota_query` since ABI 1.1): a temporary
//! session built from the session JSON plus `"prompt"`, run to completion, closed. Permission
//! mode defaults to `bypassPermissions` (as Robota's `createQuery`). Every event is
//! handed to `deliver` on the calling thread, in order, before this returns (the last one is
//! `session_closed`). Result: `{"v":1,"response","stop_reason","usage","output"?,
//! "session_id"?,"messages"}` (`output`: the validated answer when the session JSON has an
//! `output_schema`; `session_id` when the session was persisted; `messages` the conversation
//! the model saw, system prompt included).

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use tokio_util::sync::CancellationToken;

use super::config::{parse_object, parse_session_map, SessionConfig};
use super::error::{ErrorCode, SdkError, SdkResult};
use super::events::{self, Event, EventSink};
use super::interactive::{InteractiveSession, TurnInput};
use super::runtime::RuntimeShared;

/// Runs the query. `can_answer`: the host can answer requests (it passed a callback).
pub fn run(
    shared: Arc<RuntimeShared>,
    query_json: &str,
    can_answer: bool,
    deliver: impl FnMut(Event),
) -> SdkResult<Value> {
    let mut map = parse_object("query_json", query_json)?;
    let prompt = match map.remove("prompt") {
        Some(Value::String(p)) => p,
        Some(_) => {
            return Err(SdkError::config(
                "query_json: field \"prompt\" must be a string",
            ))
        }
        None => {
            return Err(SdkError::config(
                "query_json: missing required field \"prompt\"",
            ))
        }
    };
    let images = map.remove("images");
    if !map.contains_key("permission_mode") {
        map.insert("permission_mode".into(), json!("bypassPermissions"));
    }
    let cfg = parse_session_map(&map)?;
    let input = TurnInput {
        text: prompt,
        images: super::interactive::images::parse(
            "query_json",
            images.as_ref(),
            std::path::Path::new(&cfg.cwd),
        )?,
        ..TurnInput::default()
    };
    let persist = cfg.persist;
    let Finished {
        mut completed,
        session,
    } = run_session(shared, cfg, input, can_answer, None, deliver)?;
    if completed["stop_reason"] == "error" || completed["stop_reason"] == "schema_error" {
        let msg = completed["error"].as_str().unwrap_or("the turn failed");
        let mut err = SdkError::new(ErrorCode::Provider, format!("the query failed: {msg}"));
        // The taxonomy class of what failed, as `robota_session_wait` reports it.
        if let Some(details) = completed.get_mut("error_details").map(Value::take) {
            err.details = Some(Box::new(details));
        }
        return Err(err);
    }
    let messages: Vec<Value> = session
        .conversation()
        .iter()
        .map(|m| serde_json::to_value(m.as_ref()).unwrap_or(Value::Null))
        .collect();
    let mut out = json!({
        "v": 1,
        "response": completed["response"],
        "stop_reason": completed["stop_reason"],
        "usage": completed["usage"],
        "messages": messages,
    });
    if let Some(output) = completed.get_mut("output").map(Value::take) {
        out["output"] = output;
    }
    if persist {
        out["session_id"] = json!(session.session_id());
    }
    Ok(out)
}

/// A temporary session run to the end of its one turn (and closed).
pub struct Finished {
    /// The turn's `turn_completed` payload (`stop_reason`, `response`, `error`, `usage`, …).
    pub completed: Value,
    /// The closed session (its conversation stays readable).
    pub session: InteractiveSession,
}

/// Builds a session from `cfg`, submits `input`, hands every event to `deliver` (on this
/// thread, in order, up to and including `session_closed`) and returns the turn's
/// `turn_completed` payload. Blocks the calling thread: from async code run it with
/// `spawn_blocking`. `cancel` (when given) aborts the turn when it fires. Used by
/// `robota_query` and by `assignTask`'s child sessions.
pub fn run_session(
    shared: Arc<RuntimeShared>,
    cfg: SessionConfig,
    input: TurnInput,
    can_answer: bool,
    cancel: Option<CancellationToken>,
    mut deliver: impl FnMut(Event),
) -> SdkResult<Finished> {
    let watch_shared = shared.clone();
    let (tx, rx) = mpsc::channel::<Event>();
    let tx = Mutex::new(tx);
    let sink: EventSink = Arc::new(move |e: Event| {
        // The receiver lives until `session_closed`; a send after that has nobody to tell.
        let _ = tx.lock().map(|t| t.send(e));
    });
    let session = InteractiveSession::new(shared, cfg, sink, can_answer, None)?;
    session.emit_startup_warnings();
    let turn = match session.submit(input) {
        Ok(t) => t,
        Err(e) => {
            session.release();
            return Err(e);
        }
    };
    // Aborts the turn when `cancel` fires; stops watching once the turn is over.
    let done = CancellationToken::new();
    let _stop_watch = done.clone().drop_guard();
    if let Some(cancel) = cancel {
        let s = session.clone();
        // Workers that cannot start have failed the turn already (`submit`).
        let _ = watch_shared.spawn_work(async move {
            tokio::select! {
                _ = cancel.cancelled() => { let _ = s.abort(turn); }
                _ = done.cancelled() => {}
            }
        });
    }
    let mut completed = Value::Null;
    let mut closing = false;
    while let Ok(ev) = rx.recv() {
        let kind = ev.kind;
        if kind == events::TURN_COMPLETED && ev.turn_id == turn {
            if let Some(v) = ev.json_value() {
                completed = v;
            }
        }
        deliver(ev);
        if kind == events::SESSION_CLOSED {
            break;
        }
        if kind == events::TURN_COMPLETED && !closing {
            closing = true;
            session.release();
        }
    }
    if completed.is_null() {
        return Err(SdkError::new(
            ErrorCode::Internal,
            "the query's turn ended without a turn_completed event",
        ));
    }
    Ok(Finished { completed, session })
}
