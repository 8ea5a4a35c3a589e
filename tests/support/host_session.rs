//! A host session over the SDK (what the C ABI wraps) against a fake server: a runtime with one
//! provider `p`, events recorded ([`Recorder`], the one event recorder of the SDK-level tests),
//! turns submitted from input JSON and waited for.
#![allow(dead_code)]

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use robota_engine::sdk::config::parse_session_config;
use robota_engine::sdk::error::SdkError;
use robota_engine::sdk::events::{self, Event, Payload};
use robota_engine::sdk::interactive::{InteractiveSession, TurnInput};
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

/// A prompt of plain text (no display text, raw input, tool choice or host command).
pub fn text_input(text: &str) -> TurnInput {
    TurnInput {
        text: text.into(),
        display_input: None,
        raw_input: None,
        tool_choice: None,
        output_schema: None,
        host_command: None,
        images: Vec::new(),
        skill: None,
    }
}

/// Every event a session emitted, in order, with a condvar signalled at each one.
#[derive(Default)]
pub struct Recorder {
    events: Mutex<Vec<Event>>,
    cond: Condvar,
}

impl Recorder {
    /// A new recorder and the session event sink that feeds it.
    pub fn new() -> (Arc<Recorder>, events::EventSink) {
        let rec = Arc::new(Recorder::default());
        let r2 = rec.clone();
        let sink: events::EventSink = Arc::new(move |e: Event| {
            r2.events.lock().unwrap().push(e);
            r2.cond.notify_all();
        });
        (rec, sink)
    }

    /// The events so far (locked).
    pub fn events(&self) -> MutexGuard<'_, Vec<Event>> {
        self.events.lock().unwrap()
    }

    /// Takes the events so far out of the recorder.
    pub fn take(&self) -> Vec<Event> {
        std::mem::take(&mut *self.events())
    }

    /// The events of `kind` so far.
    pub fn of_kind(&self, kind: u32) -> Vec<Event> {
        self.events()
            .iter()
            .filter(|e| e.kind == kind)
            .cloned()
            .collect()
    }

    /// Payloads of the JSON events of `kind` so far (events without a JSON payload skipped).
    pub fn json(&self, kind: u32) -> Vec<Value> {
        self.events()
            .iter()
            .filter(|e| e.kind == kind)
            .filter_map(|e| match &e.payload {
                Payload::Json(v) => Some(v.clone()),
                Payload::JsonText(_) => e.json_value(),
                _ => None,
            })
            .collect()
    }

    /// Waits (condvar, `timeout` at most, then panics with `what`) until `found` returns
    /// something for the events so far; returns it.
    pub fn wait_until<R>(
        &self,
        timeout: Duration,
        what: &str,
        mut found: impl FnMut(&[Event]) -> Option<R>,
    ) -> R {
        let deadline = Instant::now() + timeout;
        let mut evs = self.events();
        loop {
            if let Some(r) = found(&evs) {
                return r;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "{what}");
            evs = self.cond.wait_timeout(evs, left).unwrap().0;
        }
    }
}

/// A runtime whose provider `p` is `provider` (a provider config entry).
pub fn runtime(provider: Value) -> Runtime {
    Runtime::from_json(&json!({"v":1,"providers":{"p": provider}}).to_string()).unwrap()
}

/// A runtime whose provider `s` is a `scripted` one with the fields of `script` (`turns`,
/// `fallback`), and runtime `env`.
pub fn scripted_runtime(script: Value, env: Value) -> Runtime {
    let mut entry = json!({"kind":"scripted"});
    for (k, v) in script.as_object().cloned().unwrap_or_default() {
        entry[k] = v;
    }
    Runtime::from_json(&json!({"v":1,"env":env,"providers":{"s": entry}}).to_string()).unwrap()
}

/// A session of `rt` from the session JSON `cfg`, its events recorded; `Err` is the SDK error.
pub fn recorded_session(
    rt: &Runtime,
    cfg: &Value,
) -> Result<(InteractiveSession, Arc<Recorder>), SdkError> {
    let cfg = parse_session_config(&cfg.to_string())?;
    let (seen, sink) = Recorder::new();
    let session = InteractiveSession::new(rt.shared().clone(), cfg, sink, false, None)?;
    Ok((session, seen))
}

/// A session of `rt` from `session` (merged over `{"provider":"p","model":"test-model"}`).
pub struct Host {
    pub session: InteractiveSession,
    pub seen: Arc<Recorder>,
}

impl Host {
    /// Opens the session; `Err` is the SDK error.
    pub fn open(rt: &Runtime, session: Value) -> Result<Host, SdkError> {
        let mut cfg = json!({"provider":"p","model":"test-model"});
        for (k, v) in session.as_object().cloned().unwrap_or_default() {
            cfg[k] = v;
        }
        let (session, seen) = recorded_session(rt, &cfg)?;
        Ok(Host { session, seen })
    }

    /// Submits `input` (input JSON) and waits for the turn.
    pub fn turn(&self, input: Value) -> Result<(), SdkError> {
        let t = self.session.submit(TurnInput::from_json_in(
            &input.to_string(),
            self.session.cwd(),
        )?)?;
        self.session.wait(t, Some(Duration::from_secs(30)))
    }

    /// Submits `input` without waiting; the turn id.
    pub fn submit(&self, input: Value) -> u64 {
        self.session
            .submit(TurnInput::from_json(&input.to_string()).unwrap())
            .unwrap()
    }

    /// Waits for turn `t`.
    pub fn wait(&self, t: u64) -> Result<(), SdkError> {
        self.session.wait(t, Some(Duration::from_secs(300)))
    }

    /// The streamed text of the last turn (its `TEXT_DELTA`s).
    pub fn text(&self) -> String {
        let seen = self.seen.events();
        let start = seen
            .iter()
            .rposition(|e| e.kind == events::TURN_STARTED)
            .unwrap_or(0);
        seen[start..]
            .iter()
            .filter(|e| e.kind == events::TEXT_DELTA)
            .filter_map(|e| match &e.payload {
                Payload::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Payloads of the JSON events of `kind` so far.
    pub fn json(&self, kind: u32) -> Vec<Value> {
        self.seen.json(kind)
    }

    /// The last `turn_completed` payload.
    pub fn last_completed(&self) -> Value {
        self.json(events::TURN_COMPLETED).pop().unwrap()
    }
}
