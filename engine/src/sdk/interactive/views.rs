//! Views of an [`InteractiveSession`]: streaming text, active tools, the UI and conversation
//! timelines, context state, the state document, and the flush of committed messages.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{json, Value};

use super::{InteractiveSession, Restore};
use crate::core::history::HistoryEntry;
use crate::core::message::Message;
use crate::core::models::model_context_window;
use crate::sdk::config::parse_object;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::events::tool_state::ToolState;
use crate::sdk::events::{self, Event};

impl InteractiveSession {
    /// `getStreamingText`.
    pub fn streaming_text(&self) -> String {
        self.inner.core.lock().streaming_text.clone()
    }

    /// `getActiveTools`.
    pub fn active_tools(&self) -> Vec<ToolState> {
        self.inner.core.lock().tools.items().to_vec()
    }

    /// `getFullHistory`: the UI timeline.
    pub fn full_history(&self) -> Vec<HistoryEntry> {
        self.inner.core.lock().history.clone()
    }

    /// `getMessages`: chat entries of the UI timeline.
    pub fn ui_messages(&self) -> Vec<Arc<Message>> {
        crate::core::history::messages_of(&self.inner.core.lock().history)
    }

    /// The conversation the model sees (consistent snapshot, safe during a turn): a failed
    /// call's `Request failed: …` placeholder is left out (the UI timeline has its `Error: …`).
    pub fn conversation(&self) -> Vec<Arc<Message>> {
        self.inner.session.agent().model_messages()
    }

    /// The conversation timeline (chat + engine event entries).
    pub fn conversation_entries(&self) -> Vec<HistoryEntry> {
        self.inner.session.agent().history()
    }

    /// Successful turns.
    pub fn message_count(&self) -> u64 {
        self.inner.core.lock().message_count
    }

    /// Last save/turn time.
    pub fn updated_at(&self) -> String {
        self.inner.core.lock().updated_at.clone()
    }

    /// `getContextState`: `{used_tokens, max_tokens, used_percentage, remaining_percentage}`.
    pub fn context_state(&self) -> Value {
        serde_json::to_value(self.context_fields()).unwrap_or(Value::Null)
    }

    /// [`Self::context_state`] as a struct (written straight into event text).
    pub(super) fn context_fields(&self) -> super::event_fields::ContextFields {
        let (used, max) = self.context_numbers();
        super::event_fields::ContextFields::of(used, max)
    }

    /// `(used, max)` tokens.
    pub fn context_numbers(&self) -> (u64, u64) {
        // O(1) from the store's caches (no copy or scan of the history).
        let used = {
            let store = self.inner.session.agent().store();
            let s = store.lock().unwrap_or_else(|p| p.into_inner());
            s.estimate(None).used_tokens
        };
        let cfg = self.inner.session.agent().config();
        let max = cfg
            .context_window
            .unwrap_or_else(|| model_context_window(&cfg.model));
        (used, max)
    }

    /// `clearHistory` (refused while a turn runs), then a `CONTEXT_UPDATE` event.
    pub fn clear(&self) -> SdkResult<()> {
        let mut st = self.inner.core.lock();
        if st.phase.executing() {
            return Err(SdkError::new(
                ErrorCode::Busy,
                "Another prompt or command is already running. Wait for it to finish.",
            ));
        }
        self.inner.session.agent().clear_history();
        st.history.clear();
        st.tools.clear();
        st.streaming_text.clear();
        st.msg_flushed = self.inner.session.agent().message_count();
        drop(st);
        // The host's context meter drops to the empty conversation.
        self.inner
            .core
            .link
            .emit_doc(crate::sdk::events::CONTEXT_UPDATE, &self.context_fields());
        Ok(())
    }

    /// The tools the model is offered now (built-in, host and MCP tools).
    pub fn agent_tools(&self) -> Vec<std::sync::Arc<dyn crate::core::tool::Tool>> {
        self.inner.session.agent().config().tools.clone()
    }

    /// The MCP servers' state (`mcp_servers` of [`Self::state_json`], the `mcp` command).
    pub fn mcp_state(&self) -> Value {
        self.inner.mcp.state()
    }

    /// State document (`robota_session_state`).
    pub fn state_json(&self) -> Value {
        let ctx = self.context_state();
        let perms = self.permission_state();
        let model = self.inner.session.agent().config().model.clone();
        let cfg = self.config();
        let st = self.inner.core.lock();
        json!({
            "v": 1,
            "session_id": self.inner.session_id,
            "name": st.name,
            "executing": st.phase.executing(),
            "closed": st.phase.closed(),
            "current_turn": st.current.as_ref().map(|c| c.0),
            "queued_turn": st.queued.as_ref().map(|q| q.0),
            "pending_prompt": st.queued.as_ref().map(|q| q.1.text.clone()),
            "streaming_text": st.streaming_text,
            "active_tools": st.tools.items(),
            "context_state": ctx,
            "message_count": st.message_count,
            "model": model,
            "provider": cfg.provider,
            "delivery": cfg.delivery.as_str(),
            "permission_mode": perms.mode.as_str(),
            "session_allowed_tools": perms.session_allowed,
            "mcp_servers": self.inner.mcp.state(),
        })
    }

