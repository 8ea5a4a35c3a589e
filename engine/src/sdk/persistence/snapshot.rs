//! Session snapshots: `robota_session_save` writes a versioned JSON document (no secrets: the
//! provider is named by its profile, never by its key; hooks, permissions and mode are kept), and resume/fork
//! rebuild a session from it.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::core::history::HistoryEntry;
use crate::core::message::Message;
use crate::sdk::config::document::SessionDocument;
use crate::sdk::config::{
    check_strict, parse_object, parse_session_map, session_keys, SessionConfig,
};
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::events::EventSink;
use crate::sdk::interactive::{InteractiveSession, Restore};
use crate::sdk::persistence::saved::{self, SaveOutcome};
use crate::sdk::persistence::store::store_error;
use crate::sdk::runtime::RuntimeShared;
use crate::session::store;

pub use crate::session::store::list::SNAPSHOT_KIND;

/// Session fields of a config that a snapshot keeps (its [`SessionDocument`]).
fn config_fields(c: &SessionConfig) -> Map<String, Value> {
    match serde_json::to_value(SessionDocument::from(c)) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// The snapshot document of a session.
pub fn snapshot(s: &InteractiveSession) -> Value {
    let cfg = s.config();
    let mut doc = Map::new();
    doc.insert("v".into(), json!(1));
    doc.insert("kind".into(), json!(SNAPSHOT_KIND));
    doc.insert("session_id".into(), json!(s.session_id()));
    // The summary a listing reads: scalars first, one per line (see `session::store::list`).
    doc.insert("name".into(), json!(cfg.name));
    doc.insert("cwd".into(), json!(cfg.cwd));
    doc.insert("created_at".into(), json!(s.created_at()));
    doc.insert("updated_at".into(), json!(s.updated_at()));
    doc.insert("message_count".into(), json!(s.message_count()));
    doc.insert("config".into(), Value::Object(config_fields(&cfg)));
    doc.insert("session_allowed_tools".into(), json!(s.session_allowed()));
    if let Some(b) = s.budget() {
        doc.insert("budget_spent".into(), json!(b.spent()));
    }
    let conv = s.conversation();
    let msgs: Vec<&Message> = conv.iter().map(|m| m.as_ref()).collect();
    doc.insert("messages".into(), json!(msgs));
    doc.insert("history".into(), json!(s.full_history()));
    Value::Object(doc)
}

/// Saves the snapshot in the runtime's session store ([`saved::save`]), replacing the version
/// the session holds; on success the session holds the new one. A conflict is
/// [`ErrorCode::Conflict`] with details `{"code":"CONFLICT","category":"store",
/// "recoverable":false,"message","session_id","expected_version","stored_version"}`.
pub fn persist(s: &InteractiveSession) -> SdkResult<()> {
    let expected = s.store_version();
    let id = s.session_id();
    match saved::save(s.shared(), id, snapshot(s), expected)? {
        SaveOutcome::Saved(v) => {
            s.set_store_version(v);
            Ok(())
        }
        SaveOutcome::Conflict { stored } => {
            let message = format!(
                "session \"{id}\" was saved elsewhere: the store holds version {stored}, this session replaces version {expected}; nothing was overwritten (resume it from the store to go on)"
            );
            let details = json!({"code": "CONFLICT", "category": "store", "recoverable": false,
                "message": message, "session_id": id, "expected_version": expected,
                "stored_version": stored});
            Err(SdkError {
                code: ErrorCode::Conflict,
                message,
                details: Some(Box::new(details)),
            })
        }
    }
}

/// Writes `doc` to `<dir>/<id>.json` through the session store ([`store::save`]: atomic);
/// `id` must pass [`check_session_id`](crate::session::check_session_id).
pub fn write_snapshot(dir: impl AsRef<Path>, id: &str, doc: &Value) -> SdkResult<()> {
    let text = serde_json::to_string_pretty(doc)
        .map_err(|e| SdkError::new(ErrorCode::Internal, e.to_string()))?;
    store::save(dir.as_ref(), id, &text).map_err(store_error)
}

fn restore_from(doc: &Map<String, Value>, store_version: u64) -> SdkResult<Restore> {
    let messages: Vec<Message> = match doc.get("messages") {
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            SdkError::config(format!(
                "snapshot: field \"messages\" is not a message list: {e}"
            ))
        })?,
        None => {
            return Err(SdkError::config(
                "snapshot: missing required field \"messages\"",
            ))
        }
    };
    let history: Vec<HistoryEntry> = match doc.get("history") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            SdkError::config(format!(
                "snapshot: field \"history\" is not a history entry list: {e}"
            ))
        })?,
    };
    Ok(Restore {
        store_version,
        conversation: messages
            .into_iter()
            .map(|m| HistoryEntry::Chat(Arc::new(m)))
            .collect(),
        ui_history: history,
        message_count: doc
            .get("message_count")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        created_at: doc
            .get("created_at")
            .and_then(Value::as_str)
            .map(str::to_string),
        session_allowed: doc
            .get("session_allowed_tools")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        budget_spent: match doc.get("budget_spent") {
            None | Some(Value::Null) => None,
            Some(v) => Some(serde_json::from_value(v.clone()).map_err(|e| {
                SdkError::config(format!("snapshot: field \"budget_spent\" is invalid: {e}"))
            })?),
        },
    })
}

