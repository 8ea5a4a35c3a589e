//! Runs one child session to completion (the `Agent` tool, `agent` hooks, and the team's
//! `assignTask`): assembles its config from the parent's, relays its events to the parent's
//! host, fires `SubagentStart`/`SubagentStop` on the parent, and returns the final answer.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::lifecycle_fields::HookIdentity;
use super::{Parent, AGENT_TOOL, MAX_DEPTH};
use crate::core::execution::INTERRUPTED_TOOL_ERROR;
use crate::core::hooks::HookEvent;
use crate::core::util::prefixed_id;
use crate::providers::ProviderKind;
use crate::sdk::config::agents::AgentDef;
use crate::sdk::config::SessionConfig;
use crate::sdk::events::{self, Event, EventSink};
use crate::sdk::host::tools::SessionLink;
use crate::sdk::interactive::{InteractiveSession, TurnInput};

/// Standard suffix of a child's system prompt (after the definition's body, CLAUDE.md and
/// AGENTS.md).
pub const SUBAGENT_SUFFIX: &str = "When you finish, reply with a concise final report: it is relayed to the user by the agent that delegated this task. Use absolute file paths. Include code snippets only when they are load-bearing. Do not use emojis.";

/// Suffix of a fork worker's system prompt (a `context: fork` skill's subagent) instead of
/// [`SUBAGENT_SUFFIX`].
pub const FORK_WORKER_SUFFIX: &str = "You are a fork worker: you run one skill on behalf of the agent that invoked it. Do not spawn sub-agents. When you finish, reply in under 500 words with these sections: Scope, Result, Key files, Files changed, Issues. Use absolute file paths. Do not use emojis.";

/// What to run.
#[derive(Debug, Clone)]
pub struct ChildSpec {
    /// The definition.
    pub def: AgentDef,
    /// The task (the child's user message).
    pub prompt: String,
    /// Model asked for by the caller (wins over the definition's).
    pub model: Option<String>,
    /// The parent's tool call that started it (`None` for hooks).
    pub parent_tool_call_id: Option<String>,
    /// Inherit the parent's hooks (false for `agent` hooks: no hook recursion).
    pub inherit_hooks: bool,
    /// Round cap overriding the definition's.
    pub max_turns: Option<i64>,
    /// A fork worker (a `context: fork` skill): [`FORK_WORKER_SUFFIX`] ends its prompt.
    pub fork_worker: bool,
}

/// How a child ended.
#[derive(Debug, Clone, PartialEq)]
pub struct ChildOutcome {
    /// The child's id (`agent_…`, its session id).
    pub agent_id: String,
    /// `turn_completed.stop_reason` of the child.
    pub stop_reason: String,
    /// The final answer (`turn_completed.response`).
    pub response: String,
    /// The error message of a failed child.
    pub error: Option<String>,
}

/// The child's system prompt: body, CLAUDE.md, AGENTS.md (from the parent's assembled
/// context, when non-empty) and the suffix (the fork worker's for a fork worker), joined by
/// blank lines.
pub fn child_system_prompt(def: &AgentDef, parent: &SessionConfig, fork_worker: bool) -> String {
    let mut parts: Vec<&str> = vec![def.prompt.trim()];
    if let Some(p) = &parent.params.prompt {
        parts.push(p.context.claude_md.trim());
        parts.push(p.context.agents_md.trim());
    }
    parts.push(if fork_worker {
        FORK_WORKER_SUFFIX
    } else {
        SUBAGENT_SUFFIX
    });
    parts.retain(|p| !p.is_empty());
    parts.join("\n\n")
}

/// The child's tools: the parent's minus `disallowed_tools`, intersected with `tools`, minus
/// `Agent` unless `tools` names it and the child is above [`MAX_DEPTH`].
pub fn child_tools(def: &AgentDef, parent_tools: &[String], child_depth: u32) -> Vec<String> {
    parent_tools
        .iter()
        .filter(|t| !def.disallowed_tools.contains(t))
        .filter(|t| def.tools.as_ref().is_none_or(|allow| allow.contains(t)))
        .filter(|t| {
            t.as_str() != AGENT_TOOL
                || (child_depth < MAX_DEPTH
                    && def
                        .tools
                        .as_ref()
                        .is_some_and(|a| a.iter().any(|n| n == AGENT_TOOL)))
        })
        .cloned()
        .collect()
}