    /// Counts the user message the turn announced at its start as reported, when it is the
    /// next one to report (and every message before it was reported).
    pub(super) fn skip_announced_user(&self) {
        let Some(id) = self.inner.core.lock().announced_user.take() else {
            return;
        };
        let at = {
            let store = self.inner.session.agent().store();
            let s = store.lock().unwrap_or_else(|p| p.into_inner());
            s.messages().iter().rposition(|m| m.id == id)
        };
        let mut st = self.inner.core.lock();
        if at.is_some_and(|i| st.msg_flushed == i) {
            st.msg_flushed += 1;
        }
    }

    pub(super) fn flush_messages(&self) {
        // Only the messages not reported yet are copied (not the whole history per round).
        let mut from = self.inner.core.lock().msg_flushed;
        let (fresh, turn) = loop {
            let (fresh, len) = {
                let store = self.inner.session.agent().store();
                let mut s = store.lock().unwrap_or_else(|p| p.into_inner());
                let len = s.messages().len();
                let fresh: Vec<(Arc<Message>, Option<Vec<u8>>)> = (from.min(len)..len)
                    .map(|i| {
                        let m = s.messages()[i].clone();
                        let json = s.take_json(&m);
                        (m, json)
                    })
                    .collect();
                (fresh, len)
            };
            let mut st = self.inner.core.lock();
            if st.msg_flushed == from {
                st.msg_flushed = len;
                break (fresh, self.inner.core.link.turn.load(Ordering::Relaxed));
            }
            // Moved meanwhile (another flush, a compaction, a clear): read again from there.
            from = st.msg_flushed;
        };
        for (m, json) in &fresh {
            // The text the store wrote when it appended the message, when it still has it.
            let ev = match json {
                Some(json) => Event::doc_from_json(events::MESSAGE, turn, json),
                None => Event::doc(events::MESSAGE, turn, m.as_ref()),
            };
            self.inner.core.link.emit_event(ev);
        }
    }

    /// Restore data for a fork (consistent copy, safe during a turn).
    pub fn fork_restore(&self) -> Restore {
        Restore {
            conversation: self.inner.session.agent().history(),
            ui_history: self.full_history(),
            message_count: self.message_count(),
            created_at: None,
            session_allowed: self.session_allowed(),
            budget_spent: None,
            // A fork is a new session: not in the store yet.
            store_version: 0,
        }
    }

    /// `robota_session_messages`: a consistent snapshot of one view as
    /// `{"v":1,"view","messages"|"entries":[…]}`. `query_json` (`None` = the default):
    /// `{"view":"conversation"}` (default: what the model sees), `{"view":"messages"}` (the UI's
    /// chat entries) or `{"view":"history"}` (the full UI timeline).
    pub fn messages_json(&self, query_json: Option<&str>) -> SdkResult<String> {
        let view = match query_json {
            None => "conversation".to_string(),
            Some(t) => match parse_object("query_json", t)
                .and_then(|q| {
                    crate::sdk::config::check_strict("query_json", &q, &["view"]).map(|()| q)
                })?
                .get("view")
            {
                None => "conversation".to_string(),
                Some(Value::String(v)) => v.clone(),
                Some(_) => {
                    return Err(SdkError::config(
                        "query_json: field \"view\" must be a string",
                    ))
                }
            },
        };
        // Serialized straight from the structs so message fields keep their documented order.
        let list_json = |msgs: Vec<Arc<Message>>| {
            let list: Vec<&Message> = msgs.iter().map(|m| m.as_ref()).collect();
            serde_json::to_string(&list).unwrap_or_else(|_| "[]".into())
        };
        Ok(match view.as_str() {
            "conversation" => format!(
                "{{\"v\":1,\"view\":\"conversation\",\"messages\":{}}}",
                list_json(self.conversation())
            ),
            "messages" => format!(
                "{{\"v\":1,\"view\":\"messages\",\"messages\":{}}}",
                list_json(self.ui_messages())
            ),
            "history" => format!(
                "{{\"v\":1,\"view\":\"history\",\"entries\":{}}}",
                serde_json::to_string(&self.full_history()).unwrap_or_else(|_| "[]".into())
            ),
            other => {
                return Err(SdkError::config(format!(
                "query_json: unknown view \"{other}\" (expected conversation, messages or history)"
            )))
            }
        })
    }
}
