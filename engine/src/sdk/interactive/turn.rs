//! Running one turn of an [`InteractiveSession`]: the engine call with streaming callbacks,
//! and Robota's completion paths (complete, interrupted, error), history entries and
//! `turn_completed`.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::event_fields::{
    tool_summaries, InputFields, TurnCompletedFields, TurnStartedFields, UsageFields,
};
use super::queue::{push_outcome, take_closed_report};
use super::{InteractiveSession, TurnInput, TurnOutcome};
use crate::core::execution::{tag_with_execution, ExecutionResult, RunStop};
use crate::core::history::{EventEntry, HistoryEntry};
use crate::core::message::{Message, Role};
use crate::core::tokens::TokenUsage;
use crate::core::util::now_iso;
use crate::sdk::error::robota_details;
use crate::sdk::events::{self, Event};
use crate::session::SessionRunError;

impl InteractiveSession {
    /// Runs turn `turn_id` to its end: announces it, lets a host command answer it, prepares
    /// the context, calls the engine and reports the outcome.
    pub(super) async fn run_turn(self, turn_id: u64, input: TurnInput, cancel: CancellationToken) {
        self.begin_turn(turn_id, &input);
        let Some(input) = self.host_command_turn(turn_id, input, &cancel).await else {
            return;
        };
        let Some(input) = self.fork_skill_turn(turn_id, input, &cancel).await else {
            return;
        };
        let user = self.announce_user_message(turn_id, &input);
        self.prepare_context(turn_id, &cancel).await;
        let start_idx = self.inner.session.agent().message_count();
        let result = self.call_engine(turn_id, &input, user, &cancel).await;
        let outcome = match result {
            Err(e) => self.outcome_of_error(turn_id, e),
            Ok(r) => self.outcome_of_run(turn_id, start_idx, r),
        };
        self.finish(turn_id, outcome);
    }

    /// Marks turn `turn_id` as the running one, resets the streaming state, records the
    /// user's input in the UI timeline and emits `turn_started`.
    fn begin_turn(&self, turn_id: u64, input: &TurnInput) {
        let core = &self.inner.core;
        core.link.turn.store(turn_id, Ordering::Relaxed);
        core.link.set_cancel_reason(None);
        {
            let mut st = core.lock();
            st.streaming_text.clear();
            st.tools.clear();
            st.dirty = true;
            let shown = input
                .display_input
                .clone()
                .unwrap_or_else(|| input.text.clone());
            let shown = TurnInput {
                text: shown,
                images: input.images.clone(),
                ..TurnInput::default()
            };
            st.history
                .push(HistoryEntry::Chat(Arc::new(shown.user_message())));
        }
        self.record_skill_invocation(input);
        core.link.emit_doc(
            events::TURN_STARTED,
            &TurnStartedFields {
                turn_id,
                input: InputFields {
                    text: &input.text,
                    display_input: input.display_input.as_deref(),
                },
            },
        );
    }

    /// The user's `message` event, right after `turn_started` and before any model request;
    /// the message is the one the turn then commits (its later flush skips it).
    fn announce_user_message(&self, turn_id: u64, input: &TurnInput) -> Message {
        let execution_id = crate::core::util::new_uuid();
        let user = tag_with_execution(input.user_message(), &execution_id);
        self.inner.core.lock().announced_user = Some(user.id.clone());
        self.inner
            .core
            .link
            .emit_event(Event::doc(events::MESSAGE, turn_id, &user));
        user
    }

    /// Before the model call: the context window is known, the context compacted when due,
    /// and the MCP tools in sync.
    async fn prepare_context(&self, turn_id: u64, cancel: &CancellationToken) {
        self.resolve_window(turn_id).await;
        self.auto_compact(turn_id, cancel).await;
        self.inner.mcp.sync_tools(self.inner.session.agent());
    }

