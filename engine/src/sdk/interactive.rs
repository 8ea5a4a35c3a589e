//! InteractiveSession (agent-sdk): the event-driven wrapper the C ABI's `robota_session` is.
//!
//! * Events go to an [`EventSink`](crate::sdk::events::EventSink) as `ROBOTA_EVENT_*` kinds: `turn_started` (Robota's
//!   `thinking(true)`), text/thinking deltas, committed messages, `tool_start`/`tool_end`, host
//!   tool calls, permission and hook requests, `context_update`, `error`, and `turn_completed`
//!   (Robota's `complete`/`interrupted`, told apart by `stop_reason`).
//! * Prompt queue of one: a submit while a turn runs is queued and runs next; a further submit
//!   while one is already queued is refused with [`ErrorCode::Busy`] (it does **not** replace the
//!   queued prompt, so a host never loses a prompt silently). `cancel_queue` drops the queued one.
//! * `abort` clears the queue and stops the running turn: `turn_completed` with
//!   `stop_reason:"aborted"`, the partial text kept in history.
//! * A UI timeline (`getFullHistory`) with the user's display input, `tool-start`/`tool-end`
//!   event entries, the `tool-summary` entry, the assistant reply and system notices.

use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

use super::config::SessionConfig;
use super::error::{ErrorCode, SdkError, SdkResult};
use super::events::tool_state::ToolStates;
use super::host::tools::SessionLink;
use crate::core::history::HistoryEntry;
use crate::core::permissions::{PermissionLists, PermissionMode};
use crate::core::tokens::TokenUsage;
use crate::session::Session;

mod build;
mod command_turn;
mod compact;
mod end;
mod event_fields;
pub mod images;
mod inject;
mod input;
mod observer;
mod parent;
mod queue;
mod results;
mod settings;
mod skill_turn;
mod streaming;
mod turn;
mod views;
mod window;

pub use compact::is_compact_command;
pub use input::{SkillInvocation, TurnInput, TurnOutcome};
pub use results::RESULTS_KEPT;

/// Outcomes remembered for `wait` on finished turns.
const OUTCOMES_KEPT: usize = 1024;
/// Provider idle timeout of SDK sessions (ms).
pub const PROVIDER_IDLE_TIMEOUT_MS: u64 = 120_000;

/// Permission state snapshot (the session enforcer's mode, lists and approvals).
#[derive(Debug, Clone, Default)]
pub struct PermissionState {
    /// Current mode.
    pub mode: PermissionMode,
    /// Allow/deny patterns.
    pub lists: PermissionLists,
    /// Tools allowed for the rest of the session ("allow always").
    pub session_allowed: BTreeSet<String>,
}

/// Everything restored by resume/fork.
#[derive(Debug, Clone, Default)]
pub struct Restore {
    /// Conversation timeline (what the model sees).
    pub conversation: Vec<HistoryEntry>,
    /// UI timeline.
    pub ui_history: Vec<HistoryEntry>,
    /// Successful turns so far.
    pub message_count: u64,
    /// Creation time.
    pub created_at: Option<String>,
    /// Session-approved tools.
    pub session_allowed: Vec<String>,
    /// What the budget had spent (`"budget_spent"` of a snapshot).
    pub budget_spent: Option<crate::core::budget::BudgetSpent>,
    /// The session store's version of the loaded snapshot (0: not loaded from a host store).
    pub store_version: u64,
}

/// Where a session is in its life. Closing never reopens, and no turn starts once closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    /// Open, nothing runs.
    #[default]
    Idle,
    /// Open, a turn or a compaction runs.
    Executing,
    /// Closed while a turn runs: `session_closed` waits for its end.
    Draining,
    /// Closed, nothing runs, `session_closed` not reported yet (dropped prompts still report).
    Closing,
    /// `session_closed` is reported (or being reported): the last event.
    Closed,
}

impl Phase {
    /// Whether a turn or a compaction runs.
    fn executing(self) -> bool {
        matches!(self, Phase::Executing | Phase::Draining)
    }

    /// Whether the session was closed.
    fn closed(self) -> bool {
        matches!(self, Phase::Draining | Phase::Closing | Phase::Closed)
    }

    /// The phase after the running turn or compaction ended.
    fn run_ended(self) -> Phase {
        match self {
            Phase::Executing => Phase::Idle,
            Phase::Draining => Phase::Closing,
            other => other,
        }
    }

    /// The phase after `close`.
    fn close(self) -> Phase {
        match self {
            Phase::Idle => Phase::Closing,
            Phase::Executing => Phase::Draining,
            other => other,
        }
    }
}

