//! The options of a turn's engine run: the streaming callbacks that turn text and thinking
//! deltas (and, with `replay_events`, execution events) into the session's events.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::InteractiveSession;
use crate::sdk::events::{self, Event, Payload};
use crate::session::SessionRunOptions;

impl InteractiveSession {
    /// The engine run's options: cancellation, the text and thinking deltas as events (a
    /// text delta flushes the messages committed before it), execution events when
    /// `replay_events` is on, raw input, tool choice and budget.
    pub(super) fn run_options(
        &self,
        turn_id: u64,
        cancel: &CancellationToken,
        raw_input: Option<String>,
        tool_choice: Option<crate::core::tool_choice::ToolChoice>,
    ) -> SessionRunOptions {
        let me = self.clone();
        let on_text: crate::core::events::TextDeltaFn = Arc::new(move |d: &str| {
            let core = &me.inner.core;
            let dirty = {
                let mut st = core.lock();
                st.streaming_text.push_str(d);
                std::mem::take(&mut st.dirty)
            };
            if dirty {
                me.flush_messages();
            }
            (core.link.sink)(Event {
                kind: events::TEXT_DELTA,
                turn_id,
                payload: Payload::text(d),
            });
        });
        let link = self.inner.core.link.clone();
        let on_thinking: crate::core::events::TextDeltaFn = Arc::new(move |d: &str| {
            (link.sink)(Event {
                kind: events::THINKING_DELTA,
                turn_id,
                payload: Payload::text(d),
            });
        });
        let replay = self
            .inner
            .cfg
            .lock()
            .map(|c| c.replay_events)
            .unwrap_or(false);
        let on_event: Option<crate::core::events::ExecutionEventFn> = if replay {
            let link = self.inner.core.link.clone();
            Some(Arc::new(move |name: &str, data: &Value| {
                link.emit_event(Event::json(
                    events::EXECUTION,
                    turn_id,
                    json!({"name": name, "data": data}),
                ));
            }))
        } else {
            None
        };
        // The user's message is in the history: it was announced already (skipped here),
        // what came before it is reported now, before any model request.
        let me = self.clone();
        let on_user_appended: crate::core::agent::UserAppendedFn = Arc::new(move || {
            me.skip_announced_user();
            me.flush_messages();
        });
        let link = self.inner.core.link.clone();
        let on_server_tool: crate::core::events::ServerToolFn =
            Arc::new(move |name: &str, input: &serde_json::Value| {
                link.emit_event(Event::json(
                    events::SERVER_TOOL,
                    turn_id,
                    events::server_tool_fields(name, input),
                ));
            });
        SessionRunOptions {
            on_user_appended: Some(on_user_appended),
            on_server_tool: Some(on_server_tool),
            execution_id: None,
            cancel: Some(cancel.clone()),
            on_text_delta: Some(on_text),
            on_thinking_delta: Some(on_thinking),
            on_event,
            raw_input,
            skip_auto_compact: true,
            tool_choice,
            output_schema: None,
            budget: self.inner.budget.clone(),
        }
    }
}
