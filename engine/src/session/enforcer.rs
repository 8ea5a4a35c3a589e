//! PermissionEnforcer: the session's [`ToolDispatcher`]. Per call, in this order:
//! PreToolUse hooks (a block ends the call: no permission prompt, the tool does not run; an
//! `updatedInput` replaces the call's input from here on) → `on_tool_start` with the input that
//! will run → permission (mode + allow/deny on normalized paths + the session allow list) →
//! approval handler when needed → the tool → truncation → PostToolUse hooks. It never fails into
//! the loop: refusals and blocks become tool results that explain themselves.

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use async_trait::async_trait;
use futures_util::FutureExt;
use serde_json::Value;

use super::approval::{ApprovalDecision, ApprovalHandler};
use super::observer::{SessionObserver, ToolEndResult};
use super::output::{failure_json, BLOCKED_BY_HOOK_PREFIX, PERMISSION_DENIED};
use super::paths::{normalize_args, normalize_lists};
use crate::core::agent::lock;
use crate::core::hooks::{
    hook_input, run_hooks_with_cancel, HookEvent, HookExecutorRegistry, HooksConfig,
};
use crate::core::permissions::{
    evaluate_permission, mode_policy, pattern_matches, PermissionDecision, PermissionLists,
    PermissionMode,
};
use crate::core::tool::{Tool, ToolContext, ToolDispatcher, ToolResult};
use crate::core::truncation::{truncate_output, MAX_TOOL_OUTPUT_CHARS};

/// What the gate decided for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateDecision {
    /// Run the tool.
    Run,
    /// Refuse; the text is the tool error the model sees.
    Deny(String),
}

/// Everything the enforcer needs, shared with its [`crate::session::Session`].
pub struct PermissionEnforcer {
    session_id: String,
    cwd: PathBuf,
    mode: RwLock<PermissionMode>,
    lists: PermissionLists,
    session_allowed: Mutex<Vec<String>>,
    hooks: Arc<HooksConfig>,
    registry: Arc<HookExecutorRegistry>,
    approval: Option<Arc<dyn ApprovalHandler>>,
    observer: Option<Arc<dyn SessionObserver>>,
    approval_lock: tokio::sync::Mutex<()>,
    budget: Option<Arc<crate::core::budget::Budget>>,
}

/// Parts of a [`PermissionEnforcer`].
pub struct EnforcerParts {
    /// Session id (hook input).
    pub session_id: String,
    /// Canonical working directory (paths are resolved against it).
    pub cwd: PathBuf,
    /// Initial mode.
    pub mode: PermissionMode,
    /// Allow/deny patterns.
    pub lists: PermissionLists,
    /// Hooks.
    pub hooks: Arc<HooksConfig>,
    /// Hook executors.
    pub registry: Arc<HookExecutorRegistry>,
    /// Asked when a call needs approval.
    pub approval: Option<Arc<dyn ApprovalHandler>>,
    /// Tool progress callbacks.
    pub observer: Option<Arc<dyn SessionObserver>>,
    /// The session's budget: a call past `max_tool_calls` (or the wall-time limit) is not run.
    pub budget: Option<Arc<crate::core::budget::Budget>>,
}

fn read<T: Copy>(l: &RwLock<T>) -> T {
    *l.read().unwrap_or_else(|p| p.into_inner())
}

fn output_text(r: &ToolResult) -> String {
    match r {
        Ok(Value::String(s)) => s.clone(),
        Ok(v) => v.to_string(),
        Err(e) => e.clone(),
    }
}

impl PermissionEnforcer {
    /// Builds an enforcer.
    pub fn new(parts: EnforcerParts) -> Self {
        PermissionEnforcer {
            session_id: parts.session_id,
            cwd: parts.cwd,
            mode: RwLock::new(parts.mode),
            lists: parts.lists,
            session_allowed: Mutex::new(Vec::new()),
            hooks: parts.hooks,
            registry: parts.registry,
            approval: parts.approval,
            observer: parts.observer,
            approval_lock: tokio::sync::Mutex::new(()),
            budget: parts.budget,
        }
    }

