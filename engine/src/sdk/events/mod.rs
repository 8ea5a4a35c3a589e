//! Session events as the C ABI numbers them (`ROBOTA_EVENT_*`, append-only).

//!
//! The folder holds the event types, their JSON documents, text buffers, per-session tool
//! states and the transcript tap.

pub mod json;
pub mod text_buffers;
pub mod tool_state;
pub mod transcript;

use std::sync::Arc;

pub use crate::sdk::events::json::JsonDoc;

use serde_json::{Map, Value};

/// `ROBOTA_EVENT_TURN_STARTED`.
pub const TURN_STARTED: u32 = 1;
/// `ROBOTA_EVENT_TEXT_DELTA` (raw UTF-8 payload).
pub const TEXT_DELTA: u32 = 2;
/// `ROBOTA_EVENT_THINKING_DELTA` (raw UTF-8 payload).
pub const THINKING_DELTA: u32 = 3;
/// `ROBOTA_EVENT_MESSAGE`: a message committed to the conversation.
pub const MESSAGE: u32 = 4;
/// `ROBOTA_EVENT_TOOL_START`.
pub const TOOL_START: u32 = 5;
/// `ROBOTA_EVENT_TOOL_END`.
pub const TOOL_END: u32 = 6;
/// `ROBOTA_EVENT_TOOL_CALL`: a host tool call to answer.
pub const TOOL_CALL: u32 = 7;
/// `ROBOTA_EVENT_TOOL_CALL_CANCELLED`.
pub const TOOL_CALL_CANCELLED: u32 = 8;
/// `ROBOTA_EVENT_PERMISSION_REQUEST`.
pub const PERMISSION_REQUEST: u32 = 9;
/// `ROBOTA_EVENT_HOOK_REQUEST`.
pub const HOOK_REQUEST: u32 = 10;
/// `ROBOTA_EVENT_CONTEXT_UPDATE`.
pub const CONTEXT_UPDATE: u32 = 11;
/// `ROBOTA_EVENT_COMPACTED`.
pub const COMPACTED: u32 = 12;
/// `ROBOTA_EVENT_EXECUTION` (replay events, only with `replay_events`).
pub const EXECUTION: u32 = 13;
/// `ROBOTA_EVENT_WARNING`: `{"message", "code"?, ...}` (e.g. `code:"MAX_TOKENS"` when the
/// model's output was cut).
pub const WARNING: u32 = 14;
/// `ROBOTA_EVENT_ERROR`.
pub const ERROR: u32 = 15;
/// `ROBOTA_EVENT_TURN_COMPLETED`: `stop_reason` is `complete`, `aborted`, `error`,
/// `max_rounds`, `context_limit`, `refusal` or `max_tokens`; `usage` (`input_tokens`,
/// `output_tokens`, `total_tokens`, `cache_read_tokens`, `cache_creation_tokens`) is the sum
/// over the turn's model calls.
pub const TURN_COMPLETED: u32 = 16;
/// `ROBOTA_EVENT_SESSION_CLOSED`: the last event of a session.
pub const SESSION_CLOSED: u32 = 17;
/// `ROBOTA_EVENT_SUBAGENT`: a subagent's event, `{"agent_id","agent_type",
/// "parent_tool_call_id","event":{…the child's event in pull form…}}`.
pub const SUBAGENT: u32 = 18;
/// `ROBOTA_EVENT_HOST_IO`: a host I/O request to answer (`{"io_id","request":{"op",…}}`);
/// pull mode only, thread/pump hosts get it on the runtime's host I/O callback.
pub const HOST_IO: u32 = 19;
/// `ROBOTA_EVENT_COMMAND_REQUEST`: a host-registered command to run
/// (`{"request_id","name","args"}`), answered with `robota_request_respond`.
pub const COMMAND_REQUEST: u32 = 20;
/// `ROBOTA_EVENT_REQUEST_CANCELLED`: a pending host request became void
/// (`{"request_id","request_kind","reason"}`, see [`crate::sdk::host::cancelled`]).
pub const REQUEST_CANCELLED: u32 = 21;
/// `ROBOTA_EVENT_SERVER_TOOL`: the provider's server ran one of its own tools while the model
/// answered (Anthropic's native `web_search`): `{"tool_name","status","query","input"}`, see
/// [`server_tool_fields`].
pub const SERVER_TOOL: u32 = 22;

