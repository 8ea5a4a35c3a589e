//! Answerable ids: host tool calls, permission requests and hook requests. Ids are unique per
//! runtime, never reused, and 0 is never issued. Answering an id that is gone (answered, timed
//! out, cancelled by an abort) is [`AnswerError::Stale`] and changes nothing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::oneshot;

/// What an id waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingKind {
    /// A host tool call (`robota_tool_call_complete`).
    ToolCall,
    /// A permission request (`robota_request_respond`).
    Permission,
    /// A host hook request (`robota_request_respond`).
    Hook,
    /// A host I/O request (`robota_host_io_complete`).
    HostIo,
    /// A host command request (`robota_request_respond`).
    Command,
}

impl PendingKind {
    /// Human name used in messages.
    pub fn describe(self) -> &'static str {
        match self {
            PendingKind::ToolCall => "tool call",
            PendingKind::Permission => "permission request",
            PendingKind::Hook => "hook request",
            PendingKind::HostIo => "host I/O request",
            PendingKind::Command => "command request",
        }
    }
}

/// The host's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A tool result.
    Tool {
        /// Result value.
        value: Value,
        /// Whether the model should see it as a failure.
        is_error: bool,
    },
    /// A permission or hook response document.
    Response(Value),
}

/// Why an answer was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// The id was never issued by this runtime.
    #[error("{0}")]
    NotFound(String),
    /// The id was issued but is no longer waiting.
    #[error("{0}")]
    Stale(String),
}

struct Entry {
    kind: PendingKind,
    owner: u64,
    turn: u64,
    tx: oneshot::Sender<Answer>,
}

/// An id withdrawn without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Withdrawn {
    /// The id.
    pub id: u64,
    /// What it waited for.
    pub kind: PendingKind,
    /// The turn that issued it (0 = none).
    pub turn: u64,
}

/// The per-runtime registry.
#[derive(Default)]
pub struct PendingRegistry {
    next: AtomicU64,
    map: Mutex<HashMap<u64, Entry>>,
}

impl PendingRegistry {
    /// A fresh registry (first id is 1).
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Entry>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Issues a new id owned by session `owner` for its turn `turn` (0 = none).
    pub fn issue(
        &self,
        kind: PendingKind,
        owner: u64,
        turn: u64,
    ) -> (u64, oneshot::Receiver<Answer>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        self.lock().insert(
            id,
            Entry {
                kind,
                owner,
                turn,
                tx,
            },
        );
        (id, rx)
    }

    /// Delivers an answer. `expected` lists the kinds the calling function may answer.
    pub fn answer(
        &self,
        id: u64,
        expected: &[PendingKind],
        answer: Answer,
    ) -> Result<(), AnswerError> {
        let what = expected.first().map_or("id", |k| k.describe());
        if id == 0 {
            return Err(AnswerError::NotFound(format!("{what} id 0 is invalid")));
        }
        let mut map = self.lock();
        match map.get(&id) {
            None => {
                drop(map);
                if id <= self.next.load(Ordering::Relaxed) {
                    Err(AnswerError::Stale(format!(
                        "id {id} is stale: it was already answered, timed out or cancelled"
                    )))
                } else {
                    Err(AnswerError::NotFound(format!(
                        "id {id} was never issued by this runtime"
                    )))
                }
            }
            Some(e) if !expected.contains(&e.kind) => Err(AnswerError::NotFound(format!(
                "id {id} is a {}, not a {what}",
                e.kind.describe()
            ))),
            Some(_) => {
                if let Some(e) = map.remove(&id) {
                    drop(map);
                    // A dropped receiver means the waiter just gave up: the answer is late.
                    if e.tx.send(answer).is_err() {
                        return Err(AnswerError::Stale(format!(
                            "id {id} is stale: its turn stopped waiting"
                        )));
                    }
                }
                Ok(())
            }
        }
    }

    /// Kind of a pending id (`None` when it is not waiting).
    pub fn kind_of(&self, id: u64) -> Option<PendingKind> {
        self.lock().get(&id).map(|e| e.kind)
    }

