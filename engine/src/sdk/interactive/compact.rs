//! Compaction of an [`InteractiveSession`]: the `compact` command (manual, blocking the caller
//! until the summary is in) and the automatic compaction before a turn.

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::InteractiveSession;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::events::{self, Event};
use crate::session::{CompactError, CompactTrigger, Compaction};

impl InteractiveSession {
    /// Runs automatic compaction when due (before a turn); a failure is a `WARNING` event with
    /// `code:"COMPACTION_FAILED"` and the turn goes on with the history unchanged.
    pub(super) async fn auto_compact(&self, turn_id: u64, cancel: &CancellationToken) {
        let session = &self.inner.session;
        if !session.auto_compact_due() {
            return;
        }
        match session.compact(None, CompactTrigger::Auto, cancel).await {
            Ok(_) => self.after_compaction(),
            Err(e) => self.inner.core.link.emit_event(Event::json(
                events::WARNING,
                turn_id,
                json!({"code": "COMPACTION_FAILED",
                       "message": format!("automatic compaction did not happen: {e}")}),
            )),
        }
    }

    /// The messages before the compaction were reported already; the new history is not
    /// re-sent as `message` events (the `compacted` event carries the summary).
    fn after_compaction(&self) {
        let n = self.inner.session.agent().message_count();
        let mut st = self.inner.core.lock();
        st.msg_flushed = n;
        st.dirty = true;
    }

    /// `compact [instructions]`: summarizes the conversation now. Blocks the calling thread
    /// until the summary request is answered; refused while a turn runs ([`ErrorCode::Busy`])
    /// and from inside a callback or a runtime task ([`ErrorCode::Reentrant`]).
    pub fn compact(&self, instructions: &str) -> SdkResult<Result<Compaction, CompactError>> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(SdkError::new(
                ErrorCode::Reentrant,
                "compact blocks until the summary is in; call it outside callbacks and runtime tasks",
            ));
        }
        {
            let mut st = self.inner.core.lock();
            st.between_turns(
                "Another prompt or command is already running. Wait for it to finish.",
            )?;
            st.start_executing();
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let me = self.clone();
        let focus = Some(instructions.trim().to_string()).filter(|s| !s.is_empty());
        let spawned = self.shared().spawn_work(async move {
            let cancel = CancellationToken::new();
            let r = me
                .inner
                .session
                .compact(focus.as_deref(), CompactTrigger::Manual, &cancel)
                .await;
            if r.is_ok() {
                me.after_compaction();
            }
            let _ = tx.send(r);
        });
        let result = spawned.and_then(|()| {
            rx.recv().map_err(|_| {
                SdkError::new(
                    ErrorCode::Closed,
                    "the runtime stopped before the compaction finished",
                )
            })
        });
        let (next, emit_closed) = {
            let mut st = self.inner.core.lock();
            st.phase = st.phase.run_ended();
            // Closed while compacting: as at a turn's end, `session_closed` is reported here.
            let emit_closed = super::queue::take_closed_report(&mut st);
            (st.start_queued(), emit_closed)
        };
        self.inner.core.wake_waiters();
        if emit_closed {
            self.end_and_report_closed();
        }
        if let Some((id, input, cancel)) = next {
            self.spawn_turn(id, input, cancel);
        }
        result
    }
}

/// Whether `command_json` is the `compact` command (which blocks its caller: a host must not
/// run it from inside a callback).
pub fn is_compact_command(command_json: &str) -> bool {
    serde_json::from_str::<Value>(command_json)
        .ok()
        .and_then(|v| {
            v.get("name")
                .and_then(Value::as_str)
                .map(|n| n == "compact")
        })
        .unwrap_or(false)
}

/// The `compacted` event payload: `{"trigger","summary","before","after"}`.
pub(super) fn compacted_json(c: &Compaction) -> Value {
    json!({
        "trigger": c.trigger.as_str(),
        "summary": c.summary,
        "before": super::event_fields::ContextFields::from(&c.before),
        "after": super::event_fields::ContextFields::from(&c.after),
    })
}