/// The payload of a [`SERVER_TOOL`] event for a server-side use of `name` with `input`
/// (`status` is `"started"`: the server runs it and its results come back inside the model's
/// answer; `query` is the input's `query` string, else null).
pub fn server_tool_fields(name: &str, input: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "tool_name": name,
        "status": "started",
        "query": input.get("query").and_then(serde_json::Value::as_str),
        "input": input,
    })
}

/// The `type` string of an event kind.
pub fn kind_name(kind: u32) -> &'static str {
    match kind {
        TURN_STARTED => "turn_started",
        TEXT_DELTA => "text_delta",
        THINKING_DELTA => "thinking_delta",
        MESSAGE => "message",
        TOOL_START => "tool_start",
        TOOL_END => "tool_end",
        TOOL_CALL => "tool_call",
        TOOL_CALL_CANCELLED => "tool_call_cancelled",
        PERMISSION_REQUEST => "permission_request",
        HOOK_REQUEST => "hook_request",
        CONTEXT_UPDATE => "context_update",
        COMPACTED => "compacted",
        EXECUTION => "execution",
        WARNING => "warning",
        ERROR => "error",
        TURN_COMPLETED => "turn_completed",
        SESSION_CLOSED => "session_closed",
        SUBAGENT => "subagent",
        HOST_IO => "host_io",
        COMMAND_REQUEST => "command_request",
        REQUEST_CANCELLED => "request_cancelled",
        SERVER_TOOL => "server_tool",
        _ => "unknown",
    }
}

/// The host's own handler of a host tool's calls (the C ABI's `robota_tool_fn` registration).
/// The host answers each call later, from any thread, with the runtime's
/// `complete_tool_call`.
pub trait HostToolHandler: Send + Sync {
    /// Hands `call` to the host on the delivery thread, for the session the delivery layer
    /// knows by the opaque token `session`. False when the registration has no function: the
    /// call then goes out as a `tool_call` event instead.
    fn call(&self, session: usize, call: &ToolCallPayload) -> bool;
}

/// A host tool call travelling to the host.
#[derive(Clone)]
pub struct ToolCallPayload {
    /// Runtime-unique id to answer with.
    pub call_id: u64,
    /// Tool name.
    pub tool_name: String,
    /// Arguments as JSON text.
    pub input_json: String,
    /// The host's own handler of this tool, if it registered one.
    pub handler: Option<Arc<dyn HostToolHandler>>,
}

/// What an event carries.
#[derive(Clone)]
pub enum Payload {
    /// Raw text (text and thinking deltas).
    Text(String),
    /// A JSON document (carries `"v":1` and `"type"`).
    Json(Value),
    /// A JSON document already written as text (carries `"v":1` and `"type"`): the events of
    /// every turn, built without a `Value` tree.
    JsonText(JsonDoc),
    /// A host tool call (JSON form: `{"v":1,"type":"tool_call","call_id","tool_name","arguments"}`).
    ToolCall(ToolCallPayload),
}

impl Payload {
    /// A text payload with room for the NUL byte the C callback gets after it (delivery then
    /// appends it without growing the buffer again), in a recycled buffer when the thread has
    /// one ([`crate::sdk::events::text_buffers`]).
    pub fn text(t: &str) -> Self {
        let mut s = crate::sdk::events::text_buffers::take(t.len());
        s.push_str(t);
        Payload::Text(s)
    }
}

/// One session event.
#[derive(Clone)]
pub struct Event {
    /// `ROBOTA_EVENT_*` value.
    pub kind: u32,
    /// Turn the event belongs to (0 = none).
    pub turn_id: u64,
    /// Payload.
    pub payload: Payload,
}

