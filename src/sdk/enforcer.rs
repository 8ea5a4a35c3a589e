//! The session's tool gate for hosts: PreToolUse hooks, permission evaluation with host
//! approval (`ROBOTA_EVENT_PERMISSION_REQUEST`), tool start/end reporting. Host hooks
//! (`{"type":"host"}`) are answered through `ROBOTA_EVENT_HOOK_REQUEST`.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::config::TimeoutDecision;
use super::events;
use super::host_tool::{await_answer, SessionLink};
use super::pending::{Answer, PendingKind};
use super::tool_state::ToolOutcome;
use crate::core::permissions::{
    evaluate_permission, PermissionDecision, PermissionLists, PermissionMode,
};
use crate::core::tool::{Tool, ToolContext, ToolDispatcher, ToolResult};

/// Tool data returned for a denied call.
pub const PERMISSION_DENIED_DATA: &str = r#"{"success":false,"output":"","error":"Permission denied. The user did not approve this action."}"#;

/// Mutable permission state (shared with commands).
#[derive(Debug, Clone, Default)]
pub struct PermissionState {
    /// Current mode.
    pub mode: PermissionMode,
    /// Allow/deny patterns.
    pub lists: PermissionLists,
    /// Tools allowed for the rest of the session (`remember: true`).
    pub session_allowed: BTreeSet<String>,
}

/// Receives tool start/end (the InteractiveSession).
pub trait ToolObserver: Send + Sync {
    /// A tool starts.
    fn tool_start(&self, call_id: &str, name: &str, args: &Value);
    /// A tool ended (`output` = the text the model sees).
    fn tool_end(&self, call_id: &str, name: &str, args: &Value, outcome: ToolOutcome, output: &str);
}

/// Outcome of running hooks for one event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    /// Exit 2 seen.
    pub blocked: bool,
    /// Why (stderr or `Blocked by hook`).
    pub reason: Option<String>,
    /// Collected stdout parts joined by `\n`.
    pub stdout: String,
}

/// The gate.
pub struct Enforcer {
    /// Session link.
    pub link: Arc<SessionLink>,
    /// Permission state.
    pub perms: Arc<Mutex<PermissionState>>,
    /// Hooks config.
    pub hooks: Option<Value>,
    /// Session id (hook input).
    pub session_id: String,
    /// cwd (hook input).
    pub cwd: String,
    /// Tool observer.
    pub observer: Arc<dyn ToolObserver>,
}

fn matcher_hits(matcher: &str, target: Option<&str>) -> bool {
    if matcher.is_empty() {
        return true;
    }
    let Some(t) = target else { return false };
    match regex::Regex::new(matcher) {
        Ok(re) => re.is_match(t),
        Err(_) => matcher == t,
    }
}

fn output_text(r: &ToolResult) -> String {
    match r {
        Ok(Value::String(s)) => s.clone(),
        Ok(v) => v.to_string(),
        Err(e) => format!("Error: {e}"),
    }
}

impl Enforcer {
    /// Runs the host hooks of `event` (other hook types belong to the Session's executors).
    pub async fn run_hooks(
        &self,
        event: &str,
        target: Option<&str>,
        mut input: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> HookOutcome {
        let mut out = HookOutcome::default();
        let Some(groups) = self
            .hooks
            .as_ref()
            .and_then(|h| h.get(event))
            .and_then(Value::as_array)
        else {
            return out;
        };
        input.insert("session_id".into(), json!(self.session_id));
        input.insert("cwd".into(), json!(self.cwd));
        input.insert("hook_event_name".into(), json!(event));
        let mut parts: Vec<String> = Vec::new();
        for g in groups {
            let matcher = g.get("matcher").and_then(Value::as_str).unwrap_or("");
            if !matcher_hits(matcher, target) {
                continue;
            }
            for h in g
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if h.get("type").and_then(Value::as_str) != Some("host") {
                    continue;
                }
                let (code, stdout, stderr) = self.ask_host_hook(&input, cancel).await;
                if code == 0 && !stdout.trim().is_empty() {
                    parts.push(stdout.trim().to_string());
                }
                if code == 2 {
                    out.blocked = true;
                    out.reason = Some(if stderr.is_empty() {
                        "Blocked by hook".to_string()
                    } else {
                        stderr
                    });
                    out.stdout = parts.join("\n");
                    return out;
                }
            }
        }
        out.stdout = parts.join("\n");
        out
    }

