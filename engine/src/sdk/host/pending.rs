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
    tx: oneshot::Sender<Answer>,
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

    /// Issues a new id owned by session `owner`.
    pub fn issue(&self, kind: PendingKind, owner: u64) -> (u64, oneshot::Receiver<Answer>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id, Entry { kind, owner, tx });
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

    /// Withdraws every id of session `owner`; returns them with their kinds.
    pub fn cancel_owner(&self, owner: u64) -> Vec<(u64, PendingKind)> {
        let mut map = self.lock();
        let ids: Vec<(u64, PendingKind)> = map
            .iter()
            .filter(|(_, e)| e.owner == owner)
            .map(|(id, e)| (*id, e.kind))
            .collect();
        for (id, _) in &ids {
            map.remove(id);
        }
        ids
    }

    /// Withdraws every id of kind `kind` of session `owner`; returns how many were waiting.
    pub fn cancel_owner_kind(&self, owner: u64, kind: PendingKind) -> usize {
        let mut map = self.lock();
        let before = map.len();
        map.retain(|_, e| e.owner != owner || e.kind != kind);
        before - map.len()
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
        let (a, mut rxa) = r.issue(PendingKind::ToolCall, 1);
        let (b, _rxb) = r.issue(PendingKind::Permission, 1);
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
        assert_eq!(r.cancel_owner(1), vec![(2, PendingKind::Permission)]);
        let (c, _) = r.issue(PendingKind::Hook, 2);
        assert_eq!(c, 3);
    }
}