#[derive(Default)]
struct State {
    /// Open/running/closed (see [`Phase`]).
    phase: Phase,
    /// The sandbox whose `SANDBOX_UNAVAILABLE` warning is checked, and emitted when this
    /// system cannot enforce it, before the session's first Bash call starts.
    sandbox_to_check: Option<crate::core::sandbox::SandboxConfig>,
    current: Option<(u64, CancellationToken)>,
    /// The prompt submitted while a turn runs. Boxed: a turn's input is 424 B, which every
    /// session's state (and the frame that makes it) would otherwise carry while none waits.
    queued: Option<(u64, Box<TurnInput>)>,
    next_turn: u64,
    outcomes: VecDeque<(u64, TurnOutcome)>,
    /// The result documents of the most recent finished turns (see [`results`]).
    results: VecDeque<(u64, String)>,
    /// Id of the user message the running turn announced at its start (not yet committed).
    announced_user: Option<String>,
    /// The first failed turn no wait has reported yet (`wait(0)` returns it).
    unreported_failure: Option<u64>,
    streaming_text: String,
    /// The `CONTEXT_WINDOW_ASSUMED` warning was sent.
    window_warned: bool,
    tools: ToolStates,
    history: Vec<HistoryEntry>,
    message_count: u64,
    /// Dropped queued prompts whose `turn_completed` is not emitted yet; `session_closed`
    /// waits for them so it stays the last event.
    drop_reports: u32,
    msg_flushed: usize,
    dirty: bool,
    last_usage: Option<TokenUsage>,
    /// The running turn's validated structured output, for its `turn_completed`.
    turn_output: Option<serde_json::Value>,
    name: Option<String>,
    updated_at: String,
    /// The session store's version this session replaces at its next save (0: new).
    store_version: u64,
    /// The running turn's save hit a conflict: its outcome becomes this failure.
    store_conflict: Option<(String, serde_json::Value)>,
    /// Threads blocked in [`InteractiveSession::wait`] (see [`Core::wake_waiters`]).
    waiters: u32,
}

impl State {
    /// Refuses a between-turns operation (inject, compact): [`ErrorCode::Closed`] after close,
    /// [`ErrorCode::Busy`] with `busy` while a turn or command runs.
    fn between_turns(&self, busy: &str) -> SdkResult<()> {
        if self.phase.closed() {
            return Err(SdkError::new(ErrorCode::Closed, "the session is closed"));
        }
        if self.phase.executing() {
            return Err(SdkError::new(ErrorCode::Busy, busy));
        }
        Ok(())
    }

    /// Starts a run (turn or compaction) on an open, idle session.
    fn start_executing(&mut self) {
        debug_assert_eq!(self.phase, Phase::Idle);
        self.phase = Phase::Executing;
    }

    /// Starts the queued prompt's turn if the session is still open; returns it with its
    /// cancellation token. Call after the running turn has ended.
    fn start_queued(&mut self) -> Option<(u64, TurnInput, CancellationToken)> {
        if self.phase != Phase::Idle {
            return None;
        }
        let (id, input) = self.queued.take()?;
        let cancel = CancellationToken::new();
        self.start_executing();
        self.current = Some((id, cancel.clone()));
        Some((id, *input, cancel))
    }

    /// Whether turn `turn_id` is running or queued.
    fn turn_pending(&self, turn_id: u64) -> bool {
        self.current.as_ref().is_some_and(|c| c.0 == turn_id)
            || self.queued.as_ref().is_some_and(|q| q.0 == turn_id)
    }
}

/// State shared with the tool observer.
struct Core {
    link: Arc<SessionLink>,
    state: Mutex<State>,
    cond: Condvar,
}

impl Core {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wakes the threads waiting for a turn when there are any (a signal nobody waits for is
    /// still a system call: a turn's end and a session's close would pay it every time).
    fn wake_waiters(&self) {
        if self.lock().waiters > 0 {
            self.cond.notify_all();
        }
    }
}

struct Inner {
    core: Arc<Core>,
    session: Session,
    cfg: Mutex<Box<SessionConfig>>,
    session_id: String,
    created_at: String,
    /// The session's budget (`"budget"`).
    budget: Option<Arc<crate::core::budget::Budget>>,
    /// The session's MCP servers (connections shared with other sessions of the runtime).
    mcp: crate::sdk::mcp::SessionMcp,
}

/// The event-driven session.
#[derive(Clone)]
pub struct InteractiveSession {
    inner: Arc<Inner>,
}