/// Top-level keys of a snapshot that are not session keys (a snapshot may be passed as the
/// resume document itself).
const SNAPSHOT_ONLY_KEYS: [&str; 9] = [
    "kind",
    "budget_spent",
    "config",
    "messages",
    "history",
    "created_at",
    "updated_at",
    "message_count",
    "session_allowed_tools",
];

/// The keys of the resume document: `snapshot`, the session keys (overrides; `session_id`
/// names a saved session) and, when the document is a snapshot itself, the snapshot's own.
fn resume_keys() -> Vec<&'static str> {
    let mut keys = vec!["snapshot"];
    keys.extend(SNAPSHOT_ONLY_KEYS);
    keys.extend(session_keys());
    keys
}

/// Parses the resume document: `{"v":1,"snapshot":{…}}` or `{"v":1,"session_id":"…"}` (read from
/// the runtime's `session_dir`), plus optional session-config overrides (`delivery`, `model`,
/// `hooks`, …). Returns the session config and what to restore.
pub fn parse_resume(
    shared: &RuntimeShared,
    resume_json: &str,
) -> SdkResult<(SessionConfig, Restore)> {
    let map = parse_object("resume_json", resume_json)?;
    check_strict("resume_json", &map, &resume_keys())?;
    let (snap, store_version): (Map<String, Value>, u64) = match map.get("snapshot") {
        Some(Value::Object(s)) => (s.clone(), 0),
        Some(Value::String(text)) => (parse_object("snapshot", text)?, 0),
        Some(_) => {
            return Err(SdkError::config(
                "resume_json: field \"snapshot\" must be a snapshot object",
            ))
        }
        None => {
            if map.get("kind").and_then(Value::as_str) == Some(SNAPSHOT_KIND) {
                (map.clone(), 0)
            } else {
                let Some(id) = map.get("session_id").and_then(Value::as_str) else {
                    return Err(SdkError::config(
                        "resume_json: missing required field \"snapshot\" (or \"session_id\")",
                    ));
                };
                saved::load(shared, id)?
            }
        }
    };
    if snap.get("kind").and_then(Value::as_str) != Some(SNAPSHOT_KIND) {
        return Err(SdkError::config(format!(
            "snapshot: field \"kind\" must be \"{SNAPSHOT_KIND}\""
        )));
    }
    let mut cfg_map = match snap.get("config") {
        Some(Value::Object(c)) => c.clone(),
        _ => {
            return Err(SdkError::config(
                "snapshot: missing required field \"config\"",
            ))
        }
    };
    if let Some(id) = snap.get("session_id") {
        cfg_map.insert("session_id".into(), id.clone());
    }
    for (k, v) in &map {
        if k != "v" && k != "snapshot" && !SNAPSHOT_ONLY_KEYS.contains(&k.as_str()) {
            cfg_map.insert(k.clone(), v.clone());
        }
    }
    let cfg = parse_session_map(&cfg_map)?;
    Ok((cfg, restore_from(&snap, store_version)?))
}

