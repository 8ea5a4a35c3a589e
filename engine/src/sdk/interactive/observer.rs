//! The session observer of an [`InteractiveSession`](super::InteractiveSession): tool
//! start/end entries in the UI timeline and the `tool_start`, `tool_end`, `context_update` and
//! `warning` events (`SANDBOX_UNAVAILABLE` just before the first Bash call's `tool_start`).

use serde_json::{json, Value};

use super::event_fields::{ContextFields, ToolEndFields, ToolStartFields};
use super::Core;
use crate::core::history::{EventData, EventEntry, HistoryEntry};
use crate::sdk::events;
use crate::sdk::events::tool_state::ToolOutcome;
use crate::session::{Compaction, ContextState, SessionObserver, ToolEndResult};

fn outcome_of(result: ToolEndResult) -> ToolOutcome {
    match result {
        ToolEndResult::Success => ToolOutcome::Success,
        ToolEndResult::Error => ToolOutcome::Error,
        ToolEndResult::Denied => ToolOutcome::Denied,
    }
}

impl SessionObserver for Core {
    fn on_tool_start(&self, call_id: &str, name: &str, args: &Value, schema: &Value) {
        let warning = (name == "Bash")
            .then(|| self.lock().sandbox_to_check.take())
            .flatten()
            .and_then(|config| crate::core::sandbox::warning(&config));
        if let Some(message) = warning {
            self.link.emit(
                events::WARNING,
                json!({"code": "SANDBOX_UNAVAILABLE", "message": message}),
            );
        }
        let st = {
            let mut s = self.lock();
            let st = std::sync::Arc::new(s.tools.start(name, args, schema));
            s.history.push(HistoryEntry::Event(Box::new(EventEntry::new(
                "tool-start",
                EventData::Lazy(st.clone()),
            ))));
            st
        };
        self.link.emit_doc(
            events::TOOL_START,
            &ToolStartFields {
                tool_call_id: call_id,
                tool_name: name,
                first_arg: &st.first_arg,
                arguments: args,
            },
        );
    }

    fn on_tool_diff(&self, _call_id: &str, name: &str, diff: &crate::core::diff::FileDiff) {
        self.lock().tools.set_diff(name, diff);
    }

    fn on_tool_end(
        &self,
        call_id: &str,
        name: &str,
        args: &Value,
        result: ToolEndResult,
        output: &str,
    ) {
        let outcome = outcome_of(result);
        let st = {
            let mut s = self.lock();
            let st = std::sync::Arc::new(s.tools.end(name, args, outcome));
            s.history.push(HistoryEntry::Event(Box::new(EventEntry::new(
                "tool-end",
                EventData::Lazy(st.clone()),
            ))));
            s.dirty = true;
            st
        };
        let error_text;
        let output = if outcome == ToolOutcome::Error {
            error_text = format!("Error: {output}");
            &error_text
        } else {
            output
        };
        self.link.emit_doc(
            events::TOOL_END,
            &ToolEndFields {
                tool_call_id: call_id,
                tool_name: name,
                result: outcome.as_str(),
                output,
                diff_file: st.diff_file.as_deref(),
                diff_lines: st.diff_lines.as_deref(),
            },
        );
    }

    fn on_context_update(&self, state: &ContextState) {
        self.link
            .emit_doc(events::CONTEXT_UPDATE, &ContextFields::from(state));
    }

    fn on_compacted(&self, c: &Compaction) {
        let mut st = self.lock();
        st.history
            .push(HistoryEntry::Event(Box::new(EventEntry::new(
                "compact",
                json!({"trigger": c.trigger.as_str(), "summary": c.summary}),
            ))));
        if let Some((old, new)) = c.kept {
            // Between rounds: the running turn's messages moved from `old` to `new`; the ones
            // already reported stay reported, the summary is not a `message` event.
            st.msg_flushed = new + st.msg_flushed.saturating_sub(old);
            st.dirty = true;
        }
        drop(st);
        self.link
            .emit(events::COMPACTED, super::compact::compacted_json(c));
    }

    fn on_warning(&self, message: &str) {
        self.link.emit(events::WARNING, json!({"message": message}));
    }
}
