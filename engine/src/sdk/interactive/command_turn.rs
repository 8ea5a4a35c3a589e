//! The start of a `/name args` turn that names a host command: the host is asked first
//! ([`crate::sdk::commands::host::ask`]); its `prompt` becomes the turn's text, otherwise the
//! turn completes with the command's `message` as its response and no model call.

use tokio_util::sync::CancellationToken;

use super::{InteractiveSession, TurnInput, TurnOutcome};
use crate::sdk::commands;

impl InteractiveSession {
    /// `Some(input)` to go on with; `None` when the command finished the turn.
    pub(super) async fn host_command_turn(
        &self,
        turn_id: u64,
        mut input: TurnInput,
        cancel: &CancellationToken,
    ) -> Option<TurnInput> {
        let Some((name, args)) = input.host_command.take() else {
            return Some(input);
        };
        let outcome = match commands::host::ask(self.link(), &name, &args, cancel).await {
            Err(_) if cancel.is_cancelled() => {
                let start = self.inner.session.agent().message_count();
                self.finish_aborted(turn_id, start, None)
            }
            Err(why) => self.finish_error(
                turn_id,
                "COMMAND_FAILED",
                &format!("Command \"{name}\" failed: {why}"),
            ),
            Ok(r) if !r.success => self.finish_error(turn_id, "COMMAND_FAILED", &r.message),
            Ok(r) => match r.prompt {
                Some(p) => {
                    input.text = p;
                    return Some(input);
                }
                None => {
                    self.emit_completed(turn_id, "complete", &r.message, usize::MAX, None, None);
                    TurnOutcome::Done
                }
            },
        };
        self.finish(turn_id, outcome);
        None
    }
}
