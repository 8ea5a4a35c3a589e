//! Sessions saved in a `session_dir` (`<id>.json` snapshots), newest first: what the `resume`
//! command lists.

use std::path::Path;

use serde_json::{json, Value};

/// `[{"id","name","cwd","created_at","updated_at","message_count"}]`, newest first; files that
/// are not session snapshots are skipped.
pub fn list_sessions(dir: &Path) -> Vec<Value> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Value> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| {
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(e.path()).ok()?).ok()?;
            if doc.get("kind")?.as_str()? != super::snapshot::SNAPSHOT_KIND {
                return None;
            }
            Some(json!({
                "id": doc["session_id"],
                "name": doc["config"]["name"],
                "cwd": doc["config"]["cwd"],
                "created_at": doc["created_at"],
                "updated_at": doc["updated_at"],
                "message_count": doc["message_count"],
            }))
        })
        .collect();
    out.sort_by(|a, b| {
        let k = |v: &Value| v["updated_at"].as_str().unwrap_or("").to_string();
        k(b).cmp(&k(a))
            .then_with(|| a["id"].as_str().cmp(&b["id"].as_str()))
    });
    out
}