fn child_config(parent: &dyn Parent, spec: &ChildSpec, agent_id: &str) -> SessionConfig {
    let p = parent.config();
    let link = parent.link();
    let budget = link.budget.clone();
    let anthropic = link.shared.profile_kind(&p.provider) == Some(ProviderKind::Anthropic);
    let mut c = p.clone();
    c.params.agents.depth = p.params.agents.depth + 1;
    c.params.agents.session = None;
    c.params.prompt = None;
    c.params.language = None;
    c.params.system_prompt_replace = true;
    c.params.warnings.clear();
    c.system_prompt = Some(child_system_prompt(&spec.def, &p, spec.fork_worker));
    c.model = spec
        .model
        .clone()
        .or_else(|| spec.def.model.clone())
        .or_else(|| super::defs::default_model(&spec.def, anthropic))
        .unwrap_or_else(|| p.model.clone());
    c.tools = Some(child_tools(
        &spec.def,
        &parent.tool_names(),
        c.params.agents.depth,
    ));
    c.settings = "none".into();
    c.mode_given = true;
    if !spec.inherit_hooks {
        c.hooks = None;
    }
    c.max_rounds = spec.max_turns.or(spec.def.max_turns);
    c.session_id = Some(agent_id.to_string());
    c.persist = false;
    c.name = None;
    c.transcript = p
        .transcript
        .map(|d| d.join(parent.session_id()).join("subagents"));
    c.call.tool_choice = None;
    // The parent's answer format is not the subagent's.
    c.call.output_schema = None;
    // The parent's budget itself, not a copy of its limits: the child's calls count on it.
    c.budget = None;
    c.shared_budget = budget;
    c
}

/// Requests keep their kind (the host answers them by id); everything else is wrapped.
fn is_request(kind: u32) -> bool {
    matches!(
        kind,
        events::TOOL_CALL
            | events::TOOL_CALL_CANCELLED
            | events::PERMISSION_REQUEST
            | events::HOOK_REQUEST
            | events::HOST_IO
    )
}

/// The child's sink: relays to the parent's host and hands the child's `turn_completed`
/// payload to `done`. Nothing is relayed after it.
fn relay(
    link: Arc<SessionLink>,
    agent_id: String,
    agent_type: String,
    parent_call: Option<String>,
    done: oneshot::Sender<Value>,
) -> EventSink {
    let done = Mutex::new(Some(done));
    Arc::new(move |ev: Event| {
        let mut slot = done.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            return;
        }
        let turn = link.turn.load(Ordering::Relaxed);
        if is_request(ev.kind) {
            link.emit_event(Event {
                turn_id: turn,
                ..ev
            });
            return;
        }
        let finished = if ev.kind == events::TURN_COMPLETED {
            ev.json_value()
        } else {
            None
        };
        link.emit_event(Event::json(
            events::SUBAGENT,
            turn,
            json!({
                "agent_id": agent_id,
                "agent_type": agent_type,
                "parent_tool_call_id": parent_call,
                "event": ev.to_pull_json(),
            }),
        ));
        if let Some(v) = finished {
            if let Some(tx) = slot.take() {
                let _ = tx.send(v);
            }
        }
    })
}

struct AbortOnDrop(Option<(InteractiveSession, u64)>);

impl AbortOnDrop {
    fn disarm(mut self) -> Option<(InteractiveSession, u64)> {
        self.0.take()
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some((child, turn)) = self.0.take() {
            let _ = child.abort(turn);
            child.release();
        }
    }
}

/// The message the model reads when the child could not run or failed.
fn sub_agent_error(message: &str) -> String {
    format!("Sub-agent error: {message}")
}

/// Runs the child; `Err` is the message for the model (`Sub-agent error: …`, or the
/// interruption text when `cancel` fired).
pub async fn run_child(
    parent: &Arc<dyn Parent>,
    spec: ChildSpec,
    cancel: CancellationToken,
) -> Result<ChildOutcome, String> {
    let agent_id = prefixed_id("agent");
    let cfg = child_config(parent.as_ref(), &spec, &agent_id);
    let identity = HookIdentity::new(parent.as_ref(), &cfg, &agent_id, &spec.def.name);
    let who = ChildIdentity {
        agent_id,
        agent_type: spec.def.name.clone(),
        parent_tool_call_id: spec.parent_tool_call_id.clone(),
    };
    let link = parent.link();
    let (child, rx) = open_relayed(&link, cfg, &who).map_err(|e| sub_agent_error(&e))?;
    parent
        .fire_hook(HookEvent::SubagentStart, identity.start_fields())
        .await;
    let finished = run_turn(&child, spec.prompt, rx, &cancel).await;
    child.release();
    let outcome = outcome_of(who.agent_id, finished.map_err(|e| sub_agent_error(&e))?);
    parent
        .fire_hook(HookEvent::SubagentStop, identity.stop_fields(&outcome))
        .await;
    let budget = crate::sdk::config::session_budget::exhausted_message(link.budget.as_deref());
    answer_of(outcome, &budget)
}

