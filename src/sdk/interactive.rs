//! InteractiveSession (agent-sdk): the event-driven wrapper the C ABI's `robota_session` is.
//!
//! * Events go to an [`EventSink`] as `ROBOTA_EVENT_*` kinds: `turn_started` (the reference's
//!   `thinking(true)`), text/thinking deltas, committed messages, `tool_start`/`tool_end`, host
//!   tool calls, permission and hook requests, `context_update`, `error`, and `turn_completed`
//!   (the reference's `complete`/`interrupted`, told apart by `stop_reason`).
//! * Prompt queue of one: a submit while a turn runs is queued and runs next; a further submit
//!   while one is already queued is refused with [`ErrorCode::Busy`] (it does **not** replace the
//!   queued prompt, so a host never loses a prompt silently). `cancel_queue` drops the queued one.
//! * `abort` clears the queue and stops the running turn: `turn_completed` with
//!   `stop_reason:"aborted"`, the partial text kept in history.
//! * A UI timeline (`getFullHistory`) with the user's display input, `tool-start`/`tool-end`
//!   event entries, the `tool-summary` entry, the assistant reply and system notices.

use std::collections::{BTreeSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::bridge::{HostApproval, HostHookExecutor};
use super::config::SessionConfig;
use super::error::{ErrorCode, SdkError, SdkResult};
use super::events::{self, Event, EventSink};
use super::host_tool::{SessionHostTool, SessionLink};
use super::runtime::RuntimeShared;
use super::tool_state::{ToolOutcome, ToolState, ToolStates};
use crate::core::history::{EventEntry, HistoryEntry};
use crate::core::hooks::{HookExecutor, HooksConfig};
use crate::core::message::Message;
use crate::core::models::model_context_window;
use crate::core::permissions::{PermissionLists, PermissionMode};
use crate::core::store::ConversationStore;
use crate::core::tokens::{estimate_context_with_len, TokenUsage};
use crate::core::tool::Tool;
use crate::core::util::{new_uuid, now_iso, prefixed_id, round2};
use crate::session::{
    ApprovalHandler, ContextState, Session, SessionObserver, SessionOptions, ToolEndResult,
};

mod end;
mod turn;

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

/// One prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnInput {
    /// What the model gets.
    pub text: String,
    /// What the UI shows (default: `text`).
    pub display_input: Option<String>,
    /// What hooks match on (default: `text`).
    pub raw_input: Option<String>,
}

impl TurnInput {
    /// Parses `{"text":"…","display_input"?,"raw_input"?}`.
    pub fn from_json(text: &str) -> SdkResult<Self> {
        let map = super::config::parse_object("input_json", text)?;
        let field = |k: &str| -> SdkResult<Option<String>> {
            match map.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(SdkError::config(format!(
                    "input_json: field \"{k}\" must be a string"
                ))),
            }
        };
        let text = field("text")?
            .ok_or_else(|| SdkError::config("input_json: missing required field \"text\""))?;
        Ok(TurnInput {
            text,
            display_input: field("display_input")?,
            raw_input: field("raw_input")?,
        })
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("text".into(), json!(self.text));
        if let Some(d) = &self.display_input {
            m.insert("display_input".into(), json!(d));
        }
        Value::Object(m)
    }
}

/// How a finished turn ended (for `wait`).
#[derive(Debug, Clone, PartialEq)]
pub enum TurnOutcome {
    /// Complete, max_rounds or context_limit.
    Done,
    /// Aborted (also a queued prompt dropped by abort/cancel_queue/close).
    Aborted,
    /// Failed with this message.
    Failed(String),
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
}

#[derive(Default)]
struct State {
    executing: bool,
    current: Option<(u64, CancellationToken)>,
    queued: Option<(u64, TurnInput)>,
    next_turn: u64,
    outcomes: VecDeque<(u64, TurnOutcome)>,
    streaming_text: String,
    tools: ToolStates,
    history: Vec<HistoryEntry>,
    message_count: u64,
    closed: bool,
    closed_emitted: bool,
    /// Dropped queued prompts whose `turn_completed` is not emitted yet; `session_closed`
    /// waits for them so it stays the last event.
    drop_reports: u32,
    msg_flushed: usize,
    dirty: bool,
    last_usage: Option<TokenUsage>,
    name: Option<String>,
    updated_at: String,
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
}

