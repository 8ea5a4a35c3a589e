//! The session document's `transcript` field (the writer is [`crate::sdk::events::transcript`]).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::fields::Fields;
use crate::sdk::error::{SdkError, SdkResult};

/// `transcript`: absent/`false` → none, `true` → `<cwd>/.robota/logs`, a string → that
/// directory (relative to `cwd`).
pub fn parse(what: &str, map: &Map<String, Value>, cwd: &str) -> SdkResult<Option<PathBuf>> {
    match map.field("transcript") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Ok(None),
        Some(Value::Bool(true)) => Ok(Some(Path::new(cwd).join(".robota").join("logs"))),
        Some(Value::String(d)) if !d.is_empty() => Ok(Some(Path::new(cwd).join(d))),
        Some(v) => Err(SdkError::config(format!(
            "{what}: field \"transcript\" must be true, false or a directory path, got {v}"
        ))),
    }
}
