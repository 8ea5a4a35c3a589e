//! The host's answers to the runtime's ids: a host tool call's result
//! ([`Runtime::complete_tool_call`]) and a permission or host hook request's response
//! ([`Runtime::respond`]), from any thread, any time after the id was issued.

use serde_json::Value;

use crate::sdk::error::{parse_json, ErrorCode, SdkError, SdkResult};
use crate::sdk::host::pending::{Answer, AnswerError, PendingKind};
use crate::sdk::host::session_requests::validate_response;
use crate::sdk::runtime::Runtime;

/// The error of a refused answer (unknown or stale id).
pub(crate) fn answer_error(e: AnswerError) -> SdkError {
    match e {
        AnswerError::NotFound(m) => SdkError::new(ErrorCode::NotFound, m),
        AnswerError::Stale(m) => SdkError::new(ErrorCode::Stale, m),
    }
}

impl Runtime {
    /// Answers host tool call `call_id` with `result` (any JSON text; text that is not JSON is
    /// taken as a plain string); `is_error` marks a failure the model should see.
    /// [`ErrorCode::Stale`] when already answered, timed out or aborted;
    /// [`ErrorCode::NotFound`] when never issued or not a tool call.
    pub fn complete_tool_call(&self, call_id: u64, result: &str, is_error: bool) -> SdkResult<()> {
        let value =
            serde_json::from_str::<Value>(result).unwrap_or_else(|_| Value::String(result.into()));
        self.shared()
            .pending()
            .answer(
                call_id,
                &[PendingKind::ToolCall],
                Answer::Tool { value, is_error },
            )
            .map_err(answer_error)
    }

    /// Answers a permission request (`{"decision":"allow"|"deny","remember":false}`), a host
    /// hook request (`{"exit_code","stdout","stderr"}`) or a host command request
    /// (`{"message","success"?,"data"?,"prompt"?}`). A response of the wrong shape is
    /// [`ErrorCode::InvalidConfig`] and the request keeps waiting; stale and unknown ids as in
    /// [`Self::complete_tool_call`].
    pub fn respond(&self, request_id: u64, response: &str) -> SdkResult<()> {
        let value = parse_json("response_json", response)?;
        let pending = self.shared().pending();
        if let Some(kind) = pending.kind_of(request_id) {
            validate_response(kind, &value)
                .map_err(|m| SdkError::new(ErrorCode::InvalidConfig, m))?;
        }
        pending
            .answer(
                request_id,
                &[
                    PendingKind::Permission,
                    PendingKind::Hook,
                    PendingKind::Command,
                ],
                Answer::Response(value),
            )
            .map_err(answer_error)
    }
}
