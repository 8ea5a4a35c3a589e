//! Status codes, event kinds, log levels and the error object.

use std::ffi::CString;

use robota_engine::sdk::error::{ErrorCode, SdkError};

/// Status of a call: `ROBOTA_OK` or a negative `ROBOTA_E_*`.
#[allow(non_camel_case_types)]
pub type robota_status = i32;

/// ABI version, `(major << 16) | minor`.
pub const ROBOTA_ABI_VERSION: u32 = 0x0001_0002;

/// Success.
pub const ROBOTA_OK: robota_status = 0;
/// A required pointer argument was NULL.
pub const ROBOTA_E_NULL_ARG: robota_status = -1;
/// A freed, foreign or wrong-type handle.
pub const ROBOTA_E_INVALID_HANDLE: robota_status = -2;
/// A JSON argument is not valid JSON.
pub const ROBOTA_E_INVALID_JSON: robota_status = -3;
/// A JSON document has missing or wrong fields.
pub const ROBOTA_E_INVALID_CONFIG: robota_status = -4;
/// The session is busy (a prompt is already queued, a command needs an idle session).
pub const ROBOTA_E_BUSY: robota_status = -5;
/// A name or id that does not exist (provider, tool, command, turn, never-issued id).
pub const ROBOTA_E_NOT_FOUND: robota_status = -6;
/// An id that was already answered, timed out or cancelled.
pub const ROBOTA_E_STALE: robota_status = -7;
/// A wait ran out.
pub const ROBOTA_E_TIMEOUT: robota_status = -8;
/// The session is closed.
pub const ROBOTA_E_CLOSED: robota_status = -9;
/// The awaited turn was aborted.
pub const ROBOTA_E_ABORTED: robota_status = -10;
/// A blocking call was made from inside a callback.
pub const ROBOTA_E_REENTRANT: robota_status = -11;
/// Not supported (in this delivery mode or by this build).
pub const ROBOTA_E_UNSUPPORTED: robota_status = -12;
/// File or OS failure.
pub const ROBOTA_E_IO: robota_status = -13;
/// The model provider failed.
pub const ROBOTA_E_PROVIDER: robota_status = -14;
/// A panic was caught at the boundary.
pub const ROBOTA_E_PANIC: robota_status = -15;
/// An internal error.
pub const ROBOTA_E_INTERNAL: robota_status = -16;
/// A document or library of another major version.
pub const ROBOTA_E_VERSION_MISMATCH: robota_status = -17;
/// A string argument is not valid UTF-8.
pub const ROBOTA_E_INVALID_UTF8: robota_status = -18;
/// The session's budget is exhausted (`"budget"`): the turn stopped, or a submit was refused.
pub const ROBOTA_E_BUDGET: robota_status = -19;
/// A save replaced a version the session store no longer holds (another node saved the session
/// first): nothing was overwritten (ABI 1.2).
pub const ROBOTA_E_CONFLICT: robota_status = -20;