fn outcome_of(result: ToolEndResult) -> ToolOutcome {
    match result {
        ToolEndResult::Success => ToolOutcome::Success,
        ToolEndResult::Error => ToolOutcome::Error,
        ToolEndResult::Denied => ToolOutcome::Denied,
    }
}

/// The `context_update` payload (`{used_tokens, max_tokens, used_percentage, remaining_percentage}`).
fn context_json(c: &ContextState) -> Value {
    json!({"used_tokens": c.used_tokens, "max_tokens": c.max_tokens,
           "used_percentage": c.used_percentage, "remaining_percentage": c.remaining_percentage})
}

impl SessionObserver for Core {
    fn on_tool_start(&self, call_id: &str, name: &str, args: &Value, schema: &Value) {
        let st = {
            let mut s = self.lock();
            let st = s.tools.start(name, args, schema);
            s.history.push(HistoryEntry::Event(EventEntry::new(
                "tool-start",
                json!(st),
            )));
            st
        };
        self.link.emit(
            events::TOOL_START,
            json!({
                "tool_call_id": call_id,
                "tool_name": name,
                "first_arg": st.first_arg,
                "arguments": args,
            }),
        );
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
        {
            let mut s = self.lock();
            let st = s.tools.end(name, args, outcome);
            s.history
                .push(HistoryEntry::Event(EventEntry::new("tool-end", json!(st))));
            s.dirty = true;
        }
        let output = if outcome == ToolOutcome::Error {
            format!("Error: {output}")
        } else {
            output.to_string()
        };
        self.link.emit(
            events::TOOL_END,
            json!({
                "tool_call_id": call_id,
                "tool_name": name,
                "result": outcome.as_str(),
                "output": output,
            }),
        );
    }

    fn on_context_update(&self, state: &ContextState) {
        self.link.emit(events::CONTEXT_UPDATE, context_json(state));
    }

    fn on_warning(&self, message: &str) {
        self.link.emit(events::WARNING, json!({"message": message}));
    }
}

struct Inner {
    core: Arc<Core>,
    session: Session,
    cfg: Mutex<SessionConfig>,
    session_id: String,
    created_at: String,
}

/// The event-driven session.
#[derive(Clone)]
pub struct InteractiveSession {
    inner: Arc<Inner>,
}

/// Names of the built-in tools.
fn builtin_names() -> Vec<&'static str> {
    crate::tools::BUILTIN_TOOL_NAMES.to_vec()
}

