//! A turn's result without re-deriving it from events (ABI v1.2): the document of its
//! `TURN_COMPLETED` event, kept for the [`RESULTS_KEPT`] most recent finished turns, and the
//! errors `wait` gives for a turn's outcome.

use super::{InteractiveSession, State, TurnOutcome};
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::events::Event;

/// Result documents kept per session (the most recent finished turns).
pub const RESULTS_KEPT: usize = 64;

impl InteractiveSession {
    /// Keeps `event` (a `TURN_COMPLETED`) as its turn's result document; call before emitting
    /// it, so a host that saw the event or returned from `wait` finds the document.
    pub(super) fn keep_result(&self, event: &Event) {
        let doc = event.to_pull_text();
        let mut st = self.inner.core.lock();
        if st.results.len() >= RESULTS_KEPT {
            st.results.pop_front();
        }
        st.results.push_back((event.turn_id, doc));
    }

    /// The result document (`TURN_COMPLETED` in pull form) of finished turn `turn_id`.
    /// [`ErrorCode::NotFound`] when it was never submitted, or finished more than
    /// [`RESULTS_KEPT`] turns ago (its document was dropped); `Ok(None)` while it runs.
    pub fn turn_result(&self, turn_id: u64) -> SdkResult<Option<String>> {
        let st = self.inner.core.lock();
        if turn_id == 0 || turn_id > st.next_turn {
            return Err(never_submitted(turn_id));
        }
        if let Some((_, doc)) = st.results.iter().rev().find(|(id, _)| *id == turn_id) {
            return Ok(Some(doc.clone()));
        }
        if st.turn_pending(turn_id) {
            return Ok(None);
        }
        Err(SdkError::new(
            ErrorCode::NotFound,
            format!(
                "the result of turn {turn_id} was dropped: results are kept for the {RESULTS_KEPT} most recent turns of a session"
            ),
        ))
    }
}

/// The error of an id that was never issued.
pub(super) fn never_submitted(turn_id: u64) -> SdkError {
    SdkError::new(
        ErrorCode::NotFound,
        format!("turn {turn_id} was never submitted on this session"),
    )
}

/// What `wait` returns for turn `turn_id` that ended with `outcome`.
pub(super) fn outcome_result(turn_id: u64, outcome: Option<&TurnOutcome>) -> SdkResult<()> {
    match outcome {
        Some(TurnOutcome::Aborted) => Err(SdkError::new(
            ErrorCode::Aborted,
            format!("turn {turn_id} was aborted"),
        )),
        Some(TurnOutcome::Budget(m)) => Err(SdkError::new(
            ErrorCode::Budget,
            format!("turn {turn_id} stopped: {m}"),
        )),
        Some(TurnOutcome::Failed(m, details)) => Err(SdkError {
            code: ErrorCode::Provider,
            message: format!("turn {turn_id} failed: {m}"),
            details: Some(Box::new(details.clone())),
        }),
        Some(TurnOutcome::Conflict(m, details)) => Err(SdkError {
            code: ErrorCode::Conflict,
            message: format!("turn {turn_id} could not be saved: {m}"),
            details: Some(Box::new(details.clone())),
        }),
        Some(TurnOutcome::Done) | None => Ok(()),
    }
}

/// The outcome of finished turn `turn_id` as `wait` reports it; a reported failure is no
/// longer the one `wait(0)` returns.
pub(super) fn report_outcome(st: &mut State, turn_id: u64) -> SdkResult<()> {
    if st.unreported_failure == Some(turn_id) {
        st.unreported_failure = None;
    }
    let outcome = st.outcomes.iter().rev().find(|(id, _)| *id == turn_id);
    outcome_result(turn_id, outcome.map(|(_, o)| o))
}

/// `wait(0)` on an idle session: the first failed turn since the last wait, if any.
pub(super) fn report_first_failure(st: &mut State) -> SdkResult<()> {
    match st.unreported_failure.take() {
        Some(id) => report_outcome(st, id),
        None => Ok(()),
    }
}
