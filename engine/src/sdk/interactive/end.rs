//! The end of an [`InteractiveSession`]: `SessionEnd` hooks fire exactly once, when the session
//! is closed (`robota_session_close` or `robota_session_free`, whichever comes first) and no
//! turn runs any more; `session_closed` is the last event and follows them.

use std::sync::atomic::Ordering;

use serde_json::json;

use super::InteractiveSession;
use crate::core::hooks::HookEvent;
use crate::sdk::events::{self, Event};

/// `reason` of the `SessionEnd` hook input when the host closes or frees the session.
const SESSION_END_REASON: &str = "other";

impl InteractiveSession {
    /// Called once, at the transition to "closed and idle": fires `SessionEnd` then emits
    /// `session_closed`. Without `SessionEnd` hooks both happen now; with hooks they run as a
    /// task on the runtime's workers (awaited when the runtime goes away), so close and free never wait for
    /// a hook.
    pub(super) fn end_and_report_closed(&self) {
        if !self.inner.session.has_hooks(HookEvent::SessionEnd) {
            self.emit_closed();
            return;
        }
        let me = self.clone();
        let shared = &self.inner.core.link.shared;
        let hooks = shared.spawn_work(async move {
            me.inner.session.end(SESSION_END_REASON).await;
            me.emit_closed();
        });
        if let Err(e) = hooks {
            crate::log_at!(
                crate::core::log::WARN,
                "robota::session",
                "SessionEnd hooks not run: {}",
                e.message
            );
            self.emit_closed();
        }
    }

    fn emit_closed(&self) {
        let link = &self.inner.core.link;
        link.report_all_cancelled();
        link.emit_event(Event::json(events::SESSION_CLOSED, 0, json!({})));
    }

    /// The host released its handle (`robota_session_free`): nobody can answer requests any
    /// more (a host `SessionEnd` hook gets no answer and is skipped), then [`Self::close`].
    pub fn release(&self) {
        let link = &self.inner.core.link;
        link.released.store(true, Ordering::Release);
        self.close();
        // Withdraws a request issued before the release (e.g. by a SessionEnd host hook that
        // an earlier close started).
        link.shared.pending().cancel_owner(link.owner);
    }
}