    /// The engine run of the turn, inside the budget's turn accounting.
    async fn call_engine(
        &self,
        turn_id: u64,
        input: &TurnInput,
        user: Message,
        cancel: &CancellationToken,
    ) -> Result<ExecutionResult, SessionRunError> {
        let inner = &self.inner;
        let mut opts = self.run_options(
            turn_id,
            cancel,
            input.raw_input.clone(),
            input.tool_choice.clone(),
        );
        opts.output_schema = input.output_schema.clone().or_else(|| {
            inner
                .cfg
                .lock()
                .ok()
                .and_then(|c| c.call.output_schema.clone())
        });
        opts.execution_id = user
            .metadata
            .as_ref()
            .and_then(|m| m.get("executionId"))
            .and_then(|v| v.as_str())
            .map(str::to_string);
        if let Some(b) = &inner.budget {
            b.begin_turn();
        }
        let result = inner.session.run(user, opts).await;
        if let Some(b) = &inner.budget {
            b.end_turn();
        }
        result
    }

    /// The outcome of a run the session refused or the engine failed.
    fn outcome_of_error(&self, turn_id: u64, e: SessionRunError) -> TurnOutcome {
        match e {
            SessionRunError::PromptBlocked { reason } => {
                let reason = if reason.is_empty() {
                    "Blocked by hook".to_string()
                } else {
                    reason
                };
                self.finish_error(
                    turn_id,
                    "HOOK_BLOCKED",
                    &format!("Prompt blocked by hook: {reason}"),
                )
            }
            SessionRunError::Engine(e) => {
                self.finish_error_details(turn_id, &e.to_string(), robota_details(&e))
            }
        }
    }

    /// The outcome of a run that ended: its messages flushed, its usage kept, then the
    /// completion path of how it stopped.
    fn outcome_of_run(&self, turn_id: u64, start_idx: usize, r: ExecutionResult) -> TurnOutcome {
        self.flush_messages();
        if r.usage.is_some() {
            self.inner.core.lock().last_usage = r.usage;
        }
        self.inner.core.lock().turn_output = r.output.clone();
        match r.stop {
            RunStop::Aborted => self.finish_aborted(turn_id, start_idx, r.usage),
            RunStop::ContextLimit if r.error_class.is_some() => {
                // The server said the prompt does not fit its window.
                let msg = r.error.clone().unwrap_or_else(|| r.response.clone());
                let details = r.error_class.as_ref().map(robota_details);
                let mut details = details.unwrap_or_default();
                details["message"] = json!(msg);
                self.finish_failed(turn_id, "context_limit", &msg, details)
            }
            RunStop::Error => {
                let msg = r.error.clone().unwrap_or_else(|| r.response.clone());
                let mut details = match &r.error_class {
                    Some(e) => robota_details(e),
                    None => error_details("PROVIDER_ERROR", "provider", r.error_recoverable, ""),
                };
                details["message"] = json!(msg);
                self.finish_error_details(turn_id, &msg, details)
            }
            RunStop::Budget => self.finish_budget(turn_id, start_idx, &r.response, r.usage),
            RunStop::SchemaError => self.finish_schema_error(turn_id, start_idx, &r),
            stop => self.finish_ok(turn_id, start_idx, &r.response, stop, r.usage),
        }
    }

    fn push_tool_summary(&self) {
        let mut st = self.inner.core.lock();
        if !st.tools.items().is_empty() {
            let data = st.tools.summary_data();
            st.history
                .push(HistoryEntry::Event(Box::new(EventEntry::new(
                    "tool-summary",
                    data,
                ))));
        }
    }

    /// A turn the budget stopped: the `ERROR` event naming the limit, then `turn_completed`
    /// with `stop_reason:"budget"` (the answer so far kept).
    fn finish_budget(
        &self,
        turn_id: u64,
        start_idx: usize,
        response: &str,
        usage: Option<TokenUsage>,
    ) -> TurnOutcome {
        let exceeded = self.inner.budget.as_ref().and_then(|b| b.exhausted());
        let message = exceeded
            .as_ref()
            .map_or_else(|| "budget exceeded".to_string(), |e| e.message());
        if let Some(e) = &exceeded {
            self.inner.core.link.emit_event(Event::json(
                events::ERROR,
                turn_id,
                crate::sdk::config::session_budget::exceeded_event(e),
            ));
        }
        self.finish_ok(turn_id, start_idx, response, RunStop::Budget, usage);
        TurnOutcome::Budget(message)
    }