impl InteractiveSession {
    /// Builds a session. `can_answer` says whether the host can answer requests at all.
    pub fn new(
        shared: Arc<RuntimeShared>,
        cfg: SessionConfig,
        sink: EventSink,
        can_answer: bool,
        restore: Option<Restore>,
    ) -> SdkResult<Self> {
        let mut cfg = cfg;
        let settings =
            super::assembly::apply_settings(&mut cfg, &super::assembly::env_of(&shared))?;
        let tool_env = super::assembly::tool_env(&cfg, settings.as_ref());
        if cfg.persist && shared.config.session_dir.is_none() {
            return Err(SdkError::config(
                "session config: \"persist\": true needs \"session_dir\" in the runtime config",
            ));
        }
        let provider = shared.make_provider(&cfg.provider)?;
        let restore = restore.unwrap_or_default();
        let session_id = cfg
            .session_id
            .clone()
            .unwrap_or_else(|| prefixed_id("session"));
        let link = Arc::new(SessionLink {
            owner: shared.next_session_uid(),
            shared: shared.clone(),
            sink,
            turn: Default::default(),
            request_timeout_ms: cfg
                .request_timeout_ms
                .unwrap_or(shared.config.request_timeout_ms),
            can_answer,
            released: Default::default(),
        });
        let host_defs = shared.host_tools();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        match &cfg.tools {
            None => {
                for n in builtin_names() {
                    if let Some(t) =
                        super::assembly::builtin(&shared, tool_env.as_ref(), n, &cfg.cwd)
                    {
                        tools.push(t);
                    }
                }
                for d in &host_defs {
                    tools.push(Arc::new(SessionHostTool {
                        def: d.clone(),
                        link: link.clone(),
                    }));
                }
            }
            Some(names) => {
                for n in names {
                    if let Some(d) = host_defs.iter().find(|d| &d.name == n) {
                        tools.push(Arc::new(SessionHostTool {
                            def: d.clone(),
                            link: link.clone(),
                        }));
                    } else if let Some(t) =
                        super::assembly::builtin(&shared, tool_env.as_ref(), n, &cfg.cwd)
                    {
                        tools.push(t);
                    } else {
                        let mut known: Vec<String> =
                            builtin_names().iter().map(|s| s.to_string()).collect();
                        known.extend(host_defs.iter().map(|d| d.name.clone()));
                        return Err(SdkError::new(
                            ErrorCode::NotFound,
                            format!(
                                "session config: unknown tool \"{n}\" (available: {})",
                                if known.is_empty() {
                                    "none".into()
                                } else {
                                    known.join(", ")
                                }
                            ),
                        ));
                    }
                }
            }
        }
        cfg.params.prompt =
            super::assembly::prompt_inputs(&cfg, settings.as_ref(), &tools).map(Arc::new);
        let core = Arc::new(Core {
            link: link.clone(),
            state: Mutex::new(State {
                history: restore.ui_history,
                message_count: restore.message_count,
                name: cfg.name.clone(),
                updated_at: now_iso(),
                ..Default::default()
            }),
            cond: Condvar::new(),
        });
        let hooks = match &cfg.hooks {
            None => HooksConfig::default(),
            Some(v) => HooksConfig::from_json(v)
                .map_err(|e| SdkError::config(format!("session config: field \"hooks\": {e}")))?,
        };
        let read_only: BTreeSet<String> = host_defs
            .iter()
            .filter(|d| d.read_only)
            .map(|d| d.name.clone())
            .collect();
        let approval = Arc::new(HostApproval {
            link: link.clone(),
            read_only,
            enforcer: OnceLock::new(),
        });
        let host_hooks: Arc<dyn HookExecutor> = Arc::new(HostHookExecutor { link: link.clone() });
        let mut so = SessionOptions::new(provider, cfg.model.clone());
        so.system_message = super::assembly::system_message(&cfg);
        so.context_max_tokens = cfg.params.context_window;
        if let Some(st) = &settings {
            so.hook_env = st.env.clone();
        }
        so.tools = tools;
        so.cwd = PathBuf::from(&cfg.cwd);
        so.permission_mode = cfg.permission_mode;
        so.permissions = cfg.permissions.clone();
        so.hooks = hooks;
        so.extra_hook_executors = vec![host_hooks];
        so.approval_handler = Some(approval.clone() as Arc<dyn ApprovalHandler>);
        so.observer = Some(core.clone() as Arc<dyn SessionObserver>);
        so.max_turns = cfg.max_rounds;
        so.provider_timeout_ms = Some(PROVIDER_IDLE_TIMEOUT_MS);
        so.session_id = Some(session_id.clone());
        so.history = Some(ConversationStore::from_entries(restore.conversation));
        let session =
            Session::new(so).map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))?;
        let _ = approval.enforcer.set(Arc::downgrade(session.enforcer()));
        for t in &restore.session_allowed {
            session.enforcer().allow_for_session(t);
        }
        let sid = session_id.clone();
        session
            .agent()
            .update_config(|c| {
                c.conversation_id = sid;
                c.temperature = cfg.params.temperature.map(|t| t as f32);
                c.max_tokens = cfg.params.max_tokens;
                c.thinking_budget = cfg.params.thinking_budget;
                c.native_web_tools.web_search |= cfg.params.native_web_search;
            })
            .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))?;
        let agent = session.agent();
        {
            let mut st = core.lock();
            st.msg_flushed = agent.messages().len();
        }
        super::log::log(
            super::log::DEBUG,
            "robota::session",
            format!("session {session_id} created ({})", cfg.delivery.as_str()),
        );
        Ok(InteractiveSession {
            inner: Arc::new(Inner {
                core,
                session,
                cfg: Mutex::new(cfg),
                session_id,
                created_at: restore.created_at.unwrap_or_else(now_iso),
            }),
        })
    }

    /// The runtime this session runs on.
    pub fn shared(&self) -> &Arc<RuntimeShared> {
        &self.inner.core.link.shared
    }

    /// Session id.
    pub fn session_id(&self) -> &str {
        &self.inner.session_id
    }

    /// Creation time.
    pub fn created_at(&self) -> &str {
        &self.inner.created_at
    }

    /// The config now in force (model and mode changes applied).
    pub fn config(&self) -> SessionConfig {
        let mut c = self
            .inner
            .cfg
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        c.model = self.inner.session.agent().config().model;
        let p = self.permission_state();
        c.permission_mode = p.mode;
        c.permissions = p.lists;
        c.name = self.name();
        c
    }

    /// Permission state snapshot (read from the session's enforcer).
    pub fn permission_state(&self) -> PermissionState {
        let session = &self.inner.session;
        PermissionState {
            mode: session.permission_mode(),
            lists: session.enforcer().lists().clone(),
            session_allowed: session.session_allowed_tools().into_iter().collect(),
        }
    }

    /// Sets the permission mode (applies to the next tool call).
    pub fn set_permission_mode(&self, mode: PermissionMode) {
        self.inner.session.set_permission_mode(mode);
    }

    /// Changes the model for the next turn.
    pub fn set_model(&self, model: &str) -> SdkResult<()> {
        self.inner
            .session
            .set_model(model)
            .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))
    }

    /// Emits the problems found while assembling the session (settings files, `$ENV:`
    /// references, skills) as `WARNING` events `{"code":"SETTINGS_INVALID"|"SKILL_INVALID",
    /// "message"}`, once.
    pub fn emit_startup_warnings(&self) {
        let warnings = std::mem::take(
            &mut self
                .inner
                .cfg
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .params
                .warnings,
        );
        for w in warnings {
            let code = if w.starts_with("skill ") {
                "SKILL_INVALID"
            } else {
                "SETTINGS_INVALID"
            };
            self.inner
                .core
                .link
                .emit(events::WARNING, json!({"code": code, "message": w}));
        }
    }

    /// Sets the response language; the system prompt changes from the next turn.
    pub fn set_language(&self, language: &str) -> SdkResult<()> {
        let message = {
            let mut cfg = self.inner.cfg.lock().unwrap_or_else(|p| p.into_inner());
            cfg.params.language = Some(language.to_string());
            super::assembly::system_message(&cfg)
        };
        self.inner
            .session
            .set_system_message(&message)
            .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))
    }

    /// User-facing name.
    pub fn name(&self) -> Option<String> {
        self.inner.core.lock().name.clone()
    }

    /// Renames the session.
    pub fn set_name(&self, name: &str) {
        self.inner.core.lock().name = Some(name.to_string());
    }

    /// Submits a prompt; returns its turn id. Queues when a turn runs; [`ErrorCode::Busy`] when
    /// a prompt is already queued; [`ErrorCode::Closed`] after close.
    pub fn submit(&self, input: TurnInput) -> SdkResult<u64> {
        let input = super::command_registry::expand_input(self, input)?;
        let core = &self.inner.core;
        let (id, cancel) = {
            let mut st = core.lock();
            if st.closed {
                return Err(SdkError::new(ErrorCode::Closed, "the session is closed"));
            }
            if let Some((q, _)) = &st.queued {
                return Err(SdkError::new(
                    ErrorCode::Busy,
                    format!("a prompt is already queued (turn {q}); wait for it or drop it with the cancel_queue command"),
                ));
            }
            st.next_turn += 1;
            let id = st.next_turn;
            if st.executing {
                st.queued = Some((id, input));
                return Ok(id);
            }
            let cancel = CancellationToken::new();
            st.executing = true;
            st.current = Some((id, cancel.clone()));
            (id, cancel)
        };
        self.spawn_turn(id, input, cancel);
        Ok(id)
    }

    fn spawn_turn(&self, id: u64, input: TurnInput, cancel: CancellationToken) {
        // The engine's turn future is driven by `block_on` on a short-lived turn thread: it
        // does not have to be `Send`, and the workers stay free for I/O.
        let me = self.clone();
        let shared = self.inner.core.link.shared.clone();
        let handle = shared.handle.clone();
        let spawned = std::thread::Builder::new()
            .name("robota-turn".into())
            .spawn(move || {
                super::signals::block_sigpipe_on_this_thread();
                handle.block_on(me.run_turn(id, input, cancel))
            });
        match spawned {
            Ok(j) => shared.track_thread(j),
            Err(e) => {
                let outcome = self.finish_error(
                    id,
                    "INTERNAL",
                    &format!("cannot start the turn thread: {e}"),
                );
                self.finish(id, outcome);
            }
        }
    }

    /// Aborts turn `turn_id` (0 = the running one) and clears the queue. Idempotent; aborting a
    /// finished turn does nothing. [`ErrorCode::NotFound`] for an id never issued.
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
                    c.cancel();
                }
                take_queued(&mut st)
            } else if Some(turn_id) == queued {
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
    fn drop_queued(&self, id: u64) {
        let core = &self.inner.core;
        core.cond.notify_all();
        core.link.emit_event(Event::json(
            events::TURN_COMPLETED,
            id,
            json!({"turn_id": id, "stop_reason": "aborted", "started": false, "response": "",
                   "tool_summaries": [], "context_state": self.context_state(), "usage": null}),
        ));
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
        let (dropped, emit_now) = {
            let mut st = core.lock();
            if st.closed {
                return;
            }
            st.closed = true;
            if let Some((_, c)) = &st.current {
                c.cancel();
            }
            let dropped = take_queued(&mut st);
            (dropped, take_closed_report(&mut st))
        };
        core.link.shared.pending.cancel_owner(core.link.owner);
        core.cond.notify_all();
        if let Some(q) = dropped {
            self.drop_queued(q);
        }
        if emit_now {
            self.end_and_report_closed();
        }
    }

    /// True once closed.
    pub fn is_closed(&self) -> bool {
        self.inner.core.lock().closed
    }

    /// Waits for turn `turn_id` (0 = until idle). `None` timeout = forever.
    pub fn wait(&self, turn_id: u64, timeout: Option<Duration>) -> SdkResult<()> {
        let core = &self.inner.core;
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = core.lock();
        loop {
            if turn_id > st.next_turn {
                return Err(SdkError::new(
                    ErrorCode::NotFound,
                    format!("turn {turn_id} was never submitted on this session"),
                ));
            }
            let pending = if turn_id == 0 {
                st.executing || st.queued.is_some()
            } else {
                st.current.as_ref().is_some_and(|c| c.0 == turn_id)
                    || st.queued.as_ref().is_some_and(|q| q.0 == turn_id)
            };
            if !pending {
                if turn_id == 0 {
                    return Ok(());
                }
                return match st.outcomes.iter().find(|(id, _)| *id == turn_id) {
                    Some((_, TurnOutcome::Aborted)) => Err(SdkError::new(
                        ErrorCode::Aborted,
                        format!("turn {turn_id} was aborted"),
                    )),
                    Some((_, TurnOutcome::Failed(m))) => Err(SdkError::new(
                        ErrorCode::Provider,
                        format!("turn {turn_id} failed: {m}"),
                    )),
                    _ => Ok(()),
                };
            }
            match deadline {
                None => st = core.cond.wait(st).unwrap_or_else(|p| p.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Err(SdkError::new(
                            ErrorCode::Timeout,
                            format!("turn {turn_id} did not finish within the timeout"),
                        ));
                    }
                    st = core
                        .cond
                        .wait_timeout(st, d - now)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                }
            }
        }
    }

    /// The id of the last turn submitted (0 = none yet).
    pub fn last_turn_id(&self) -> u64 {
        self.inner.core.lock().next_turn
    }

    /// `isExecuting`.
    pub fn is_executing(&self) -> bool {
        self.inner.core.lock().executing
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

    /// `getStreamingText`.
    pub fn streaming_text(&self) -> String {
        self.inner.core.lock().streaming_text.clone()
    }

    /// `getActiveTools`.
    pub fn active_tools(&self) -> Vec<ToolState> {
        self.inner.core.lock().tools.items().to_vec()
    }

    /// `getFullHistory`: the UI timeline.
    pub fn full_history(&self) -> Vec<HistoryEntry> {
        self.inner.core.lock().history.clone()
    }

    /// `getMessages`: chat entries of the UI timeline.
    pub fn ui_messages(&self) -> Vec<Arc<Message>> {
        crate::core::history::messages_of(&self.inner.core.lock().history)
    }

    /// The conversation the model sees (consistent snapshot, safe during a turn).
    pub fn conversation(&self) -> Vec<Arc<Message>> {
        self.inner.session.agent().messages()
    }

    /// The conversation timeline (chat + engine event entries).
    pub fn conversation_entries(&self) -> Vec<HistoryEntry> {
        self.inner.session.agent().history()
    }

    /// Successful turns.
    pub fn message_count(&self) -> u64 {
        self.inner.core.lock().message_count
    }

    /// Last save/turn time.
    pub fn updated_at(&self) -> String {
        self.inner.core.lock().updated_at.clone()
    }

    /// `getContextState`: `{used_tokens, max_tokens, used_percentage, remaining_percentage}`.
    pub fn context_state(&self) -> Value {
        let (used, max) = self.context_numbers();
        let pct = if max == 0 {
            0.0
        } else {
            round2((used as f64 / max as f64 * 100.0).min(100.0))
        };
        json!({"used_tokens": used, "max_tokens": max, "used_percentage": pct,
               "remaining_percentage": round2(100.0 - pct)})
    }

    /// `(used, max)` tokens.
    pub fn context_numbers(&self) -> (u64, u64) {
        let (msgs, len) = {
            let store = self.inner.session.agent().store();
            let s = store.lock().unwrap_or_else(|p| p.into_inner());
            (s.messages().to_vec(), s.serialized_len())
        };
        let cfg = self.inner.session.agent().config();
        let max = cfg
            .context_window
            .unwrap_or_else(|| model_context_window(&cfg.model));
        (estimate_context_with_len(&msgs, len, None).used_tokens, max)
    }

    /// `clearHistory` (refused while a turn runs).
    pub fn clear(&self) -> SdkResult<()> {
        let mut st = self.inner.core.lock();
        if st.executing {
            return Err(SdkError::new(
                ErrorCode::Busy,
                "Another prompt or command is already running. Wait for it to finish.",
            ));
        }
        self.inner.session.agent().clear_history();
        st.history.clear();
        st.tools.clear();
        st.streaming_text.clear();
        st.msg_flushed = self.inner.session.agent().messages().len();
        Ok(())
    }

    /// State document (`robota_session_state`).
    pub fn state_json(&self) -> Value {
        let ctx = self.context_state();
        let perms = self.permission_state();
        let model = self.inner.session.agent().config().model;
        let cfg = self.config();
        let st = self.inner.core.lock();
        json!({
            "v": 1,
            "session_id": self.inner.session_id,
            "name": st.name,
            "executing": st.executing,
            "closed": st.closed,
            "current_turn": st.current.as_ref().map(|c| c.0),
            "queued_turn": st.queued.as_ref().map(|q| q.0),
            "pending_prompt": st.queued.as_ref().map(|q| q.1.text.clone()),
            "streaming_text": st.streaming_text,
            "active_tools": st.tools.items(),
            "context_state": ctx,
            "message_count": st.message_count,
            "model": model,
            "provider": cfg.provider,
            "delivery": cfg.delivery.as_str(),
            "permission_mode": perms.mode.as_str(),
            "session_allowed_tools": perms.session_allowed,
        })
    }

    fn flush_messages(&self) {
        let msgs = self.inner.session.agent().messages();
        let (from, turn) = {
            let mut st = self.inner.core.lock();
            let from = st.msg_flushed.min(msgs.len());
            st.msg_flushed = msgs.len();
            (from, self.inner.core.link.turn.load(Ordering::Relaxed))
        };
        for m in &msgs[from..] {
            self.inner.core.link.emit_event(Event::json(
                events::MESSAGE,
                turn,
                serde_json::to_value(m.as_ref()).unwrap_or(Value::Null),
            ));
        }
    }

    /// Session-approved tools.
    pub fn session_allowed(&self) -> Vec<String> {
        self.permission_state()
            .session_allowed
            .into_iter()
            .collect()
    }

    /// Restore data for a fork (consistent copy, safe during a turn).
    pub fn fork_restore(&self) -> Restore {
        Restore {
            conversation: self.inner.session.agent().history(),
            ui_history: self.full_history(),
            message_count: self.message_count(),
            created_at: None,
            session_allowed: self.session_allowed(),
        }
    }

    /// A new unique id (helper for forks).
    pub fn new_session_id() -> String {
        prefixed_id("session")
    }

    /// Entry id helper (kept for hosts adding entries).
    pub fn new_entry_id() -> String {
        new_uuid()
    }
}

/// Drops the queued prompt and records its turn as aborted in the same critical section, so
/// `wait` never finds the turn gone from the queue without an outcome (it would report `Ok`).
/// The caller must report it with [`InteractiveSession::drop_queued`].
fn take_queued(st: &mut State) -> Option<u64> {
    let (id, _) = st.queued.take()?;
    push_outcome(st, id, TurnOutcome::Aborted);
    st.drop_reports += 1;
    Some(id)
}

/// True (once) when the session is closed, no turn runs and no dropped prompt still has to
/// report: the caller then emits `session_closed`, the last event.
fn take_closed_report(st: &mut State) -> bool {
    if st.closed && !st.closed_emitted && !st.executing && st.drop_reports == 0 {
        st.closed_emitted = true;
        true
    } else {
        false
    }
}

fn push_outcome(st: &mut State, id: u64, o: TurnOutcome) {
    if st.outcomes.len() >= OUTCOMES_KEPT {
        st.outcomes.pop_front();
    }
    st.outcomes.push_back((id, o));
}
