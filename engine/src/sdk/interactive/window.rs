//! The context window a session works with, settled before each turn: the session's
//! `context_window`, else the window the provider's server serves the model with (asked once
//! per runtime and model, or learned from an overflow error), else the model table, else
//! [`DEFAULT_CONTEXT_WINDOW`] with one `WARNING` `code:"CONTEXT_WINDOW_ASSUMED"` per session.

use serde_json::json;

use super::InteractiveSession;
use crate::core::models::{find_model, DEFAULT_CONTEXT_WINDOW};
use crate::sdk::events::{self, Event};

impl InteractiveSession {
    pub(super) async fn resolve_window(&self, turn_id: u64) {
        let session = &self.inner.session;
        if session.has_window_override() {
            return;
        }
        let cfg = session.agent().config();
        if let Some(n) = cfg.provider.context_window(&cfg.model).await {
            let _ = session.set_served_window(n);
            return;
        }
        if find_model(&cfg.model).is_some() {
            return;
        }
        let warn = {
            let mut st = self.inner.core.lock();
            !std::mem::replace(&mut st.window_warned, true)
        };
        if warn {
            self.inner.core.link.emit_event(Event::json(
                events::WARNING,
                turn_id,
                json!({
                    "code": "CONTEXT_WINDOW_ASSUMED",
                    "message": format!(
                        "the context window of model \"{}\" is not known (the server did not tell it): assuming {DEFAULT_CONTEXT_WINDOW} tokens; set \"context_window\" in the session config",
                        cfg.model
                    ),
                    "max_tokens": DEFAULT_CONTEXT_WINDOW,
                }),
            ));
        }
    }
}
