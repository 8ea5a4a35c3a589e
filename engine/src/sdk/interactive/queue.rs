//! The prompt queue of an [`InteractiveSession`]: submit (queue of one), abort, cancel_queue,
//! close and wait, and the turn's spawn on the runtime.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::results::{never_submitted, report_first_failure, report_outcome};
use super::{InteractiveSession, Phase, State, TurnInput, TurnOutcome, OUTCOMES_KEPT};
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::events::{self, Event};
use crate::sdk::host::cancelled::CancelReason;
use crate::sdk::host::pending::PendingKind;

impl InteractiveSession {
    /// Submits a prompt; returns its turn id. Queues when a turn runs; [`ErrorCode::Busy`] when
    /// a prompt is already queued; [`ErrorCode::Closed`] after close.
    pub fn submit(&self, input: TurnInput) -> SdkResult<u64> {
        let (id, start) = self.accept(input)?;
        if let Some((input, cancel)) = start {
            self.spawn_turn(id, input, cancel);
        }
        Ok(id)
    }

    /// Submits a prompt and, when the session is idle, runs its turn to the end on the
    /// calling thread ([`crate::sdk::runtime::caller_drive`]); a prompt queued behind a
    /// running turn runs on the workers as [`Self::submit`]'s does. Returns the turn id (the caller then
    /// waits for it as for a submitted one).
    pub fn run(&self, input: TurnInput) -> SdkResult<u64> {
        let shared = self.inner.core.link.shared.clone();
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(SdkError::new(
                ErrorCode::Reentrant,
                "robota_session_run was called on a thread that runs an async runtime (a callback or an async worker); use robota_session_submit there",
            ));
        }
        let (id, start) = self.accept(input)?;
        if let Some((input, cancel)) = start {
            let turn = self.turn_future(id, input, cancel);
            if let Err(turn) = shared.drive_on_caller(turn) {
                self.start_on_workers(id, turn);
            }
        }
        Ok(id)
    }

    /// Checks a prompt and gives it a turn id; returns what to start when no turn runs (the
    /// prompt is queued otherwise).
    fn accept(&self, input: TurnInput) -> SdkResult<(u64, Option<(TurnInput, CancellationToken)>)> {
        let input = crate::sdk::commands::registry::expand_input(self, input)?;
        if let Some(choice) = &input.tool_choice {
            let config = self.inner.session.agent().config();
            let tools = &config.tools;
            choice
                .check(
                    "input_json: field \"tool_choice\"",
                    tools.iter().map(|t| t.name()),
                )
                .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))?;
        }
        let core = &self.inner.core;
        let (id, cancel) = {
            let mut st = core.lock();
            if st.phase.closed() {
                return Err(SdkError::new(ErrorCode::Closed, "the session is closed"));
            }
            if let Some(e) = self.inner.budget.as_ref().and_then(|b| b.exhausted()) {
                return Err(SdkError::new(ErrorCode::Budget, e.message()));
            }
            if let Some((q, _)) = &st.queued {
                return Err(SdkError::new(
                    ErrorCode::Busy,
                    format!("a prompt is already queued (turn {q}); wait for it or drop it with the cancel_queue command"),
                ));
            }
            st.next_turn += 1;
            let id = st.next_turn;
            if st.phase.executing() {
                st.queued = Some((id, Box::new(input)));
                return Ok((id, None));
            }
            let cancel = CancellationToken::new();
            st.start_executing();
            st.current = Some((id, cancel.clone()));
            (id, cancel)
        };
        Ok((id, Some((input, cancel))))
    }

    /// Starts the turn as a task on the runtime's workers (no thread per turn).
    pub(super) fn spawn_turn(&self, id: u64, input: TurnInput, cancel: CancellationToken) {
        let turn = self.turn_future(id, input, cancel);
        self.start_on_workers(id, turn);
    }

    /// Turn `id` as a future that stays small until its first poll: the turn itself (~10 KB)
    /// is made and boxed by the thread that first polls it (a worker, or the thread that
    /// drives it), not on the host's thread that submits it, whose stack it would otherwise
    /// take 16 KB deep (four fresh pages on every new host thread).
    fn turn_future(
        &self,
        id: u64,
        input: TurnInput,
        cancel: CancellationToken,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let me = self.clone();
        assert_send(async move { me.boxed_turn(id, input, cancel).await })
    }

    /// The turn, made and boxed in a frame of its own that only its first poll enters. Behind
    /// `dyn`, its polls are not inlined into the future above: that future's frame, under
    /// every poll of a turn a host thread drives, stays small (it was 8 KB, two pages of every
    /// such thread's stack).
    #[inline(never)]
    fn boxed_turn(
        self,
        id: u64,
        input: TurnInput,
        cancel: CancellationToken,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(assert_send(self.run_turn(id, input, cancel)))
    }

    /// Spawns turn `id`'s future on the workers, starting them if needed; when they cannot
    /// start, the turn fails with the reason (its waiters return it) instead of never ending.
    fn start_on_workers(
        &self,
        id: u64,
        turn: impl std::future::Future<Output = ()> + Send + 'static,
    ) {
        let link = &self.inner.core.link;
        if let Err(e) = link.shared.spawn_work(turn) {
            // The turn's events carry its id, as those of a turn that ran.
            link.turn.store(id, std::sync::atomic::Ordering::Relaxed);
            let outcome = self.finish_error(id, "INTERNAL", &e.message);
            self.finish(id, outcome);
        }
    }

    /// Aborts turn `turn_id`: the running turn stops, a queued one is dropped alone (the other
    /// goes on); 0 = the running turn and the queued prompt. Idempotent; aborting a finished
    /// turn does nothing. [`ErrorCode::NotFound`] for an id never issued.
    pub fn abort(&self, turn_id: u64) -> SdkResult<()> {
        let dropped = {
            let mut st = self.inner.core.lock();
            if turn_id > st.next_turn {
                return Err(SdkError::new(
                    ErrorCode::NotFound,
                    format!("turn {turn_id} was never submitted on this session"),
                ));
            }
            let running = st.current.as_ref().map(|c| c.0);
            let queued = st.queued.as_ref().map(|q| q.0);
            if turn_id == 0 || Some(turn_id) == running {
                if let Some((_, c)) = &st.current {
                    let link = &self.inner.core.link;
                    link.set_cancel_reason(Some(CancelReason::Aborted));
                    c.cancel();
                    // Host I/O waits on blocking threads: withdraw its ids (late answers are
                    // stale); they are reported before the turn's `turn_completed`.
                    let io = link
                        .shared
                        .pending()
                        .cancel_owner_kind(link.owner, PendingKind::HostIo);
                    link.defer_cancelled(io, CancelReason::Aborted);
                }
            }
            if turn_id == 0 || Some(turn_id) == queued {
                take_queued(&mut st)
            } else {
                None
            }
        };
        if let Some(q) = dropped {
            self.drop_queued(q);
        }
        Ok(())
    }

    /// `cancelQueue`: drops the queued prompt; returns its turn id.
    pub fn cancel_queue(&self) -> Option<u64> {
        let q = take_queued(&mut self.inner.core.lock());
        q.inspect(|id| self.drop_queued(*id))
    }

    /// Reports a prompt [`take_queued`] dropped; when the session was closed meanwhile and
    /// nothing else is left to report, `session_closed` follows (it is always the last event).
    pub(super) fn drop_queued(&self, id: u64) {
        let core = &self.inner.core;
        let event = Event::json(
            events::TURN_COMPLETED,
            id,
            json!({"turn_id": id, "stop_reason": "aborted", "started": false, "response": "",
                   "tool_summaries": [], "context_state": self.context_state(), "usage": null}),
        );
        self.keep_result(&event);
        core.wake_waiters();
        core.link.emit_event(event);
        let emit_closed = {
            let mut st = core.lock();
            st.drop_reports = st.drop_reports.saturating_sub(1);
            take_closed_report(&mut st)
        };
        if emit_closed {
            self.end_and_report_closed();
        }
    }

    /// Closes the session: aborts, drops the queue, withdraws pending ids. Once the running
    /// turn (if any) has reported, `SessionEnd` hooks fire (once) and `session_closed` follows.
    pub fn close(&self) {
        let core = &self.inner.core;
        let (dropped, emit_now, running) = {
            let mut st = core.lock();
            if st.phase.closed() {
                return;
            }
            st.phase = st.phase.close();
            let mut running = 0;
            if let Some((id, c)) = &st.current {
                core.link
                    .set_cancel_reason(Some(CancelReason::SessionClosed));
                c.cancel();
                running = *id;
            }
            let dropped = take_queued(&mut st);
            (dropped, take_closed_report(&mut st), running)
        };
        // The running turn's waiters report their own requests as they stop waiting.
        let withdrawn = core
            .link
            .shared
            .pending()
            .cancel_owner_but_turn(core.link.owner, running);
        core.link
            .defer_cancelled(withdrawn, CancelReason::SessionClosed);
        self.inner.mcp.close();
        core.wake_waiters();
        if let Some(q) = dropped {
            self.drop_queued(q);
        }
        if emit_now {
            self.end_and_report_closed();
        }
    }

    /// True once closed.
    pub fn is_closed(&self) -> bool {
        self.inner.core.lock().phase.closed()
    }

    /// Waits for turn `turn_id` (0 = until idle). `None` timeout = forever.
    pub fn wait(&self, turn_id: u64, timeout: Option<Duration>) -> SdkResult<()> {
        let core = &self.inner.core;
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = core.lock();
        loop {
            if turn_id > st.next_turn {
                return Err(never_submitted(turn_id));
            }
            let pending = if turn_id == 0 {
                st.phase.executing() || st.queued.is_some()
            } else {
                st.turn_pending(turn_id)
            };
            if !pending {
                return if turn_id == 0 {
                    report_first_failure(&mut st)
                } else {
                    report_outcome(&mut st, turn_id)
                };
            }
            match deadline {
                None => {
                    st.waiters += 1;
                    st = core.cond.wait(st).unwrap_or_else(|p| p.into_inner());
                    st.waiters -= 1;
                }
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Err(SdkError::new(
                            ErrorCode::Timeout,
                            format!("turn {turn_id} did not finish within the timeout"),
                        ));
                    }
                    st.waiters += 1;
                    st = core
                        .cond
                        .wait_timeout(st, d - now)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                    st.waiters -= 1;
                }
            }
        }
    }

    /// Whether turn `turn_id` is running or queued (an unknown or finished turn is not).
    pub fn turn_pending(&self, turn_id: u64) -> bool {
        self.inner.core.lock().turn_pending(turn_id)
    }

    /// The id of the last turn submitted (0 = none yet).
    pub fn last_turn_id(&self) -> u64 {
        self.inner.core.lock().next_turn
    }

    /// `isExecuting`.
    pub fn is_executing(&self) -> bool {
        self.inner.core.lock().phase.executing()
    }

    /// `getPendingPrompt`.
    pub fn pending_prompt(&self) -> Option<String> {
        self.inner
            .core
            .lock()
            .queued
            .as_ref()
            .map(|(_, i)| i.text.clone())
    }
}

