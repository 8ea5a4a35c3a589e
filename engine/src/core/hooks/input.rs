//! Building hook inputs (snake_case keys, optional ones omitted when absent): the common keys
//! (`session_id`, `cwd`, `hook_event_name`) plus event-specific ones.

use serde_json::{Map, Value};

use super::types::HookEvent;

/// The common part of every hook input: `session_id`, `cwd`, `hook_event_name`. Add the
/// event's own keys to the returned map (optional keys are omitted when absent).
pub fn hook_input(event: HookEvent, session_id: &str, cwd: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("session_id".into(), Value::String(session_id.to_string()));
    m.insert("cwd".into(), Value::String(cwd.to_string()));
    m.insert(
        "hook_event_name".into(),
        Value::String(event.as_str().to_string()),
    );
    m
}
