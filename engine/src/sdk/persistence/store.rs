//! The session store of a runtime (added in ABI 1.1): its directory (runtime `session_dir`, else
//! `$ROBOTA_HOME/sessions` with `ROBOTA_HOME` defaulting to `~/.robota`), listing and deleting.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::sdk::config::parse_object;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::runtime::RuntimeShared;
use crate::session::store::list as store_list;
use crate::session::store::StoreError;

/// `$ROBOTA_HOME`, else `~/.robota` (HOME, else USERPROFILE, else `/`). Reads the process
/// environment, never changes it.
pub fn robota_home() -> PathBuf {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(h) = var("ROBOTA_HOME") {
        return PathBuf::from(h);
    }
    var("HOME")
        .or_else(|| var("USERPROFILE"))
        .map_or_else(|| PathBuf::from("/"), PathBuf::from)
        .join(".robota")
}

/// The runtime's session directory.
pub fn session_dir(shared: &RuntimeShared) -> PathBuf {
    match shared.configured_session_dir() {
        Some(d) => PathBuf::from(d),
        None => robota_home().join("sessions"),
    }
}

/// The SDK error of a session-store failure.
pub fn store_error(e: StoreError) -> SdkError {
    match e {
        StoreError::InvalidId(m) => SdkError::config(m),
        StoreError::NotFound(m) => SdkError::new(ErrorCode::NotFound, m),
        StoreError::Io(m) => SdkError::new(ErrorCode::Io, m),
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
    let listing =
        store_list::list(&session_dir(shared), cwd.as_deref(), limit).map_err(store_error)?;
    Ok(json!({"v": 1, "sessions": listing.sessions, "skipped": listing.skipped}))
}

/// `robota_store_delete`: [`ErrorCode::NotFound`] for an unknown id.
pub fn delete(shared: &RuntimeShared, session_id: &str) -> SdkResult<()> {
    store_list::delete(&session_dir(shared), session_id).map_err(store_error)
}
