//! History entries (`IHistoryEntry`): chat messages and event entries (`tool-summary`, …) on one timeline.

use std::sync::Arc;

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::message::Message;
use super::util::{new_uuid, now_iso};

/// A non-chat entry on the history timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventEntry {
    /// Entry id.
    pub id: String,
    /// ISO-8601 time.
    pub timestamp: String,
    /// Entry type, e.g. `tool-summary`, `tool-start`, `tool-end`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Payload.
    #[serde(default)]
    pub data: EventData,
}

impl EventEntry {
    /// A new event entry stamped now.
    pub fn new(kind: impl Into<String>, data: impl Into<EventData>) -> Self {
        EventEntry {
            id: new_uuid(),
            timestamp: now_iso(),
            kind: kind.into(),
            data: data.into(),
        }
    }
}

/// Data kept as it was made and turned into JSON only when the timeline is read or saved: an
/// entry recorded on every tool call (`tool-start`, `tool-end`, `tool-summary`) would otherwise
/// build a JSON map per call that is mostly never read.
pub trait EntryData: std::fmt::Debug + Send + Sync {
    /// The data as JSON.
    fn to_value(&self) -> Value;
}

/// An event entry's payload: JSON, or [`EntryData`] made into JSON when read.
#[derive(Debug, Clone)]
pub enum EventData {
    /// JSON as it is.
    Json(Value),
    /// Made into JSON when read.
    Lazy(Arc<dyn EntryData>),
}

impl EventData {
    /// [`EventData::Lazy`] of `data`.
    pub fn lazy(data: impl EntryData + 'static) -> Self {
        EventData::Lazy(Arc::new(data))
    }

    /// The payload as JSON (made now for lazy data).
    pub fn to_value(&self) -> Value {
        match self {
            EventData::Json(v) => v.clone(),
            EventData::Lazy(d) => d.to_value(),
        }
    }
}

impl Default for EventData {
    fn default() -> Self {
        EventData::Json(Value::Null)
    }
}

impl From<Value> for EventData {
    fn from(v: Value) -> Self {
        EventData::Json(v)
    }
}

impl PartialEq for EventData {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (EventData::Json(a), EventData::Json(b)) => a == b,
            _ => self.to_value() == other.to_value(),
        }
    }
}

impl Serialize for EventData {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            EventData::Json(v) => v.serialize(s),
            EventData::Lazy(d) => d.to_value().serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for EventData {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(EventData::Json)
    }
}

/// One history entry: `category:"chat"` wraps a message, `category:"event"` carries data.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryEntry {
    /// A chat message (`type` = its role).
    Chat(Arc<Message>),
    /// An event entry.
    /// Boxed: a history holds mostly chat entries, which would otherwise each take an event
    /// entry's size (~150 B) in the entry list.
    Event(Box<EventEntry>),
}

impl HistoryEntry {
    /// `"chat"` or `"event"`.
    pub fn category(&self) -> &'static str {
        match self {
            HistoryEntry::Chat(_) => "chat",
            HistoryEntry::Event(_) => "event",
        }
    }

    /// The chat message, if this is one (`isChatEntry` + `chatEntryToMessage`).
    pub fn as_message(&self) -> Option<&Arc<Message>> {
        match self {
            HistoryEntry::Chat(m) => Some(m),
            HistoryEntry::Event(_) => None,
        }
    }
}

impl Serialize for HistoryEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("HistoryEntry", 5)?;
        match self {
            HistoryEntry::Chat(m) => {
                st.serialize_field("id", &m.id)?;
                st.serialize_field("timestamp", &m.timestamp)?;
                st.serialize_field("category", "chat")?;
                st.serialize_field("type", m.role.as_str())?;
                st.serialize_field("data", m.as_ref())?;
            }
            HistoryEntry::Event(e) => {
                st.serialize_field("id", &e.id)?;
                st.serialize_field("timestamp", &e.timestamp)?;
                st.serialize_field("category", "event")?;
                st.serialize_field("type", &e.kind)?;
                st.serialize_field("data", &e.data)?;
            }
        }
        st.end()
    }
}

#[derive(Deserialize)]
struct RawEntry {
    id: String,
    timestamp: String,
    category: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    data: Value,
}

impl<'de> Deserialize<'de> for HistoryEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawEntry::deserialize(d)?;
        match raw.category.as_str() {
            "chat" => {
                let mut msg: Message =
                    serde_json::from_value(raw.data).map_err(serde::de::Error::custom)?;
                msg.id = raw.id;
                msg.timestamp = raw.timestamp;
                Ok(HistoryEntry::Chat(Arc::new(msg)))
            }
            "event" => Ok(HistoryEntry::Event(Box::new(EventEntry {
                id: raw.id,
                timestamp: raw.timestamp,
                kind: raw.kind,
                data: EventData::Json(raw.data),
            }))),
            other => Err(serde::de::Error::custom(format!(
                "history entry category must be \"chat\" or \"event\", got \"{other}\""
            ))),
        }
    }
}

/// Extracts the chat messages of a timeline (`getMessagesForAPI` without the suffix, which
/// providers apply through [`Message::content_for_api`]).
pub fn messages_of(entries: &[HistoryEntry]) -> Vec<Arc<Message>> {
    entries
        .iter()
        .filter_map(|e| e.as_message().cloned())
        .collect()
}