impl Event {
    /// A JSON event; `fields` are added after `"v":1` and `"type"`.
    pub fn json(kind: u32, turn_id: u64, fields: Value) -> Self {
        let mut map = Map::new();
        map.insert("v".into(), Value::from(1));
        map.insert("type".into(), Value::from(kind_name(kind)));
        if let Value::Object(f) = fields {
            map.extend(f);
        }
        Event {
            kind,
            turn_id,
            payload: Payload::Json(Value::Object(map)),
        }
    }

    /// A JSON event written straight from `fields` (a struct or map whose members follow
    /// `"v":1` and `"type"`), without a `Value` tree.
    pub fn doc<T: serde::Serialize + ?Sized>(kind: u32, turn_id: u64, fields: &T) -> Self {
        Event {
            kind,
            turn_id,
            payload: Payload::JsonText(JsonDoc::new(kind, fields)),
        }
    }

    /// [`Event::doc`] of fields already written as JSON text (see [`JsonDoc::from_json`]).
    pub fn doc_from_json(kind: u32, turn_id: u64, fields_json: &[u8]) -> Self {
        Event {
            kind,
            turn_id,
            payload: Payload::JsonText(JsonDoc::from_json(kind, fields_json)),
        }
    }

    /// The payload as the callback receives it (JSON text, or the raw text of deltas).
    pub fn payload_text(&self) -> String {
        match &self.payload {
            Payload::Text(t) => t.clone(),
            Payload::Json(v) => v.to_string(),
            Payload::JsonText(d) => d.as_str().to_string(),
            Payload::ToolCall(c) => self::tool_call_json(c).to_string(),
        }
    }

    /// The JSON payload as a tree (`None` for text deltas): a copy, parsed again for a
    /// [`Payload::JsonText`].
    pub fn json_value(&self) -> Option<Value> {
        match &self.payload {
            Payload::Text(_) => None,
            Payload::Json(v) => Some(v.clone()),
            Payload::JsonText(d) => Some(Value::Object(d.to_map())),
            Payload::ToolCall(c) => Some(tool_call_json(c)),
        }
    }

    /// The pull-mode document as text (see [`Self::to_pull_json`]).
    pub fn to_pull_text(&self) -> String {
        match &self.payload {
            Payload::JsonText(d) => d.pull_text(self.kind, self.turn_id),
            Payload::Text(t) => json::text_pull_text(self.kind, self.turn_id, t),
            _ => self.to_pull_json().to_string(),
        }
    }

    /// The pull-mode document: `{"v":1,"kind":N,"type":"…","turn_id":N,…payload}`.
    pub fn to_pull_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("v".into(), Value::from(1));
        map.insert("kind".into(), Value::from(self.kind));
        map.insert("type".into(), Value::from(kind_name(self.kind)));
        map.insert("turn_id".into(), Value::from(self.turn_id));
        match &self.payload {
            Payload::Text(t) => {
                map.insert("text".into(), Value::from(t.as_str()));
            }
            Payload::Json(Value::Object(o)) => {
                for (k, v) in o {
                    if k != "v" && k != "type" {
                        map.insert(k.clone(), v.clone());
                    }
                }
            }
            Payload::Json(other) => {
                map.insert("data".into(), other.clone());
            }
            Payload::JsonText(d) => {
                for (k, v) in d.to_map() {
                    if k != "v" && k != "type" {
                        map.insert(k, v);
                    }
                }
            }
            Payload::ToolCall(c) => {
                if let Value::Object(o) = tool_call_json(c) {
                    for (k, v) in o {
                        if k != "v" && k != "type" {
                            map.insert(k, v);
                        }
                    }
                }
            }
        }
        Value::Object(map)
    }
}

/// JSON form of a tool call (`arguments` parsed when it is valid JSON).
pub fn tool_call_json(c: &ToolCallPayload) -> Value {
    let args = serde_json::from_str::<Value>(&c.input_json)
        .unwrap_or_else(|_| Value::String(c.input_json.clone()));
    serde_json::json!({
        "v": 1,
        "type": "tool_call",
        "call_id": c.call_id,
        "tool_name": c.tool_name,
        "arguments": args,
    })
}

/// Where a session's events go (the C layer queues them for its delivery mode).
pub type EventSink = Arc<dyn Fn(Event) + Send + Sync>;
