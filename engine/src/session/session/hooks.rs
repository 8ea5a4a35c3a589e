//! The session's lifecycle hooks: the common hook input, firing an event, `SessionEnd` once,
//! and `StopFailure`.

use std::sync::atomic::Ordering;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::Session;
use crate::core::hooks::{hook_input, run_hooks_with_cancel, HookEvent, HookRunOutcome};

impl Session {
    pub(super) fn env_value(&self) -> Value {
        json!({
            "CLAUDE_PROJECT_DIR": self.cwd.to_string_lossy(),
            "CLAUDE_SESSION_ID": self.session_id,
        })
    }

    /// Whether any hook group is configured for `event`.
    pub fn has_hooks(&self, event: HookEvent) -> bool {
        !self.hooks.groups(event).is_empty()
    }

    /// Fires `event` with the common keys (`session_id`, `cwd`, `hook_event_name`,
    /// `permission_mode`) plus the event's `fields`, built only when a hook is configured for
    /// `event` (a turn fires four events; most sessions have no hooks); warnings go to the
    /// observer.
    pub async fn fire_hook(
        &self,
        event: HookEvent,
        fields: impl FnOnce() -> Map<String, Value>,
        cancel: CancellationToken,
    ) -> HookRunOutcome {
        if self.hooks.groups(event).is_empty() {
            return HookRunOutcome::default();
        }
        let fields = fields();
        let mut input = hook_input(event, &self.session_id, &self.cwd.to_string_lossy());
        input.insert(
            "permission_mode".into(),
            Value::String(self.permission_mode().as_str().into()),
        );
        input.extend(fields);
        let outcome = run_hooks_with_cancel(
            &self.hooks,
            event,
            &Value::Object(input),
            &self.registry,
            cancel,
        )
        .await;
        if let Some(o) = &self.observer {
            for w in &outcome.warnings {
                o.on_warning(w);
            }
        }
        outcome
    }

    pub(super) fn fields(pairs: Vec<(&str, Value)>) -> Map<String, Value> {
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    /// Fires `SessionEnd` once (`reason`: clear, resume, logout, prompt_input_exit, other, …).
    /// Later calls do nothing.
    pub async fn end(&self, reason: &str) {
        if self.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        let fields = || {
            Self::fields(vec![
                ("reason", Value::String(reason.to_string())),
                ("env", self.env_value()),
            ])
        };
        self.fire_hook(HookEvent::SessionEnd, fields, CancellationToken::new())
            .await;
    }

    pub(super) async fn fire_stop_failure(&self, reason: &str) {
        let fields = || {
            Self::fields(vec![
                ("reason", Value::String(reason.to_string())),
                ("stop_hook_active", Value::Bool(false)),
                ("env", self.env_value()),
            ])
        };
        self.fire_hook(HookEvent::StopFailure, fields, CancellationToken::new())
            .await;
    }
}