/// Turn started: `{"v":1,"type":"turn_started","turn_id","input"}`.
pub const ROBOTA_EVENT_TURN_STARTED: u32 = 1;
/// Text delta: raw UTF-8 (not JSON).
pub const ROBOTA_EVENT_TEXT_DELTA: u32 = 2;
/// Thinking delta: raw UTF-8.
pub const ROBOTA_EVENT_THINKING_DELTA: u32 = 3;
/// A message committed to the conversation (message JSON).
pub const ROBOTA_EVENT_MESSAGE: u32 = 4;
/// `{"tool_call_id","tool_name","first_arg","arguments"}`.
pub const ROBOTA_EVENT_TOOL_START: u32 = 5;
/// `{"tool_call_id","tool_name","result","output"}`.
pub const ROBOTA_EVENT_TOOL_END: u32 = 6;
/// A host tool call to answer: `{"call_id","tool_name","arguments"}`.
pub const ROBOTA_EVENT_TOOL_CALL: u32 = 7;
/// `{"call_id"}`: a pending host tool call was cancelled.
pub const ROBOTA_EVENT_TOOL_CALL_CANCELLED: u32 = 8;
/// `{"request_id","tool_name","arguments","reason"}`.
pub const ROBOTA_EVENT_PERMISSION_REQUEST: u32 = 9;
/// Host hook input + `request_id`.
pub const ROBOTA_EVENT_HOOK_REQUEST: u32 = 10;
/// `{"used_tokens","max_tokens","used_percentage"}`.
pub const ROBOTA_EVENT_CONTEXT_UPDATE: u32 = 11;
/// `{"trigger","summary",…}`.
pub const ROBOTA_EVENT_COMPACTED: u32 = 12;
/// A replay event `{"name","data"}` (only with `"replay_events": true`).
pub const ROBOTA_EVENT_EXECUTION: u32 = 13;
/// `{"message",…}`.
pub const ROBOTA_EVENT_WARNING: u32 = 14;
/// `{"code","category","recoverable","message"}`.
pub const ROBOTA_EVENT_ERROR: u32 = 15;
/// `{"turn_id","stop_reason","response","tool_summaries","context_state","usage"}`.
pub const ROBOTA_EVENT_TURN_COMPLETED: u32 = 16;
/// Last event of a session.
pub const ROBOTA_EVENT_SESSION_CLOSED: u32 = 17;
/// A subagent's event: `{"agent_id","agent_type","parent_tool_call_id","event":{…}}` where
/// `event` is the child's event in pull form (its requests keep their own kinds and ids).
pub const ROBOTA_EVENT_SUBAGENT: u32 = 18;
/// A host I/O request (`{"io_id","request":{"v":1,"op",…}}`) in pull mode; answer it with
/// `robota_host_io_complete`.
pub const ROBOTA_EVENT_HOST_IO: u32 = 19;
/// A host-registered command to run (`{"request_id","name","args"}`); answer it with
/// `robota_request_respond` and `{"message","success"?,"data"?,"prompt"?}`.
pub const ROBOTA_EVENT_COMMAND_REQUEST: u32 = 20;
/// A pending host request became void (ABI v1.2): `{"request_id","request_kind":"permission"|
/// "hook"|"host_io"|"command"|"tool_call","reason":"aborted"|"turn_ended"|"timeout"|
/// "session_closed"}`, after the request's own event and before its turn's `TURN_COMPLETED`
/// (`SESSION_CLOSED` on close). Answering the request afterwards is `ROBOTA_E_STALE`.
pub const ROBOTA_EVENT_REQUEST_CANCELLED: u32 = 21;
/// Event (ABI 1.2): the provider's server ran one of its own tools while the model answered
/// (Anthropic's native `web_search`), JSON `{"tool_name","status":"started","query","input"}`
/// (`query`: the input's search query, or null). Informational; nothing to answer.
pub const ROBOTA_EVENT_SERVER_TOOL: u32 = 22;

/// Log level: trace.
pub const ROBOTA_LOG_TRACE: i32 = 0;
/// Log level: debug.
pub const ROBOTA_LOG_DEBUG: i32 = 1;
/// Log level: info.
pub const ROBOTA_LOG_INFO: i32 = 2;
/// Log level: warning.
pub const ROBOTA_LOG_WARN: i32 = 3;
/// Log level: error.
pub const ROBOTA_LOG_ERROR: i32 = 4;

/// Status of an error class.
pub(crate) fn status_of(code: ErrorCode) -> robota_status {
    match code {
        ErrorCode::NullArg => ROBOTA_E_NULL_ARG,
        ErrorCode::InvalidHandle => ROBOTA_E_INVALID_HANDLE,
        ErrorCode::InvalidJson => ROBOTA_E_INVALID_JSON,
        ErrorCode::InvalidConfig => ROBOTA_E_INVALID_CONFIG,
        ErrorCode::Busy => ROBOTA_E_BUSY,
        ErrorCode::NotFound => ROBOTA_E_NOT_FOUND,
        ErrorCode::Stale => ROBOTA_E_STALE,
        ErrorCode::Timeout => ROBOTA_E_TIMEOUT,
        ErrorCode::Closed => ROBOTA_E_CLOSED,
        ErrorCode::Aborted => ROBOTA_E_ABORTED,
        ErrorCode::Reentrant => ROBOTA_E_REENTRANT,
        ErrorCode::Unsupported => ROBOTA_E_UNSUPPORTED,
        ErrorCode::Io => ROBOTA_E_IO,
        ErrorCode::Provider => ROBOTA_E_PROVIDER,
        ErrorCode::Panic => ROBOTA_E_PANIC,
        ErrorCode::Internal => ROBOTA_E_INTERNAL,
        ErrorCode::VersionMismatch => ROBOTA_E_VERSION_MISMATCH,
        ErrorCode::InvalidUtf8 => ROBOTA_E_INVALID_UTF8,
        ErrorCode::Budget => ROBOTA_E_BUDGET,
        ErrorCode::Conflict => ROBOTA_E_CONFLICT,
    }
}

