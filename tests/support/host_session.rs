//! A host session over the SDK (what the C ABI wraps) against a fake server: a runtime with one
//! provider `p`, events recorded, turns submitted from input JSON and waited for.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use robota::sdk::config::parse_session_config;
use robota::sdk::error::SdkError;
use robota::sdk::events::{self, Event, Payload};
use robota::sdk::interactive::{InteractiveSession, TurnInput};
use robota::sdk::runtime::Runtime;
use serde_json::{json, Value};

/// A prompt of plain text (no display text, raw input, tool choice or host command).
pub fn text_input(text: &str) -> TurnInput {
    TurnInput {
        text: text.into(),
        display_input: None,
        raw_input: None,
        tool_choice: None,
        host_command: None,
    }
}

/// A runtime whose provider `p` is `provider` (a provider config entry).
pub fn runtime(provider: Value) -> Runtime {
    Runtime::from_json(&json!({"v":1,"providers":{"p": provider}}).to_string()).unwrap()
}

/// A session of `rt` from `session` (merged over `{"provider":"p","model":"test-model"}`).
pub struct Host {
    pub session: InteractiveSession,
    seen: Arc<Mutex<Vec<Event>>>,
}

impl Host {
    /// Opens the session; `Err` is the SDK error.
    pub fn open(rt: &Runtime, session: Value) -> Result<Host, SdkError> {
        let mut cfg = json!({"provider":"p","model":"test-model"});
        for (k, v) in session.as_object().cloned().unwrap_or_default() {
            cfg[k] = v;
        }
        let cfg = parse_session_config(&cfg.to_string())?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s2 = seen.clone();
        let sink: events::EventSink = Arc::new(move |e: Event| s2.lock().unwrap().push(e));
        let session = InteractiveSession::new(rt.shared().clone(), cfg, sink, false, None)?;
        Ok(Host { session, seen })
    }

    /// Submits `input` (input JSON) and waits for the turn.
    pub fn turn(&self, input: Value) -> Result<(), SdkError> {
        let t = self
            .session
            .submit(TurnInput::from_json(&input.to_string())?)?;
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
        let seen = self.seen.lock().unwrap();
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
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.kind == kind)
            .filter_map(|e| match &e.payload {
                Payload::Json(v) => Some(v.clone()),
                Payload::JsonText(_) => e.json_value(),
                _ => None,
            })
            .collect()
    }

    /// The last `turn_completed` payload.
    pub fn last_completed(&self) -> Value {
        self.json(events::TURN_COMPLETED).pop().unwrap()
    }
}