    fn finish_ok(
        &self,
        turn_id: u64,
        start_idx: usize,
        response: &str,
        stop: RunStop,
        usage: Option<TokenUsage>,
    ) -> TurnOutcome {
        self.push_tool_summary();
        let response = if response.is_empty() {
            "(empty response)"
        } else {
            response
        };
        {
            let mut st = self.inner.core.lock();
            st.history
                .push(HistoryEntry::Chat(Arc::new(Message::assistant(response))));
            st.message_count += 1;
        }
        let stop_reason = match stop {
            RunStop::MaxRounds => "max_rounds",
            RunStop::ContextLimit => "context_limit",
            RunStop::Refusal => "refusal",
            RunStop::MaxTokens => "max_tokens",
            RunStop::Budget => "budget",
            _ => "complete",
        };
        if stop == RunStop::MaxTokens {
            self.inner.core.link.emit_event(Event::json(
                events::WARNING,
                turn_id,
                json!({"code": "MAX_TOKENS", "message": "the model's output was cut at max_tokens; the answer is incomplete (a cut tool call was not run)"}),
            ));
        }
        self.emit_completed(turn_id, stop_reason, response, start_idx, usage, None);
        TurnOutcome::Done
    }

    /// A turn whose answer does not match its output schema, also after the repair round: the
    /// `ERROR` event `SCHEMA_ERROR` with the problems (`errors`), then `turn_completed` with
    /// `stop_reason:"schema_error"`, the last answer, the usage and the same details; `wait`
    /// reports it as a provider failure.
    fn finish_schema_error(
        &self,
        turn_id: u64,
        start_idx: usize,
        r: &ExecutionResult,
    ) -> TurnOutcome {
        self.push_tool_summary();
        {
            let mut st = self.inner.core.lock();
            st.history
                .push(HistoryEntry::Chat(Arc::new(Message::assistant(
                    r.response.clone(),
                ))));
            st.message_count += 1;
        }
        let message = schema_error_message(&r.schema_errors);
        let details = json!({"code": "SCHEMA_ERROR", "category": "provider", "recoverable": true,
                             "message": message, "errors": r.schema_errors});
        self.inner
            .core
            .link
            .emit_event(Event::json(events::ERROR, turn_id, details.clone()));
        self.emit_completed(
            turn_id,
            "schema_error",
            &r.response,
            start_idx,
            r.usage,
            Some((&message, details.clone())),
        );
        let mut wait_details = details;
        wait_details["v"] = json!(1);
        TurnOutcome::Failed(message, wait_details)
    }

    pub(super) fn finish_aborted(
        &self,
        turn_id: u64,
        start_idx: usize,
        usage: Option<TokenUsage>,
    ) -> TurnOutcome {
        self.flush_messages();
        let response = {
            let store = crate::core::agent::lock(self.inner.session.agent().store());
            let texts: Vec<&str> = store
                .messages()
                .get(start_idx..)
                .unwrap_or_default()
                .iter()
                .filter(|m| m.role == Role::Assistant && !m.content.is_empty())
                .map(|m| m.content.as_str())
                .collect();
            texts.join("\n\n")
        };
        self.push_tool_summary();
        {
            let mut st = self.inner.core.lock();
            if !response.is_empty() {
                st.history
                    .push(HistoryEntry::Chat(Arc::new(Message::assistant(
                        response.clone(),
                    ))));
            }
            st.history.push(HistoryEntry::Chat(Arc::new(Message::system(
                "Interrupted by user.",
            ))));
        }
        self.emit_completed(turn_id, "aborted", &response, start_idx, usage, None);
        TurnOutcome::Aborted
    }

    /// Fails the turn with a code outside the Robota taxonomy (`HOOK_BLOCKED`, `INTERNAL`…).
    pub(super) fn finish_error(&self, turn_id: u64, code: &str, message: &str) -> TurnOutcome {
        let category = if code == "PROVIDER_ERROR" {
            "provider"
        } else {
            "user"
        };
        let details = error_details(code, category, code == "PROVIDER_ERROR", message);
        self.finish_error_details(turn_id, message, details)
    }

    /// Fails the turn: the `ERROR` event is `details` (`{"code","category","recoverable",
    /// "message"}`), `TURN_COMPLETED` carries `error` (the text) and `error_details`, and
    /// `wait` returns them as its error's details.
    fn finish_error_details(&self, turn_id: u64, message: &str, details: Value) -> TurnOutcome {
        self.finish_failed(turn_id, "error", message, details)
    }

