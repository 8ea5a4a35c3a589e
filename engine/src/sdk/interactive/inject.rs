//! `injectMessage` (`robota_session_inject_message`): a message appended to the conversation
//! between turns without calling the model. The next turn's model call sees it.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::InteractiveSession;
use crate::core::history::HistoryEntry;
use crate::core::message::Message;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::events::{self, Event};

/// The members `message_json` may have.
const KNOWN: [&str; 2] = ["role", "content"];

/// The message of `{"role":"user"|"assistant"|"system","content":"text"}`; errors name the
/// member that is wrong.
fn parse_injected(message_json: &str) -> SdkResult<Message> {
    let doc: Value = serde_json::from_str(message_json).map_err(|e| {
        SdkError::new(
            ErrorCode::InvalidJson,
            format!("message_json is not JSON: {e}"),
        )
    })?;
    let Value::Object(doc) = doc else {
        return Err(SdkError::config("message_json must be a JSON object"));
    };
    if let Some(k) = doc.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(SdkError::config(format!(
            "message_json: field \"{k}\" is not a known field (known: role, content)"
        )));
    }
    let content = text_field(&doc, "content")?;
    match text_field(&doc, "role")? {
        "user" => Ok(Message::user(content)),
        "assistant" => Ok(Message::assistant(content)),
        "system" => Ok(Message::system(content)),
        "tool" => Err(SdkError::config(
            "message_json: role \"tool\" cannot be injected (a tool result answers a tool call of the model)",
        )),
        other => Err(SdkError::config(format!(
            "message_json: field \"role\" must be \"user\", \"assistant\" or \"system\" (got \"{other}\")"
        ))),
    }
}

fn text_field<'a>(doc: &'a Map<String, Value>, key: &str) -> SdkResult<&'a str> {
    match doc.get(key) {
        None => Err(SdkError::config(format!(
            "message_json: missing required field \"{key}\""
        ))),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(SdkError::config(format!(
            "message_json: field \"{key}\" must be a string"
        ))),
    }
}

impl InteractiveSession {
    /// Appends the message of `message_json` (`{"role":"user"|"assistant"|"system","content"}`)
    /// to the conversation and the chat history, then reports it like any committed message (a
    /// `message` event, so the transcript keeps it) and the new context estimate
    /// (`context_update`); saves the session file with `persist: true`. Refused while a turn or command runs
    /// ([`ErrorCode::Busy`]) and after close ([`ErrorCode::Closed`]).
    pub fn inject_message(&self, message_json: &str) -> SdkResult<()> {
        let message = parse_injected(message_json)?;
        let (message, json) = {
            let mut st = self.inner.core.lock();
            st.between_turns("a turn or command is running: inject messages between turns")?;
            let store = self.inner.session.agent().store();
            let mut s = store.lock().unwrap_or_else(|p| p.into_inner());
            let before = s.messages().len();
            s.append(message);
            let m = s.messages()[before].clone();
            let json = s.take_json(&m);
            // Reported here, so a later flush does not report it again.
            if st.msg_flushed == before {
                st.msg_flushed = before + 1;
            }
            st.history.push(HistoryEntry::Chat(Arc::clone(&m)));
            (m, json)
        };
        let link = &self.inner.core.link;
        link.emit_event(match json {
            Some(json) => Event::doc_from_json(events::MESSAGE, 0, &json),
            None => Event::doc(events::MESSAGE, 0, message.as_ref()),
        });
        link.emit_doc(events::CONTEXT_UPDATE, &self.context_fields());
        self.persist_if_enabled(0);
        Ok(())
    }
}
