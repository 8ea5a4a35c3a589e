//! The host-facing error: a status-like code, a message naming the problem, optional details.

use serde_json::{json, Value};

use crate::core::errors::RobotaError;

/// Error classes, one per C status (`ROBOTA_E_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// A required pointer/argument is missing.
    NullArg,
    /// A freed or foreign handle.
    InvalidHandle,
    /// Text that is not JSON.
    InvalidJson,
    /// JSON that is not an acceptable document (missing/wrong fields).
    InvalidConfig,
    /// The session is busy.
    Busy,
    /// A name or id that does not exist.
    NotFound,
    /// An id that was already answered, timed out or was cancelled.
    Stale,
    /// A wait ran out.
    Timeout,
    /// The session is closed.
    Closed,
    /// The turn was aborted.
    Aborted,
    /// A blocking call from inside a callback.
    Reentrant,
    /// Not supported (in this delivery mode, by this build…).
    Unsupported,
    /// File or OS failure.
    Io,
    /// The model provider failed.
    Provider,
    /// A panic was caught.
    Panic,
    /// A bug.
    Internal,
    /// A document of another major version.
    VersionMismatch,
    /// Text that is not UTF-8.
    InvalidUtf8,
    /// The session's budget is exhausted.
    Budget,
    /// A save replaced a version the session store no longer holds (another node saved first).
    Conflict,
}

/// An error with a message naming the problem and optional taxonomy details.
#[derive(Debug, Clone, PartialEq)]
pub struct SdkError {
    /// Class.
    pub code: ErrorCode,
    /// English message naming what is wrong.
    pub message: String,
    /// Details (`{"code","category","recoverable",…}`) when a Robota error is behind it.
    pub details: Option<Box<Value>>,
}

impl std::fmt::Display for SdkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SdkError {}

impl SdkError {
    /// A new error.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        SdkError {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// `InvalidConfig`.
    pub fn config(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidConfig, message)
    }

    /// `InvalidJson` for `what` (e.g. `config_json`).
    pub fn json(what: &str, e: &serde_json::Error) -> Self {
        Self::new(
            ErrorCode::InvalidJson,
            format!("{what} is not valid JSON: {e}"),
        )
    }

    /// From a Robota taxonomy error (details carry code/category/recoverable).
    pub fn robota(code: ErrorCode, e: &RobotaError) -> Self {
        SdkError {
            code,
            message: e.to_string(),
            details: Some(Box::new(robota_details(e))),
        }
    }
}

/// `{"code","category","recoverable","message"}` of a Robota error.
pub fn robota_details(e: &RobotaError) -> Value {
    json!({
        "v": 1,
        "code": e.code(),
        "category": e.category().as_str(),
        "recoverable": e.is_recoverable(),
        "message": e.to_string(),
    })
}

/// Result alias.
pub type SdkResult<T> = Result<T, SdkError>;

/// Parses JSON text naming the argument on failure.
pub fn parse_json(what: &str, text: &str) -> SdkResult<Value> {
    serde_json::from_str(text).map_err(|e| SdkError::json(what, &e))
}

/// `names` joined by ", " for an error message, or `none` when there are none.
pub(crate) fn list_or_none<S: AsRef<str>>(names: &[S]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    names.join(", ")
}
