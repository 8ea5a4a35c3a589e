//! Where saved sessions live: the host's store when the runtime has one
//! (`robota_runtime_set_store`, [`super::port`]), else the session directory
//! ([`crate::session::store`]). Saving, loading, listing and deleting go through here.
//!
//! Versions: the host's store numbers each session's saves (1, 2, …) and a save names the
//! version it replaces (0: a new session), so two nodes advancing one session cannot overwrite
//! each other: the second save is a conflict ([`ErrorCode::Conflict`]). The directory store
//! keeps no versions (one process owns a directory).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::port::StoreHandler;
use super::store::{session_dir, store_error};
use crate::sdk::config::parse_object;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::runtime::RuntimeShared;
use crate::session::store::{self as dir_store, check_session_id, list as dir_list};

/// The summary fields a listing shows, in a saved snapshot and a `save` request's `summary`.
const SUMMARY_FIELDS: [&str; 5] = ["name", "cwd", "created_at", "updated_at", "message_count"];

/// The store of a runtime.
enum Saved {
    Dir(PathBuf),
    Host(Arc<dyn StoreHandler>),
}

fn saved_in(shared: &RuntimeShared) -> Saved {
    match shared.store_port().handler() {
        Some(h) => Saved::Host(h),
        None => Saved::Dir(session_dir(shared)),
    }
}

/// How long a store request waits for its answer: the runtime's `request_timeout_ms`
/// (0: as long as it takes).
fn timeout(shared: &RuntimeShared) -> Duration {
    match shared.request_timeout_ms() {
        0 => Duration::from_secs(365 * 24 * 3600),
        ms => Duration::from_millis(ms),
    }
}

/// Sends `op` with `fields` to the host's store.
fn ask(
    shared: &RuntimeShared,
    h: &Arc<dyn StoreHandler>,
    op: &str,
    fields: Value,
) -> SdkResult<Map<String, Value>> {
    let Value::Object(request) = fields else {
        return Err(SdkError::new(
            ErrorCode::Internal,
            "store request is not an object",
        ));
    };
    shared
        .store_port()
        .ask(h.as_ref(), op, request, timeout(shared))
}

/// A wrong-shaped answer to `op`, naming the field.
fn bad_answer(op: &str, what: &str) -> SdkError {
    SdkError::new(
        ErrorCode::InvalidConfig,
        format!("session store: the answer to {op} {what}"),
    )
}

/// Loads saved session `id`: the snapshot and its version (0 in the directory store).
pub fn load(shared: &RuntimeShared, id: &str) -> SdkResult<(Map<String, Value>, u64)> {
    check_session_id(id).map_err(SdkError::config)?;
    match saved_in(shared) {
        Saved::Dir(dir) => {
            let text = dir_store::load(&dir, id).map_err(store_error)?;
            Ok((parse_object("saved session", &text)?, 0))
        }
        Saved::Host(h) => {
            let mut a = ask(shared, &h, "load", json!({ "session_id": id }))?;
            if a.get("found") == Some(&Value::Bool(false)) {
                return Err(SdkError::new(
                    ErrorCode::NotFound,
                    format!("no saved session \"{id}\" in the session store"),
                ));
            }
            let version = a.get("version").and_then(Value::as_u64).filter(|v| *v > 0);
            let Some(version) = version else {
                return Err(bad_answer(
                    "load",
                    "needs \"version\" (an integer ≥ 1) or \"found\": false",
                ));
            };
            match a.remove("snapshot") {
                Some(Value::Object(s)) => Ok((s, version)),
                Some(Value::String(text)) => Ok((parse_object("saved session", &text)?, version)),
                _ => Err(bad_answer(
                    "load",
                    "needs \"snapshot\" (the saved session object)",
                )),
            }
        }
    }
}

/// The result of [`save`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveOutcome {
    /// Saved; the session's version is now this (0 in the directory store).
    Saved(u64),
    /// Not saved: the store holds version `stored`, not the one the save replaces.
    Conflict {
        /// The version the store holds (0: none, the session was deleted).
        stored: u64,
    },
}