/// Who a child is to its parent's host (the members of its `SUBAGENT` events).
#[derive(Debug, Clone)]
pub struct ChildIdentity {
    /// The child's id (`agent_…`), also its session id.
    pub agent_id: String,
    /// The agent definition's name, or the template id of an `assignTask` child.
    pub agent_type: String,
    /// The parent's tool call that started it (`None` for hooks).
    pub parent_tool_call_id: Option<String>,
}

/// A child session whose events reach `link`'s host as `SUBAGENT` events of `who`
/// (`cfg.session_id` should be `who.agent_id`), and the receiver of its `turn_completed`.
fn open_relayed(
    link: &Arc<SessionLink>,
    cfg: SessionConfig,
    who: &ChildIdentity,
) -> Result<(InteractiveSession, oneshot::Receiver<Value>), String> {
    let (tx, rx) = oneshot::channel();
    let sink = relay(
        link.clone(),
        who.agent_id.clone(),
        who.agent_type.clone(),
        who.parent_tool_call_id.clone(),
        tx,
    );
    InteractiveSession::new(link.shared.clone(), cfg, sink, link.answerable(), None)
        .map(|s| (s, rx))
        .map_err(|e| e.message)
}

/// Runs one turn of a child configured by `cfg` (the `assignTask` tool's children), its events
/// relayed to `link`'s host like an `Agent` child's, and returns its `turn_completed` payload
/// (`stop_reason`, `response`, `error`). `Err` is a child that could not start (its message).
pub async fn run_relayed(
    link: &Arc<SessionLink>,
    cfg: SessionConfig,
    who: &ChildIdentity,
    prompt: String,
    cancel: &CancellationToken,
) -> Result<Value, String> {
    let (child, rx) = open_relayed(link, cfg, who)?;
    let finished = run_turn(&child, prompt, rx, cancel).await;
    child.release();
    finished
}

/// Submits the task and waits for the child's `turn_completed` payload (`Null` when the
/// child ended without one). `cancel` aborts the child's turn; so does dropping this future.
async fn run_turn(
    child: &InteractiveSession,
    prompt: String,
    finished: oneshot::Receiver<Value>,
    cancel: &CancellationToken,
) -> Result<Value, String> {
    let turn = child.submit(TurnInput {
        text: prompt,
        display_input: None,
        raw_input: None,
        ..TurnInput::default()
    });
    let turn = turn.map_err(|e| e.message)?;
    // Aborts the child when this future is dropped before the child ends.
    let guard = AbortOnDrop(Some((child.clone(), turn)));
    tokio::pin!(finished);
    let payload = tokio::select! {
        v = &mut finished => v.ok(),
        _ = cancel.cancelled() => {
            let _ = child.abort(turn);
            finished.await.ok()
        }
    };
    drop(guard.disarm());
    Ok(payload.unwrap_or(Value::Null))
}

/// The child's outcome from its `turn_completed` payload (`Null`: a failed turn).
fn outcome_of(agent_id: String, finished: Value) -> ChildOutcome {
    ChildOutcome {
        agent_id,
        stop_reason: finished["stop_reason"]
            .as_str()
            .unwrap_or("error")
            .to_string(),
        response: finished["response"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        error: finished["error"].as_str().map(str::to_string),
    }
}

/// The result for the caller: the outcome, or the interruption text for an aborted child and
/// `Sub-agent error: …` for a failed one or one the session's budget stopped (`budget`: the
/// budget's message).
fn answer_of(outcome: ChildOutcome, budget: &str) -> Result<ChildOutcome, String> {
    match outcome.stop_reason.as_str() {
        "aborted" => Err(INTERRUPTED_TOOL_ERROR.to_string()),
        "budget" => Err(sub_agent_error(budget)),
        "error" => Err(sub_agent_error(
            outcome
                .error
                .as_deref()
                .unwrap_or("the subagent's turn failed"),
        )),
        _ => Ok(outcome),
    }
}