/// Drops the queued prompt and records its turn as aborted in the same critical section, so
/// `wait` never finds the turn gone from the queue without an outcome (it would report `Ok`).
/// The caller must report it with [`InteractiveSession::drop_queued`].
pub(super) fn take_queued(st: &mut State) -> Option<u64> {
    let (id, _) = st.queued.take()?;
    push_outcome(st, id, TurnOutcome::Aborted);
    st.drop_reports += 1;
    Some(id)
}

/// True (once) when the session is closed, no turn runs and no dropped prompt still has to
/// report: the caller then emits `session_closed`, the last event.
pub(super) fn take_closed_report(st: &mut State) -> bool {
    if st.phase == Phase::Closing && st.drop_reports == 0 {
        st.phase = Phase::Closed;
        true
    } else {
        false
    }
}

pub(super) fn push_outcome(st: &mut State, id: u64, o: TurnOutcome) {
    if o != TurnOutcome::Done && st.unreported_failure.is_none() {
        st.unreported_failure = Some(id);
    }
    if st.outcomes.len() >= OUTCOMES_KEPT {
        st.outcomes.pop_front();
    }
    st.outcomes.push_back((id, o));
}

/// Compile-time guard: the turn future must stay `Send`, so a turn is a task on the runtime's
/// workers and never needs a thread of its own.
fn assert_send<F: std::future::Future + Send>(f: F) -> F {
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of what `f` returns, without calling it.
    fn returned_size<A, B, C, R>(
        _f: impl FnOnce(&'static InteractiveSession, A, B, C) -> R,
    ) -> usize {
        std::mem::size_of::<R>()
    }

    #[test]
    fn a_submitted_turn_is_small_until_its_first_poll() {
        let submitted = returned_size(InteractiveSession::turn_future);
        let whole = returned_size(|s: &'static InteractiveSession, id, input, cancel| {
            s.clone().run_turn(id, input, cancel)
        });
        // What the host's thread makes (and moves) when it submits: the turn's inputs, not
        // the turn, which is made by the thread that first polls it.
        assert!(
            submitted <= std::mem::size_of::<TurnInput>() + 128,
            "{submitted} B"
        );
        assert!(whole > 4 * submitted, "{whole} B against {submitted} B");
    }
}