/// Saves snapshot `doc` of session `id`, replacing version `expected` (0: a new session).
pub fn save(shared: &RuntimeShared, id: &str, doc: Value, expected: u64) -> SdkResult<SaveOutcome> {
    match saved_in(shared) {
        Saved::Dir(dir) => {
            let text = serde_json::to_string_pretty(&doc)
                .map_err(|e| SdkError::new(ErrorCode::Internal, e.to_string()))?;
            dir_store::save(&dir, id, &text).map_err(store_error)?;
            Ok(SaveOutcome::Saved(0))
        }
        Saved::Host(h) => {
            let summary: Map<String, Value> = SUMMARY_FIELDS
                .iter()
                .map(|k| (k.to_string(), doc.get(*k).cloned().unwrap_or(Value::Null)))
                .collect();
            let mut request = Map::new();
            request.insert("session_id".into(), Value::from(id));
            request.insert("expected_version".into(), Value::from(expected));
            request.insert("snapshot".into(), doc);
            request.insert("summary".into(), Value::Object(summary));
            let request = Value::Object(request);
            let a = ask(shared, &h, "save", request)?;
            if a.get("conflict") == Some(&Value::Bool(true)) {
                let stored = a.get("version").and_then(Value::as_u64).unwrap_or(0);
                return Ok(SaveOutcome::Conflict { stored });
            }
            match a.get("version").and_then(Value::as_u64) {
                Some(v) if v > expected => Ok(SaveOutcome::Saved(v)),
                _ => Err(bad_answer(
                    "save",
                    &format!(
                        "needs \"version\" (an integer above the expected {expected}) or \"conflict\": true"
                    ),
                )),
            }
        }
    }
}

/// Whether session `id` is saved (a failed lookup counts as not saved).
pub fn exists(shared: &RuntimeShared, id: &str) -> bool {
    match saved_in(shared) {
        Saved::Dir(dir) => dir_store::session_file_path(&dir, id).is_ok_and(|p| p.exists()),
        Saved::Host(_) => load(shared, id).is_ok(),
    }
}

/// Deletes saved session `id`: [`ErrorCode::NotFound`] when there is none.
pub fn delete(shared: &RuntimeShared, id: &str) -> SdkResult<()> {
    match saved_in(shared) {
        Saved::Dir(dir) => dir_list::delete(&dir, id).map_err(store_error),
        Saved::Host(h) => {
            check_session_id(id).map_err(SdkError::config)?;
            let a = ask(shared, &h, "delete", json!({ "session_id": id }))?;
            match a.get("deleted") {
                Some(Value::Bool(true)) => Ok(()),
                Some(Value::Bool(false)) => Err(SdkError::new(
                    ErrorCode::NotFound,
                    format!("no saved session \"{id}\" in the session store"),
                )),
                _ => Err(bad_answer("delete", "needs \"deleted\": true or false")),
            }
        }
    }
}

/// Lists saved sessions (`cwd` filters, `limit` caps): `{"sessions":[…],"skipped":[…]}`, newest
/// first.
pub fn list(shared: &RuntimeShared, cwd: Option<&str>, limit: Option<usize>) -> SdkResult<Value> {
    match saved_in(shared) {
        Saved::Dir(dir) => {
            let l = dir_list::list(&dir, cwd, limit).map_err(store_error)?;
            Ok(json!({"sessions": l.sessions, "skipped": l.skipped}))
        }
        Saved::Host(h) => {
            let a = ask(shared, &h, "list", json!({"cwd": cwd, "limit": limit}))?;
            let Some(Value::Array(sessions)) = a.get("sessions") else {
                return Err(bad_answer("list", "needs \"sessions\" (an array)"));
            };
            for (i, s) in sessions.iter().enumerate() {
                if !s.get("id").is_some_and(Value::is_string) {
                    return Err(bad_answer(
                        "list",
                        &format!("has sessions[{i}] without a string \"id\""),
                    ));
                }
            }
            let mut sessions = sessions.clone();
            if let Some(n) = limit {
                sessions.truncate(n);
            }
            Ok(json!({"sessions": sessions, "skipped": []}))
        }
    }
}

/// Appends transcript `lines` (complete JSONL lines) of session `id` through the host's store.
/// `false` when the runtime has no store (the transcript is a local file then).
pub fn append_transcript(shared: &RuntimeShared, id: &str, lines: &str) -> SdkResult<bool> {
    match saved_in(shared) {
        Saved::Dir(_) => Ok(false),
        Saved::Host(h) => {
            ask(
                shared,
                &h,
                "append",
                json!({"session_id": id, "lines": lines}),
            )?;
            Ok(true)
        }
    }
}