/// Static English text of a status.
pub(crate) fn status_text(s: robota_status) -> &'static str {
    match s {
        ROBOTA_OK => "ok\0",
        ROBOTA_E_NULL_ARG => "a required argument is NULL\0",
        ROBOTA_E_INVALID_HANDLE => "invalid handle (freed, foreign or of another type)\0",
        ROBOTA_E_INVALID_JSON => "invalid JSON\0",
        ROBOTA_E_INVALID_CONFIG => "invalid document (missing or wrong fields)\0",
        ROBOTA_E_BUSY => "busy\0",
        ROBOTA_E_NOT_FOUND => "not found\0",
        ROBOTA_E_STALE => "stale id (already answered, timed out or cancelled)\0",
        ROBOTA_E_TIMEOUT => "timed out\0",
        ROBOTA_E_CLOSED => "closed\0",
        ROBOTA_E_ABORTED => "aborted\0",
        ROBOTA_E_REENTRANT => "blocking call from inside a callback\0",
        ROBOTA_E_UNSUPPORTED => "unsupported\0",
        ROBOTA_E_IO => "I/O error\0",
        ROBOTA_E_PROVIDER => "provider error\0",
        ROBOTA_E_PANIC => "internal panic caught at the boundary\0",
        ROBOTA_E_INTERNAL => "internal error\0",
        ROBOTA_E_VERSION_MISMATCH => "version mismatch\0",
        ROBOTA_E_INVALID_UTF8 => "invalid UTF-8\0",
        ROBOTA_E_BUDGET => "budget exhausted\0",
        ROBOTA_E_CONFLICT => "conflict: the session store holds another version\0",
        _ => "unknown status\0",
    }
}

/// An owned error object.
#[allow(non_camel_case_types)]
pub struct robota_error {
    pub(crate) status: robota_status,
    pub(crate) message: CString,
    pub(crate) details: Option<CString>,
}

fn c_string(s: String) -> CString {
    CString::new(s.replace('\0', "\\0")).unwrap_or_default()
}

impl robota_error {
    /// From a library error.
    pub(crate) fn from_sdk(e: &SdkError) -> Self {
        robota_error {
            status: status_of(e.code),
            message: c_string(e.message.clone()),
            details: e.details.as_ref().map(|d| c_string(d.to_string())),
        }
    }
}

/// Shorthand: a library error of class `code`.
pub(crate) fn err(code: ErrorCode, message: impl Into<String>) -> SdkError {
    SdkError::new(code, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use robota_engine::sdk::events;

    #[test]
    fn event_kinds_match_the_sdk() {
        let pairs = [
            (ROBOTA_EVENT_TURN_STARTED, events::TURN_STARTED),
            (ROBOTA_EVENT_TEXT_DELTA, events::TEXT_DELTA),
            (ROBOTA_EVENT_THINKING_DELTA, events::THINKING_DELTA),
            (ROBOTA_EVENT_MESSAGE, events::MESSAGE),
            (ROBOTA_EVENT_TOOL_START, events::TOOL_START),
            (ROBOTA_EVENT_TOOL_END, events::TOOL_END),
            (ROBOTA_EVENT_TOOL_CALL, events::TOOL_CALL),
            (
                ROBOTA_EVENT_TOOL_CALL_CANCELLED,
                events::TOOL_CALL_CANCELLED,
            ),
            (ROBOTA_EVENT_PERMISSION_REQUEST, events::PERMISSION_REQUEST),
            (ROBOTA_EVENT_HOOK_REQUEST, events::HOOK_REQUEST),
            (ROBOTA_EVENT_CONTEXT_UPDATE, events::CONTEXT_UPDATE),
            (ROBOTA_EVENT_COMPACTED, events::COMPACTED),
            (ROBOTA_EVENT_EXECUTION, events::EXECUTION),
            (ROBOTA_EVENT_WARNING, events::WARNING),
            (ROBOTA_EVENT_ERROR, events::ERROR),
            (ROBOTA_EVENT_TURN_COMPLETED, events::TURN_COMPLETED),
            (ROBOTA_EVENT_SESSION_CLOSED, events::SESSION_CLOSED),
        ];
        for (i, (a, b)) in pairs.iter().enumerate() {
            assert_eq!(a, b);
            assert_eq!(*a as usize, i + 1);
        }
        assert_eq!(ROBOTA_EVENT_SUBAGENT, events::SUBAGENT);
        assert_eq!(ROBOTA_EVENT_HOST_IO, events::HOST_IO);
        assert_eq!(ROBOTA_EVENT_COMMAND_REQUEST, events::COMMAND_REQUEST);
        assert_eq!(ROBOTA_EVENT_REQUEST_CANCELLED, events::REQUEST_CANCELLED);
        assert_eq!(ROBOTA_EVENT_SERVER_TOOL, events::SERVER_TOOL);
        assert_eq!(ROBOTA_ABI_VERSION >> 16, 1);
        assert_eq!(
            ROBOTA_ABI_VERSION & 0xffff,
            2,
            "v1.2 functions are in the header"
        );
        assert_eq!(
            super::super::api_lib::robota_abi_version(),
            ROBOTA_ABI_VERSION
        );
    }

    #[test]
    fn every_status_has_its_own_text() {
        let texts: std::collections::BTreeSet<&str> = (-20..=0).map(status_text).collect();
        assert_eq!(texts.len(), 21);
        assert_eq!(status_text(-99), "unknown status\0");
    }
}