    async fn ask_host_hook(
        &self,
        input: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> (i64, String, String) {
        if !self.link.can_answer {
            return (0, String::new(), String::new());
        }
        let (id, rx) = self
            .link
            .shared
            .pending
            .issue(PendingKind::Hook, self.link.owner);
        let mut payload = input.clone();
        payload.insert("request_id".into(), json!(id));
        self.link.emit(events::HOOK_REQUEST, Value::Object(payload));
        match await_answer(rx, cancel, self.link.request_timeout_ms).await {
            Some(Ok(Answer::Response(v))) => (
                v.get("exit_code").and_then(Value::as_i64).unwrap_or(0),
                v.get("stdout")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                v.get("stderr")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            ),
            Some(Ok(Answer::Tool { .. })) | None => {
                self.link.shared.pending.cancel(id);
                (0, String::new(), String::new())
            }
            Some(Err(())) => {
                self.link.shared.pending.cancel(id);
                self.link.emit(
                    events::WARNING,
                    json!({"message": format!("hook request {id} was not answered within {} ms; proceeding", self.link.request_timeout_ms), "request_id": id}),
                );
                (0, String::new(), String::new())
            }
        }
    }

    async fn ask_permission(
        &self,
        name: &str,
        args: &Value,
        mode: PermissionMode,
        cancel: &CancellationToken,
    ) -> bool {
        let default_allow =
            self.link.shared.config.request_timeout_decision == TimeoutDecision::Allow;
        if !self.link.can_answer {
            return default_allow;
        }
        let (id, rx) = self
            .link
            .shared
            .pending
            .issue(PendingKind::Permission, self.link.owner);
        self.link.emit(
            events::PERMISSION_REQUEST,
            json!({
                "request_id": id,
                "tool_name": name,
                "arguments": args,
                "reason": format!("Tool \"{name}\" needs approval in {} mode", mode.as_str()),
            }),
        );
        match await_answer(rx, cancel, self.link.request_timeout_ms).await {
            Some(Ok(Answer::Response(v))) => {
                let allow = v.get("decision").and_then(Value::as_str) == Some("allow");
                if allow && v.get("remember").and_then(Value::as_bool) == Some(true) {
                    if let Ok(mut p) = self.perms.lock() {
                        p.session_allowed.insert(name.to_string());
                    }
                }
                allow
            }
            Some(Ok(Answer::Tool { .. })) | None => {
                self.link.shared.pending.cancel(id);
                false
            }
            Some(Err(())) => {
                self.link.shared.pending.cancel(id);
                self.link.emit(
                    events::WARNING,
                    json!({"message": format!("permission request {id} was not answered within {} ms; {}", self.link.request_timeout_ms, if default_allow {"allowed"} else {"denied"}), "request_id": id}),
                );
                default_allow
            }
        }
    }
}

/// Answer documents are checked before they are accepted.
pub fn validate_response(kind: PendingKind, v: &Value) -> Result<(), String> {
    match kind {
        PendingKind::Permission => match v.get("decision").and_then(Value::as_str) {
            Some("allow") | Some("deny") => Ok(()),
            _ => Err(
                "permission response must be {\"decision\":\"allow\"|\"deny\",\"remember\":false}"
                    .into(),
            ),
        },
        PendingKind::Hook => match v.get("exit_code") {
            Some(c) if c.is_i64() => Ok(()),
            _ => Err(
                "hook response must be {\"exit_code\":N,\"stdout\":\"…\",\"stderr\":\"…\"}".into(),
            ),
        },
        PendingKind::ToolCall => Ok(()),
    }
}

#[async_trait]
impl ToolDispatcher for Enforcer {
    async fn dispatch(&self, tool: &Arc<dyn Tool>, args: Value, ctx: &ToolContext) -> ToolResult {
        let name = tool.name().to_string();
        let mut input = Map::new();
        input.insert("tool_name".into(), json!(name));
        input.insert("tool_input".into(), args.clone());
        let pre = self
            .run_hooks("PreToolUse", Some(&name), input, &ctx.cancel)
            .await;
        if pre.blocked {
            let reason = pre.reason.unwrap_or_default();
            return Ok(Value::String(
                json!({"success": false, "output": "", "error": format!("Blocked by hook: {reason}")})
                    .to_string(),
            ));
        }
        let (mode, decision, remembered) = {
            let p = self.perms.lock().unwrap_or_else(|e| e.into_inner());
            let mut d = evaluate_permission(&name, &args, p.mode, &p.lists);
            if d == PermissionDecision::Approve
                && tool.read_only()
                && p.mode != PermissionMode::Plan
            {
                d = PermissionDecision::Auto;
            }
            (p.mode, d, p.session_allowed.contains(&name))
        };
        let allowed = match decision {
            PermissionDecision::Auto => true,
            PermissionDecision::Deny => false,
            PermissionDecision::Approve => {
                remembered || self.ask_permission(&name, &args, mode, &ctx.cancel).await
            }
        };
        if !allowed {
            self.observer.tool_end(
                &ctx.call_id,
                &name,
                &args,
                ToolOutcome::Denied,
                PERMISSION_DENIED_DATA,
            );
            return Ok(Value::String(PERMISSION_DENIED_DATA.to_string()));
        }
        self.observer.tool_start(&ctx.call_id, &name, &args);
        let result = tool.execute(args.clone(), ctx).await;
        let outcome = if result.is_ok() {
            ToolOutcome::Success
        } else {
            ToolOutcome::Error
        };
        self.observer
            .tool_end(&ctx.call_id, &name, &args, outcome, &output_text(&result));
        result
    }
}