    /// The current mode.
    pub fn mode(&self) -> PermissionMode {
        read(&self.mode)
    }

    /// Changes the mode (applies to the next call, even mid-turn).
    pub fn set_mode(&self, mode: PermissionMode) {
        *self.mode.write().unwrap_or_else(|p| p.into_inner()) = mode;
    }

    /// Tools approved with "allow always" in this session.
    pub fn session_allowed_tools(&self) -> Vec<String> {
        lock(&self.session_allowed).clone()
    }

    /// Adds `tool` to the "allow always" list (e.g. restored from a saved session).
    pub fn allow_for_session(&self, tool: &str) {
        let mut allowed = lock(&self.session_allowed);
        if !allowed.iter().any(|t| t == tool) {
            allowed.push(tool.to_string());
        }
    }

    /// Forgets the "allow always" approvals.
    pub fn clear_session_allowed_tools(&self) {
        lock(&self.session_allowed).clear();
    }

    /// The configured allow/deny lists.
    pub fn lists(&self) -> &PermissionLists {
        &self.lists
    }

    fn warn(&self, message: &str) {
        if let Some(o) = &self.observer {
            o.on_warning(message);
        }
    }

    /// The permission decision for a call (without asking anyone): the deny list, then the
    /// allow list, both on normalized paths, then the mode policy.
    pub fn evaluate(&self, tool: &str, args: &Value) -> (PermissionDecision, Option<String>) {
        let lists = normalize_lists(&self.cwd, &self.lists);
        let nargs = normalize_args(&self.cwd, tool, args);
        let decision = evaluate_permission(tool, &nargs, self.mode(), &lists);
        let rule = if decision == PermissionDecision::Deny {
            lists
                .deny
                .iter()
                .position(|p| pattern_matches(p, tool, &nargs))
                .and_then(|i| self.lists.deny.get(i).cloned())
        } else {
            None
        };
        (decision, rule)
    }

    /// Evaluates and, for `approve`, asks the approval handler. A tool that declares itself
    /// read-only ([`Tool::read_only`]) runs without asking where it would need approval (deny
    /// rules and plan mode still refuse it); in plan mode a call the tool declares harmless
    /// ([`Tool::allowed_in_plan_mode`]) runs unless a deny rule matches.
    pub async fn gate(&self, tool: &dyn Tool, args: &Value, ctx: &ToolContext) -> GateDecision {
        let decision = self.decide(tool, args, ctx).await;
        crate::log_at!(
            crate::core::log::DEBUG,
            "robota::permissions",
            "{} {}: {}",
            self.session_id,
            tool.name(),
            match &decision {
                GateDecision::Run => "allowed",
                GateDecision::Deny(_) => "denied",
            }
        );
        decision
    }

    async fn decide(&self, tool: &dyn Tool, args: &Value, ctx: &ToolContext) -> GateDecision {
        // A turn aborted meanwhile (e.g. while a PreToolUse hook was pending) runs nothing more.
        if ctx.cancel.is_cancelled() {
            return GateDecision::Deny(format!("{PERMISSION_DENIED} The turn was cancelled."));
        }
        let mode = self.mode();
        let read_only = tool.read_only();
        let plan_ok = mode == PermissionMode::Plan && tool.allowed_in_plan_mode(args);
        let tool = tool.name();
        let (decision, rule) = self.evaluate(tool, args);
        match decision {
            PermissionDecision::Approve if read_only => GateDecision::Run,
            PermissionDecision::Deny if plan_ok && rule.is_none() => GateDecision::Run,
            PermissionDecision::Auto => GateDecision::Run,
            PermissionDecision::Deny => GateDecision::Deny(match rule {
                Some(r) => format!("{PERMISSION_DENIED} The deny rule \"{r}\" matches this call."),
                None if mode_policy(mode, tool).is_some() || mode == PermissionMode::Plan => {
                    format!(
                        "{PERMISSION_DENIED} Tool \"{tool}\" is not allowed in {} mode; an allow rule or another permission mode is needed to use it.",
                        mode.as_str()
                    )
                }
                None => PERMISSION_DENIED.to_string(),
            }),
            PermissionDecision::Approve => self.ask(tool, args, ctx, mode).await,
        }
    }

