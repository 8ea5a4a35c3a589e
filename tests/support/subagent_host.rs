//! A parent session for the subagent tests: events on a channel, turns run to their own
//! `turn_completed`, and readers of the fake server's recorded OpenAI requests.
#![allow(dead_code)]

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use robota_engine::sdk::config::parse_session_config;
use robota_engine::sdk::events::{self, Event, Payload};
use robota_engine::sdk::interactive::{InteractiveSession, TurnInput};
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

use super::fake_server::{FakeServer, Reply, Turn};

pub const WAIT: Duration = Duration::from_secs(30);

/// A session whose events arrive on a channel.
pub struct Parent {
    pub session: InteractiveSession,
    rx: mpsc::Receiver<Event>,
    pub seen: Vec<Event>,
}

pub fn runtime(server: &FakeServer, env: Value) -> Runtime {
    Runtime::from_json(
        &json!({"v":1,"providers":{"p": server.provider_config("openai")},"env": env}).to_string(),
    )
    .unwrap()
}

impl Parent {
    pub fn open(rt: &Runtime, session: Value) -> Parent {
        let mut cfg =
            json!({"provider":"p","model":"test-model","permission_mode":"bypassPermissions"});
        for (k, v) in session.as_object().cloned().unwrap_or_default() {
            cfg[k] = v;
        }
        let cfg = parse_session_config(&cfg.to_string()).unwrap();
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let sink: events::EventSink = Arc::new(move |e: Event| {
            let _ = tx.lock().unwrap().send(e);
        });
        let session = InteractiveSession::new(rt.shared().clone(), cfg, sink, true, None).unwrap();
        Parent {
            session,
            rx,
            seen: Vec::new(),
        }
    }

    pub fn submit(&self, text: &str) -> u64 {
        self.session
            .submit(TurnInput {
                text: text.into(),
                display_input: None,
                raw_input: None,
                tool_choice: None,
                output_schema: None,
                host_command: None,
                images: Vec::new(),
                skill: None,
            })
            .unwrap()
    }

    /// Receives events until `stop` says so; returns that event.
    pub fn until(&mut self, stop: impl Fn(&Event) -> bool) -> Event {
        loop {
            let e = self.rx.recv_timeout(WAIT).expect("an event");
            self.seen.push(e.clone());
            if stop(&e) {
                return e;
            }
        }
    }

    /// Runs a turn to its own `turn_completed`; returns that payload.
    pub fn turn(&mut self, text: &str) -> Value {
        let t = self.submit(text);
        let e = self.until(|e| e.kind == events::TURN_COMPLETED && e.turn_id == t);
        json_of(&e)
    }

    /// The wrapped payloads of the `SUBAGENT` events seen.
    pub fn sub(&self) -> Vec<Value> {
        self.seen
            .iter()
            .filter(|e| e.kind == events::SUBAGENT)
            .map(json_of)
            .collect()
    }
}

impl Parent {
    /// The WARNING payloads seen so far, without the provider's context-window notice.
    pub fn warnings(&self) -> Vec<Value> {
        self.seen
            .iter()
            .filter(|e| e.kind == events::WARNING)
            .map(json_of)
            .filter(|w| w["code"] != "CONTEXT_WINDOW_ASSUMED")
            .collect()
    }
}

pub fn json_of(e: &Event) -> Value {
    match &e.payload {
        Payload::Json(v) => v.clone(),
        Payload::JsonText(_) => e.json_value().unwrap_or_default(),
        _ => Value::Null,
    }
}

pub fn call(id: &str, name: &str, args: Value) -> Reply {
    Reply::openai(&Turn::text(Vec::<String>::new()).tool(id, name, &args.to_string()))
}

pub fn text(t: &str) -> Reply {
    Reply::openai(&Turn::text([t]))
}

/// `(role, content)` of a request's messages.
pub fn messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The content of the tool message answering `call_id` in a request.
pub fn tool_result(body: &Value, call_id: &str) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .map(|m| m["content"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no tool message for {call_id}: {body}"))
}
