//! `ROBOTA_EVENT_REQUEST_CANCELLED` (ABI v1.2): every host request (permission, hook, host I/O,
//! command, host tool call) that becomes void without an answer is reported once, with why.
//!
//! Who withdraws an id reports it. A waiter that gives up (its turn's token fired, or it timed
//! out) reports at once, inside the turn. Ids withdrawn from outside the turn (`abort` wakes
//! host I/O on blocking threads, `close` withdraws everything) are kept and reported just before
//! the turn's `TURN_COMPLETED`, or before `SESSION_CLOSED`, so the order stays: the request's
//! own event, `REQUEST_CANCELLED`, then the turn's end. Ids the turn left behind are swept
//! before its `TURN_COMPLETED` (`"turn_ended"`).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use serde_json::json;

use crate::sdk::events::{self, Event};
use crate::sdk::host::pending::{PendingKind, Withdrawn};
use crate::sdk::host::tools::SessionLink;

/// Why a request became void (`"reason"` of the event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelReason {
    /// `robota_session_abort` stopped its turn.
    Aborted,
    /// Its turn ended for another reason.
    TurnEnded,
    /// Nobody answered within the request's timeout.
    Timeout,
    /// The session was closed or freed.
    SessionClosed,
}

impl CancelReason {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            CancelReason::Aborted => "aborted",
            CancelReason::TurnEnded => "turn_ended",
            CancelReason::Timeout => "timeout",
            CancelReason::SessionClosed => "session_closed",
        }
    }

    fn code(self) -> u8 {
        match self {
            CancelReason::Aborted => 1,
            CancelReason::TurnEnded => 2,
            CancelReason::Timeout => 3,
            CancelReason::SessionClosed => 4,
        }
    }

    fn from_code(c: u8) -> Option<Self> {
        match c {
            1 => Some(CancelReason::Aborted),
            2 => Some(CancelReason::TurnEnded),
            3 => Some(CancelReason::Timeout),
            4 => Some(CancelReason::SessionClosed),
            _ => None,
        }
    }
}

impl PendingKind {
    /// `"request_kind"` of the event.
    pub fn wire_name(self) -> &'static str {
        match self {
            PendingKind::ToolCall => "tool_call",
            PendingKind::Permission => "permission",
            PendingKind::Hook => "hook",
            PendingKind::HostIo => "host_io",
            PendingKind::Command => "command",
        }
    }
}

/// A session's cancellation bookkeeping (part of its [`SessionLink`]).
#[derive(Default)]
pub struct CancelState {
    /// Why the running turn is being stopped (0 = it is not).
    reason: AtomicU8,
    /// Ids withdrawn from outside the turn, reported at its end.
    unreported: Mutex<Vec<(Withdrawn, CancelReason)>>,
}

impl SessionLink {
    /// Records why the running turn stops (`None` at a turn's start), before its token fires.
    pub fn set_cancel_reason(&self, reason: Option<CancelReason>) {
        let code = reason.map_or(0, CancelReason::code);
        self.cancels.reason.store(code, Ordering::Release);
    }

    /// Why the running turn's requests are void: what [`Self::set_cancel_reason`] recorded,
    /// else `"turn_ended"`.
    pub fn cancel_reason(&self) -> CancelReason {
        CancelReason::from_code(self.cancels.reason.load(Ordering::Acquire))
            .unwrap_or(CancelReason::TurnEnded)
    }

    /// A waiter gives up on `id` without an answer: withdraws it and reports it (`"timeout"`
    /// when `timed_out`, else [`Self::cancel_reason`]). False when it was withdrawn already
    /// (whoever did reports it).
    pub fn withdraw_request(&self, id: u64, kind: PendingKind, timed_out: bool) -> bool {
        if !self.shared.pending().cancel(id) {
            return false;
        }
        let reason = if timed_out {
            CancelReason::Timeout
        } else {
            self.cancel_reason()
        };
        self.report_cancelled(id, kind, self.turn.load(Ordering::Relaxed), reason);
        true
    }

    /// Emits `REQUEST_CANCELLED` for `id`, issued by turn `turn`.
    pub fn report_cancelled(&self, id: u64, kind: PendingKind, turn: u64, reason: CancelReason) {
        self.emit_event(Event::json(
            events::REQUEST_CANCELLED,
            turn,
            json!({"request_id": id, "request_kind": kind.wire_name(), "reason": reason.as_str()}),
        ));
    }

    /// Keeps ids withdrawn outside the turn for [`Self::report_turn_cancelled`].
    pub fn defer_cancelled(&self, withdrawn: Vec<Withdrawn>, reason: CancelReason) {
        if withdrawn.is_empty() {
            return;
        }
        let mut list = self
            .cancels
            .unreported
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        list.extend(withdrawn.into_iter().map(|w| (w, reason)));
    }

    /// Before turn `turn`'s `TURN_COMPLETED`: withdraws what it left waiting and reports it
    /// with everything withdrawn from outside.
    pub fn report_turn_cancelled(&self, turn: u64) {
        let left = self.shared.pending().cancel_owner_turn(self.owner, turn);
        self.defer_cancelled(left, self.cancel_reason());
        self.flush_cancelled();
    }

    /// Before `SESSION_CLOSED`: withdraws and reports every request of the session.
    pub fn report_all_cancelled(&self) {
        let left = self.shared.pending().cancel_owner(self.owner);
        self.defer_cancelled(left, CancelReason::SessionClosed);
        self.flush_cancelled();
    }

    fn flush_cancelled(&self) {
        let list = std::mem::take(
            &mut *self
                .cancels
                .unreported
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        for (w, reason) in list {
            if w.kind == PendingKind::ToolCall {
                self.emit_event(Event::json(
                    events::TOOL_CALL_CANCELLED,
                    w.turn,
                    json!({"call_id": w.id}),
                ));
            }
            self.report_cancelled(w.id, w.kind, w.turn, reason);
        }
    }
}