    async fn ask(
        &self,
        tool: &str,
        args: &Value,
        ctx: &ToolContext,
        mode: PermissionMode,
    ) -> GateDecision {
        if self.session_allowed_tools().iter().any(|t| t == tool) {
            return GateDecision::Run;
        }
        let Some(handler) = &self.approval else {
            return GateDecision::Deny(format!(
                "{PERMISSION_DENIED} Tool \"{tool}\" needs approval in {} mode, and no approval handler is configured.",
                mode.as_str()
            ));
        };
        // One question at a time; an earlier "allow always" may already cover this call.
        let _turn = tokio::select! {
            g = self.approval_lock.lock() => g,
            _ = ctx.cancel.cancelled() => {
                return GateDecision::Deny(format!("{PERMISSION_DENIED} The turn was cancelled."))
            }
        };
        if self.session_allowed_tools().iter().any(|t| t == tool) {
            return GateDecision::Run;
        }
        let request =
            AssertUnwindSafe(handler.request(tool, args, ctx.cancel.clone())).catch_unwind();
        let decision = tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => {
                return GateDecision::Deny(format!("{PERMISSION_DENIED} The turn was cancelled."))
            }
            d = request => d.unwrap_or(ApprovalDecision::Deny),
        };
        // An answer that arrives together with the cancellation does not run the tool.
        if ctx.cancel.is_cancelled() {
            return GateDecision::Deny(format!("{PERMISSION_DENIED} The turn was cancelled."));
        }
        match decision {
            ApprovalDecision::Allow => GateDecision::Run,
            ApprovalDecision::AllowAlways => {
                let mut allowed = lock(&self.session_allowed);
                if !allowed.iter().any(|t| t == tool) {
                    allowed.push(tool.to_string());
                }
                GateDecision::Run
            }
            ApprovalDecision::Deny => GateDecision::Deny(PERMISSION_DENIED.to_string()),
        }
    }

    fn tool_hook_input(
        &self,
        event: HookEvent,
        tool: &str,
        args: &Value,
    ) -> serde_json::Map<String, Value> {
        let mut m = hook_input(event, &self.session_id, &self.cwd.to_string_lossy());
        m.insert(
            "permission_mode".into(),
            Value::String(self.mode().as_str().into()),
        );
        m.insert("tool_name".into(), Value::String(tool.to_string()));
        m.insert("tool_input".into(), args.clone());
        m
    }

    /// Reports the call's start once, with the input that will run.
    fn start(&self, tool: &Arc<dyn Tool>, args: &Value, ctx: &ToolContext, started: &AtomicBool) {
        if started.swap(true, Ordering::Relaxed) {
            return;
        }
        if let Some(o) = &self.observer {
            o.on_tool_start(&ctx.call_id, tool.name(), args, tool.parameters());
        }
    }

    /// Runs the call; returns its result, how it ended and the input it ran with (a PreToolUse
    /// hook's `updatedInput`, else the model's).
    async fn run_call<'a>(
        &self,
        tool: &Arc<dyn Tool>,
        args: &'a Value,
        ctx: &ToolContext,
        started: &AtomicBool,
    ) -> (ToolResult, ToolEndResult, Cow<'a, Value>) {
        let name = tool.name();
        let mut args = Cow::Borrowed(args);
        if !self.hooks.groups(HookEvent::PreToolUse).is_empty() {
            let input = Value::Object(self.tool_hook_input(HookEvent::PreToolUse, name, &args));
            let pre = run_hooks_with_cancel(
                &self.hooks,
                HookEvent::PreToolUse,
                &input,
                &self.registry,
                ctx.cancel.clone(),
            )
            .await;
            for w in &pre.warnings {
                self.warn(w);
            }
            if let (false, Some(updated)) = (pre.blocked, pre.updated_input) {
                args = Cow::Owned(Value::Object(updated));
            }
            self.start(tool, &args, ctx, started);
            if pre.blocked {
                let reason = pre.reason.unwrap_or_default();
                let text = failure_json(&format!("{BLOCKED_BY_HOOK_PREFIX}{reason}"));
                return (Ok(Value::String(text)), ToolEndResult::Denied, args);
            }
        }
        self.start(tool, &args, ctx, started);
        let (result, end) = self.gated_call(tool, &args, ctx).await;
        (result, end, args)
    }

    /// Permission, budget, the tool itself, truncation and PostToolUse hooks.
    async fn gated_call(
        &self,
        tool: &Arc<dyn Tool>,
        args: &Value,
        ctx: &ToolContext,
    ) -> (ToolResult, ToolEndResult) {
        let name = tool.name();
        // PreToolUse runs before the permission check: a hook block means nobody is asked.
        if let GateDecision::Deny(text) = self.gate(tool.as_ref(), args, ctx).await {
            return (
                Ok(Value::String(failure_json(&text))),
                ToolEndResult::Denied,
            );
        }
        // Last, right before it would run: a call the budget refuses is not run.
        if let Some(Err(e)) = self.budget.as_ref().map(|b| b.check_tool_call()) {
            let text = format!("{}; this tool call was not run", e.message());
            return (Err(text), ToolEndResult::Error);
        }
        let executed = AssertUnwindSafe(tool.execute(args.clone(), ctx))
            .catch_unwind()
            .await
            .unwrap_or_else(|_| Err(format!("Tool \"{name}\" panicked")));
        let (result, end) = match executed {
            Ok(v) => {
                let text = match &v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                match truncate_output(&text, MAX_TOOL_OUTPUT_CHARS) {
                    Some(t) => (Ok(Value::String(t)), ToolEndResult::Success),
                    None => (Ok(v), ToolEndResult::Success),
                }
            }
            Err(e) => (
                Err(truncate_output(&e, MAX_TOOL_OUTPUT_CHARS).unwrap_or(e)),
                ToolEndResult::Error,
            ),
        };
        if end == ToolEndResult::Success && !self.hooks.groups(HookEvent::PostToolUse).is_empty() {
            let mut m = self.tool_hook_input(HookEvent::PostToolUse, name, args);
            m.insert("tool_output".into(), Value::String(output_text(&result)));
            let post = run_hooks_with_cancel(
                &self.hooks,
                HookEvent::PostToolUse,
                &Value::Object(m),
                &self.registry,
                ctx.cancel.clone(),
            )
            .await;
            for w in &post.warnings {
                self.warn(w);
            }
            if let Some(reason) = post.reason {
                self.warn(&format!(
                    "PostToolUse hook reported for \"{name}\": {reason}"
                ));
            }
        }
        (result, end)
    }
}

#[async_trait]
impl ToolDispatcher for PermissionEnforcer {
    async fn dispatch(&self, tool: &Arc<dyn Tool>, args: &Value, ctx: &ToolContext) -> ToolResult {
        let name = tool.name().to_string();
        let started = AtomicBool::new(false);
        let (result, end, ran_with) = AssertUnwindSafe(self.run_call(tool, args, ctx, &started))
            .catch_unwind()
            .await
            .unwrap_or_else(|_| {
                (
                    Ok(Value::String(failure_json(&format!(
                        "Internal error while running tool \"{name}\""
                    )))),
                    ToolEndResult::Error,
                    Cow::Borrowed(args),
                )
            });
        // A panic before the start was reported still pairs the end with a start.
        self.start(tool, &ran_with, ctx, &started);
        if let Some(o) = &self.observer {
            if let (ToolEndResult::Success, Some(diff)) = (end, ctx.diff.take()) {
                o.on_tool_diff(&ctx.call_id, &name, &diff);
            }
            o.on_tool_end(&ctx.call_id, &name, &ran_with, end, &output_text(&result));
        }
        result
    }
}