    /// [`Self::finish_error_details`] with the turn's `stop_reason`.
    fn finish_failed(
        &self,
        turn_id: u64,
        stop_reason: &str,
        message: &str,
        details: Value,
    ) -> TurnOutcome {
        self.flush_messages();
        {
            let mut st = self.inner.core.lock();
            st.history
                .push(HistoryEntry::Chat(Arc::new(Message::system(format!(
                    "Error: {message}"
                )))));
        }
        let mut event = details.clone();
        if let Value::Object(m) = &mut event {
            m.remove("v");
        }
        self.inner
            .core
            .link
            .emit_event(Event::json(events::ERROR, turn_id, event.clone()));
        self.emit_completed(
            turn_id,
            stop_reason,
            "",
            usize::MAX,
            None,
            Some((message, event)),
        );
        TurnOutcome::Failed(message.to_string(), details)
    }

    pub(super) fn emit_completed(
        &self,
        turn_id: u64,
        stop_reason: &str,
        response: &str,
        start_idx: usize,
        usage: Option<TokenUsage>,
        error: Option<(&str, Value)>,
    ) {
        // Requests the turn leaves void, reported before its end.
        self.inner.core.link.report_turn_cancelled(turn_id);
        self.persist_before_report(turn_id);
        // The turn's own messages only (not a copy of the whole history).
        let turn_msgs: Vec<Arc<Message>> = if start_idx == usize::MAX {
            Vec::new()
        } else {
            let store = self.inner.session.agent().store();
            let s = store.lock().unwrap_or_else(|p| p.into_inner());
            s.messages().get(start_idx..).unwrap_or_default().to_vec()
        };
        let (error, error_details) = match &error {
            Some((e, details)) => (Some(*e), Some(details)),
            None => (None, None),
        };
        let event = Event::doc(
            events::TURN_COMPLETED,
            turn_id,
            &TurnCompletedFields {
                turn_id,
                stop_reason,
                response,
                output: self.inner.core.lock().turn_output.take(),
                tool_summaries: tool_summaries(&turn_msgs),
                context_state: self.context_fields(),
                // Summed over the turn's model calls.
                usage: usage.as_ref().map(UsageFields::from),
                error,
                error_details,
            },
        );
        self.keep_result(&event);
        self.inner.core.link.emit_event(event);
    }

    /// Saves the session (when `persist` is on) before its `TURN_COMPLETED` is emitted: a host
    /// that reacts to that event, or to `wait` returning, finds the session file written.
    fn persist_before_report(&self, turn_id: u64) {
        self.inner.core.lock().updated_at = now_iso();
        self.persist_if_enabled(turn_id);
    }

    pub(super) fn finish(&self, turn_id: u64, outcome: TurnOutcome) {
        let core = &self.inner.core;
        let next = {
            let mut st = core.lock();
            st.phase = st.phase.run_ended();
            st.current = None;
            // A turn whose save met a conflict ends with it, whatever else happened.
            let outcome = match st.store_conflict.take() {
                Some((message, details)) => TurnOutcome::Conflict(message, details),
                None => outcome,
            };
            push_outcome(&mut st, turn_id, outcome);
            st.start_queued()
        };
        core.link.turn.store(0, Ordering::Relaxed);
        let emit_closed = take_closed_report(&mut core.lock());
        core.wake_waiters();
        crate::sdk::runtime::wake_batch::turn_ended();
        if emit_closed {
            self.end_and_report_closed();
        }
        if let Some((id, input, cancel)) = next {
            self.spawn_turn(id, input, cancel);
        }
    }
}

/// The `SCHEMA_ERROR` message: the problems of the last answer.
fn schema_error_message(problems: &[String]) -> String {
    format!(
        "the answer does not match output_schema: {}",
        problems.join("; ")
    )
}

/// `{"v":1,"code","category","recoverable","message"}` for a code outside the taxonomy.
fn error_details(code: &str, category: &str, recoverable: bool, message: &str) -> Value {
    json!({"v": 1, "code": code, "category": category, "recoverable": recoverable, "message": message})
}
