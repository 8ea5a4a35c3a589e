//! The host side of a [`crate::session::Session`] run through the C ABI: approvals answered
//! with `ROBOTA_EVENT_PERMISSION_REQUEST` → `robota_request_respond`, and the `host` hook
//! executor answered with `ROBOTA_EVENT_HOOK_REQUEST` → `robota_request_respond`.

use std::sync::{Arc, OnceLock, Weak};

use async_trait::async_trait;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::core::hooks::{HookDefinition, HookExecutor, HookResult};
use crate::sdk::config::TimeoutDecision;
use crate::sdk::events;
use crate::sdk::host::pending::{Answer, PendingKind};
use crate::sdk::host::tools::{await_answer, SessionLink};
use crate::session::{ApprovalDecision, ApprovalHandler, PermissionEnforcer};

/// Kind of the hook executor answered by the host.
pub const HOST_HOOK_KIND: &str = "host";

/// Asks the host through `ROBOTA_EVENT_PERMISSION_REQUEST`. (Read-only tools, host tools
/// included, never get here: the permission gate runs them without asking.)
pub struct HostApproval {
    /// Session link.
    pub link: Arc<SessionLink>,
    /// The session's enforcer (for the mode named in the request), set once it exists.
    pub enforcer: OnceLock<Weak<PermissionEnforcer>>,
    /// The sandbox mode Bash commands run in (`"off"` when none), shown with a Bash request.
    pub sandbox_mode: &'static str,
}

impl HostApproval {
    fn mode_name(&self) -> &'static str {
        self.enforcer
            .get()
            .and_then(Weak::upgrade)
            .map_or("default", |e| e.mode().as_str())
    }
}

/// Reads a permission answer `{"decision":"allow"|"deny","remember":bool}`.
pub fn approval_from_answer(v: &Value) -> ApprovalDecision {
    let allow = v.get("decision").and_then(Value::as_str) == Some("allow");
    let remember = v.get("remember").and_then(Value::as_bool) == Some(true);
    match (allow, remember) {
        (true, true) => ApprovalDecision::AllowAlways,
        (true, false) => ApprovalDecision::Allow,
        _ => ApprovalDecision::Deny,
    }
}

#[async_trait]
impl ApprovalHandler for HostApproval {
    async fn request(
        &self,
        tool: &str,
        args: &Value,
        cancel: CancellationToken,
    ) -> ApprovalDecision {
        let default = if self.link.shared.request_timeout_decision() == TimeoutDecision::Allow {
            ApprovalDecision::Allow
        } else {
            ApprovalDecision::Deny
        };
        if !self.link.can_answer {
            return default;
        }
        let (id, rx) = self.link.issue(PendingKind::Permission);
        let mut request = json!({
            "request_id": id,
            "tool_name": tool,
            "arguments": args,
            "reason": format!("Tool \"{tool}\" needs approval in {} mode", self.mode_name()),
        });
        if tool == "Bash" {
            request["sandbox"] = json!(self.sandbox_mode);
        }
        self.link.emit(events::PERMISSION_REQUEST, request);
        match await_answer(rx, &cancel, self.link.request_timeout_ms).await {
            Some(Ok(Answer::Response(v))) => approval_from_answer(&v),
            Some(Ok(Answer::Tool { .. })) | None => {
                self.link
                    .withdraw_request(id, PendingKind::Permission, false);
                ApprovalDecision::Deny
            }
            Some(Err(())) => {
                self.link
                    .withdraw_request(id, PendingKind::Permission, true);
                let what = if default == ApprovalDecision::Allow {
                    "allowed"
                } else {
                    "denied"
                };
                self.link.emit(
                    events::WARNING,
                    json!({"message": format!("permission request {id} was not answered within {} ms; {what}", self.link.request_timeout_ms), "request_id": id}),
                );
                default
            }
        }
    }
}

/// The `host` hook executor: the host runs the hook and answers `{exit_code, stdout, stderr}`.
/// Unanswerable, cancelled or timed-out requests proceed (exit 0).
pub struct HostHookExecutor {
    /// Session link.
    pub link: Arc<SessionLink>,
}

#[async_trait]
impl HookExecutor for HostHookExecutor {
    fn kind(&self) -> &str {
        HOST_HOOK_KIND
    }

    async fn execute(
        &self,
        def: &HookDefinition,
        input: &Value,
        cancel: CancellationToken,
    ) -> HookResult {
        let _ = def;
        if !self.link.answerable() {
            return HookResult::default();
        }
        let (id, rx) = self.link.issue(PendingKind::Hook);
        if !self.link.answerable() {
            // Released while issuing: the release's withdrawal may have run before the issue.
            self.link.shared.pending().cancel(id);
            return HookResult::default();
        }
        let mut payload = match input {
            Value::Object(m) => m.clone(),
            other => {
                let mut m = serde_json::Map::new();
                m.insert("input".into(), other.clone());
                m
            }
        };
        payload.insert("request_id".into(), json!(id));
        self.link.emit(events::HOOK_REQUEST, Value::Object(payload));
        match await_answer(rx, &cancel, self.link.request_timeout_ms).await {
            Some(Ok(Answer::Response(v))) => {
                let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                let code = v
                    .get("exit_code")
                    .and_then(Value::as_i64)
                    .map_or(0, |c| i32::try_from(c).unwrap_or(1));
                HookResult::new(code, text("stdout"), text("stderr"))
            }
            Some(Ok(Answer::Tool { .. })) | None => {
                self.link.withdraw_request(id, PendingKind::Hook, false);
                HookResult::default()
            }
            Some(Err(())) => {
                self.link.withdraw_request(id, PendingKind::Hook, true);
                self.link.emit(
                    events::WARNING,
                    json!({"message": format!("hook request {id} was not answered within {} ms; proceeding", self.link.request_timeout_ms), "request_id": id}),
                );
                HookResult::default()
            }
        }
    }
}

/// Answer documents are checked before they are accepted.
pub fn validate_response(kind: PendingKind, v: &Value) -> Result<(), String> {
    let known: &[&str] = match kind {
        PendingKind::Permission => &["decision", "remember"],
        PendingKind::Hook => &["exit_code", "stdout", "stderr"],
        PendingKind::Command => &["message", "success", "data", "prompt"],
        PendingKind::ToolCall | PendingKind::HostIo => &[],
    };
    if let (false, Some(m)) = (known.is_empty(), v.as_object()) {
        crate::sdk::config::check_strict("response_json", m, known).map_err(|e| e.message)?;
    }
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
        PendingKind::Command => crate::sdk::commands::host::validate_response(v),
        PendingKind::ToolCall | PendingKind::HostIo => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_answers_map_to_decisions() {
        let d = |s: &str| approval_from_answer(&serde_json::from_str(s).unwrap());
        assert_eq!(
            d(r#"{"decision":"allow","remember":false}"#),
            ApprovalDecision::Allow
        );
        assert_eq!(d(r#"{"decision":"allow"}"#), ApprovalDecision::Allow);
        assert_eq!(
            d(r#"{"decision":"allow","remember":true}"#),
            ApprovalDecision::AllowAlways
        );
        assert_eq!(
            d(r#"{"decision":"deny","remember":true}"#),
            ApprovalDecision::Deny
        );
    }
}
