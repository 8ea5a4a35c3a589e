//! Turns that invoke a skill: the `skill-invocation` history entry, and a `context: fork`
//! skill's turn, which runs the skill in a fork worker (no model call of its own) and completes
//! with the worker's report as its response (`SKILL_FAILED` when the worker failed).

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{InteractiveSession, TurnInput, TurnOutcome};
use crate::core::history::{EventEntry, HistoryEntry};
use crate::core::message::Message;
use crate::sdk::commands::{fork, skills};
use crate::sdk::subagent::Parent;

impl InteractiveSession {
    /// Records the `skill-invocation` entry `{"skillName","displayInput"}` of a skill's turn.
    pub(super) fn record_skill_invocation(&self, input: &TurnInput) {
        let Some(inv) = &input.skill else { return };
        let data = json!({"skillName": inv.skill.name, "displayInput": inv.display_input});
        self.inner
            .core
            .lock()
            .history
            .push(HistoryEntry::Event(Box::new(EventEntry::new(
                "skill-invocation",
                data,
            ))));
    }

    /// `Some(input)` to go on with; `None` when a fork skill's worker finished the turn.
    pub(super) async fn fork_skill_turn(
        &self,
        turn_id: u64,
        input: TurnInput,
        cancel: &CancellationToken,
    ) -> Option<TurnInput> {
        let inv = match &input.skill {
            Some(inv) if skills::is_fork(&inv.skill) => inv,
            _ => return Some(input),
        };
        let parent: Arc<dyn Parent> = self.inner.clone();
        let run = fork::run_fork(&parent, &inv.skill, &inv.args, None, cancel.clone()).await;
        let outcome = match run {
            Err(_) if cancel.is_cancelled() => {
                let start = self.inner.session.agent().message_count();
                self.finish_aborted(turn_id, start, None)
            }
            Err(why) => self.finish_error(turn_id, "SKILL_FAILED", &why),
            Ok(report) => {
                self.inner
                    .core
                    .lock()
                    .history
                    .push(HistoryEntry::Chat(Arc::new(Message::assistant(
                        report.clone(),
                    ))));
                self.emit_completed(turn_id, "complete", &report, usize::MAX, None, None);
                TurnOutcome::Done
            }
        };
        self.finish(turn_id, outcome);
        None
    }
}
