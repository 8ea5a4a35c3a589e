//! The session store of a runtime (added in ABI 1.1): its directory (runtime `session_dir`, else
//! `$ROBOTA_HOME/sessions` with `ROBOTA_HOME` defaulting to `~/.robota`, both looked up in the
//! runtime's `env` first), listing and deleting.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::core::env_ref::EnvVars;
use crate::sdk::config::parse_object;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::runtime::RuntimeShared;
use crate::sdk::settings::UserDirs;
use crate::session::store::StoreError;

/// The robota user directory as settings resolve it ([`UserDirs::from_env`]: `ROBOTA_HOME`,
/// else `$HOME/.robota`, looked up in `env`, i.e. the runtime's `env` then the process
/// environment); without either, `$USERPROFILE/.robota`, else `/.robota`. Never changes the
/// environment.
pub fn robota_home(env: &EnvVars) -> PathBuf {
    UserDirs::from_env(env).robota.unwrap_or_else(|| {
        env.get("USERPROFILE")
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from("/"), PathBuf::from)
            .join(".robota")
    })
}

/// The runtime's session directory: its `session_dir`, else `sessions` in [`robota_home`] of
/// the runtime's environment.
pub fn session_dir(shared: &RuntimeShared) -> PathBuf {
    match shared.configured_session_dir() {
        Some(d) => PathBuf::from(d),
        None => robota_home(shared.env_vars()).join("sessions"),
    }
}

/// The SDK error of a session-store failure.
pub fn store_error(e: StoreError) -> SdkError {
    match e {
        StoreError::InvalidId(m) => SdkError::config(m),
        StoreError::NotFound(m) => SdkError::new(ErrorCode::NotFound, m),
        StoreError::Io(m) => SdkError::new(ErrorCode::Io, m),
        StoreError::NotJson(m) => SdkError::new(ErrorCode::InvalidJson, m),
    }
}

/// `robota_store_list`: `query_json` is `None` or `{"cwd"?,"limit"?}` →
/// `{"v":1,"sessions":[{"id","name","cwd","created_at","updated_at","message_count"}],
/// "skipped":[{"file","error"}]}`, newest first.
pub fn list_json(shared: &RuntimeShared, query_json: Option<&str>) -> SdkResult<Value> {
    const W: &str = "query_json";
    let (cwd, limit) = match query_json {
        None => (None, None),
        Some(text) => {
            let q = parse_object(W, text)?;
            crate::sdk::config::check_strict(W, &q, &["cwd", "limit"])?;
            let cwd = match q.get("cwd") {
                None | Some(Value::Null) => None,
                Some(Value::String(c)) => Some(c.clone()),
                Some(_) => {
                    return Err(SdkError::config(format!(
                        "{W}: field \"cwd\" must be a string"
                    )))
                }
            };
            let limit = match q.get("limit") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_u64().ok_or_else(|| {
                    SdkError::config(format!(
                        "{W}: field \"limit\" must be a non-negative integer"
                    ))
                })? as usize),
            };
            (cwd, limit)
        }
    };
    let mut listing = super::saved::list(shared, cwd.as_deref(), limit)?;
    Ok(
        json!({"v": 1, "sessions": listing["sessions"].take(), "skipped": listing["skipped"].take()}),
    )
}

/// `robota_store_delete`: [`ErrorCode::NotFound`] for an unknown id.
pub fn delete(shared: &RuntimeShared, session_id: &str) -> SdkResult<()> {
    super::saved::delete(shared, session_id)
}
