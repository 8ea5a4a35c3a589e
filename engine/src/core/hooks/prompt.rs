//! The `prompt` executor: asks the session's provider whether to allow (a truthy `ok` allows).
//!
//! Definition: `{"type":"prompt","prompt":str,"model"?:str,"timeout"?:seconds}` (`model`
//! defaults to the session's model; `timeout` to [`DEFAULT_PROMPT_TIMEOUT`]). The question is
//! `<prompt>\n\nContext:\n<input JSON>\n\nRespond with JSON: { "ok": boolean, "reason"?: string }`
//! sent as one tool-less user message. The answer (the inner text of a fenced ```/```json block
//! when there is one, else the trimmed reply) is parsed as JSON, as Robota does:
//! * `ok` truthy → exit 0, stdout = the parsed JSON (it contributes nothing to hook output);
//! * otherwise → exit 2 (blocks), reason = `reason` or `Blocked by prompt hook`;
//! * not JSON → exit 1 `Failed to parse AI response as JSON: <raw>`: a warning, the action
//!   proceeds (like any hook exit code other than 0 and 2);
//! * a provider failure → exit 1 with its message; no answer in time → exit 1
//!   `Prompt hook timed out` (both warnings, the action proceeds).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::registry::HookExecutor;
use super::types::{HookDefinition, HookResult};
use super::verdict::from_reply;
pub use super::verdict::{json_text, RESPOND_WITH_JSON};
use crate::core::budget::{complete_within, Budget};
use crate::core::provider::Provider;

/// Default time a prompt hook may take (seconds: 30).
pub const DEFAULT_PROMPT_TIMEOUT: Duration = Duration::from_secs(30);
/// Reason when a prompt hook blocks without giving one.
pub const PROMPT_BLOCK_REASON: &str = "Blocked by prompt hook";
/// Result text of a prompt hook that did not answer within its timeout.
pub const PROMPT_TIMED_OUT: &str = "Prompt hook timed out";

/// Runs `prompt` hooks on a session's provider.
pub struct PromptExecutor {
    provider: Arc<dyn Provider>,
    model: String,
    budget: Option<Arc<Budget>>,
}

impl PromptExecutor {
    /// An executor asking `provider`, `model` unless a hook names another.
    pub fn new(provider: Arc<dyn Provider>, model: impl Into<String>) -> Self {
        PromptExecutor {
            provider,
            model: model.into(),
            budget: None,
        }
    }

    /// Its calls count on the session's budget: a call the budget refuses is not made and the
    /// hook fails with the budget's message (exit 1, a warning).
    pub fn with_budget(mut self, budget: Option<Arc<Budget>>) -> Self {
        self.budget = budget;
        self
    }
}

/// The question a prompt hook asks.
pub fn question(prompt: &str, input: &Value) -> String {
    format!("{prompt}\n\nContext:\n{input}\n\n{RESPOND_WITH_JSON}")
}

/// Maps a model's reply to a hook result (see the module doc).
pub fn verdict(reply: &str) -> HookResult {
    from_reply(reply, "AI", PROMPT_BLOCK_REASON)
}

#[async_trait]
impl HookExecutor for PromptExecutor {
    fn kind(&self) -> &str {
        "prompt"
    }

    async fn execute(
        &self,
        def: &HookDefinition,
        input: &Value,
        cancel: CancellationToken,
    ) -> HookResult {
        let (prompt, timeout) =
            match def.field_and_timeout(self.kind(), "prompt", DEFAULT_PROMPT_TIMEOUT) {
                Ok(read) => read,
                Err(failure) => return failure,
            };
        let model = def.str_field("model").unwrap_or(&self.model);
        // The call stops with the hook: its own token ends the stream on timeout or cancel.
        let call_cancel = cancel.child_token();
        let ask = complete_within(
            self.budget.as_deref(),
            self.provider.as_ref(),
            model,
            question(prompt, input),
            call_cancel.clone(),
        );
        let _stop = call_cancel.drop_guard();
        tokio::select! {
            r = ask => match r {
                Ok(_) if cancel.is_cancelled() => HookResult::failure("Hook cancelled"),
                Ok(reply) => verdict(&reply.content),
                Err(e) => HookResult::failure(e.to_string()),
            },
            _ = tokio::time::sleep(timeout) => HookResult::failure(PROMPT_TIMED_OUT),
            _ = cancel.cancelled() => HookResult::failure("Hook cancelled"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_the_reference() {
        assert_eq!(
            verdict("{\"ok\":true}"),
            HookResult::new(0, "{\"ok\":true}", "")
        );
        assert_eq!(
            verdict("{\"ok\":false,\"reason\":\"no\"}"),
            HookResult::new(2, "", "no")
        );
        assert_eq!(verdict("{}"), HookResult::new(2, "", PROMPT_BLOCK_REASON));
        assert_eq!(
            verdict("yes please"),
            HookResult::new(1, "", "Failed to parse AI response as JSON: yes please")
        );
    }
}