    /// Withdraws an id (timeout, abort); returns whether it was still pending.
    pub fn cancel(&self, id: u64) -> bool {
        self.lock().remove(&id).is_some()
    }

    /// Withdraws every id of session `owner`; returns them in issue order.
    pub fn cancel_owner(&self, owner: u64) -> Vec<Withdrawn> {
        self.withdraw_where(|e| e.owner == owner)
    }

    /// Withdraws every id of kind `kind` of session `owner`; returns them in issue order.
    pub fn cancel_owner_kind(&self, owner: u64, kind: PendingKind) -> Vec<Withdrawn> {
        self.withdraw_where(|e| e.owner == owner && e.kind == kind)
    }

    /// Withdraws every id turn `turn` of session `owner` issued; returns them in issue order.
    pub fn cancel_owner_turn(&self, owner: u64, turn: u64) -> Vec<Withdrawn> {
        self.withdraw_where(|e| e.owner == owner && e.turn == turn)
    }

    /// Withdraws the ids of session `owner` that no waiter of its running turn `running`
    /// (0 = none) reports: every id of another turn, and host I/O (its waiters block on
    /// threads of their own). Returns them in issue order.
    pub fn cancel_owner_but_turn(&self, owner: u64, running: u64) -> Vec<Withdrawn> {
        self.withdraw_where(|e| {
            e.owner == owner && (running == 0 || e.turn != running || e.kind == PendingKind::HostIo)
        })
    }

    fn withdraw_where(&self, matches: impl Fn(&Entry) -> bool) -> Vec<Withdrawn> {
        let mut map = self.lock();
        let mut ids: Vec<Withdrawn> = map
            .iter()
            .filter(|(_, e)| matches(e))
            .map(|(id, e)| Withdrawn {
                id: *id,
                kind: e.kind,
                turn: e.turn,
            })
            .collect();
        for w in &ids {
            map.remove(&w.id);
        }
        ids.sort_by_key(|w| w.id);
        ids
    }

    /// Number of ids waiting.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_stale_after_answer() {
        let r = PendingRegistry::new();
        let (a, mut rxa) = r.issue(PendingKind::ToolCall, 1, 1);
        let (b, _rxb) = r.issue(PendingKind::Permission, 1, 1);
        assert_eq!((a, b), (1, 2));
        let ans = Answer::Tool {
            value: Value::from("ok"),
            is_error: false,
        };
        assert!(r.answer(a, &[PendingKind::ToolCall], ans.clone()).is_ok());
        assert_eq!(rxa.try_recv().unwrap(), ans);
        assert!(matches!(
            r.answer(a, &[PendingKind::ToolCall], ans.clone()),
            Err(AnswerError::Stale(_))
        ));
        assert!(matches!(
            r.answer(99, &[PendingKind::ToolCall], ans.clone()),
            Err(AnswerError::NotFound(_))
        ));
        assert!(matches!(
            r.answer(b, &[PendingKind::ToolCall], ans),
            Err(AnswerError::NotFound(m)) if m == "id 2 is a permission request, not a tool call"
        ));
        assert_eq!(
            r.cancel_owner(1),
            vec![Withdrawn {
                id: 2,
                kind: PendingKind::Permission,
                turn: 1
            }]
        );
        let (c, _) = r.issue(PendingKind::Hook, 2, 0);
        assert_eq!(c, 3);
    }

    #[test]
    fn withdrawals_select_by_kind_and_turn_in_issue_order() {
        let r = PendingRegistry::new();
        let _a = r.issue(PendingKind::HostIo, 7, 1);
        let _b = r.issue(PendingKind::Hook, 7, 2);
        let _c = r.issue(PendingKind::HostIo, 7, 2);
        let _d = r.issue(PendingKind::HostIo, 8, 2);
        let w = |id, kind, turn| Withdrawn { id, kind, turn };
        assert_eq!(
            r.cancel_owner_turn(7, 2),
            vec![w(2, PendingKind::Hook, 2), w(3, PendingKind::HostIo, 2)]
        );
        assert_eq!(
            r.cancel_owner_kind(7, PendingKind::HostIo),
            vec![w(1, PendingKind::HostIo, 1)]
        );
        assert_eq!(r.len(), 1);
    }
}