/// Builds the config and restore data of a fork of `src` (`fork_json` overrides; a new id
/// unless it names one).
pub fn parse_fork(
    src: &InteractiveSession,
    fork_json: Option<&str>,
) -> SdkResult<(SessionConfig, Restore)> {
    let mut cfg_map = config_fields(&src.config());
    cfg_map.insert(
        "session_id".into(),
        json!(InteractiveSession::new_session_id()),
    );
    if let Some(text) = fork_json {
        let map = parse_object("fork_json", text)?;
        check_strict("fork_json", &map, session_keys())?;
        for (k, v) in map {
            if k != "v" {
                cfg_map.insert(k, v);
            }
        }
    }
    let cfg = parse_session_map(&cfg_map)?;
    Ok((cfg, src.fork_restore()))
}

/// Opens a session from a resume document.
pub fn resume(
    shared: Arc<RuntimeShared>,
    resume_json: &str,
    sink: EventSink,
    can_answer: impl FnOnce(&SessionConfig) -> bool,
) -> SdkResult<InteractiveSession> {
    let (cfg, restore) = parse_resume(&shared, resume_json)?;
    let ca = can_answer(&cfg);
    InteractiveSession::new(shared, cfg, sink, ca, Some(restore))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a_saved_config_reads_back_to_the_same_document() {
        let doc = serde_json::json!({"provider":"p","model":"claude-haiku-4-5","system_prompt":"sp","cwd":"/tmp",
          "tools":["Read","Agent"],"permission_mode":"acceptEdits","permissions":{"allow":["Read"],"deny":["Bash(rm *)"]},
          "hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]},
          "max_rounds":7,"delivery":"pull","settings":"none","session_id":"abc","persist":true,"replay_events":true,
          "request_timeout_ms":5,"name":"nm","auto_compact_threshold":0.5,"compact_instructions":"ci","transcript":"logs",
          "system_prompt_mode":"replace","language":"fr","thinking":{"budget_tokens":1000},
          "tool_config":{"limits":{"maxOutputChars":1000},"env":{"A":"b"}},
          "native_web_search":true,"host_io":true,"budget":{"max_total_tokens":10,"max_cost_usd":0.5},
          "record":"rec.jsonl","commands":[{"name":"deploy","description":"d","argument_hint":"<env>"},{"name":"x","description":"y"}],
          "agents":{"rev":{"description":"r","prompt":"p","tools":["Read"],"model":"m"}},"team":true,
          "temperature":0.7,"max_tokens":100,"context_window":5000,"tool_choice":{"name":"Read"},
          "output_schema":{"type":"object","properties":{"a":{"type":"integer"}}}});
        let c = parse_session_map(doc.as_object().unwrap()).unwrap();
        let new = config_fields(&c);
        // A resumed session keeps its structured-output schema.
        assert_eq!(new["output_schema"], doc["output_schema"]);
        let old = config_fields(&parse_session_map(&new).unwrap());
        assert_eq!(Value::Object(new), Value::Object(old));
        for doc in [
            serde_json::json!({"provider":"p","model":"m","auto_compact_threshold":false,"settings":"project","tool_choice":"auto"}),
            serde_json::json!({"provider":"p","model":"m","transcript":true}),
        ] {
            let c = parse_session_map(doc.as_object().unwrap()).unwrap();
            let new = config_fields(&c);
            let old = config_fields(&parse_session_map(&new).unwrap());
            assert_eq!(Value::Object(new), Value::Object(old));
        }
    }
}
