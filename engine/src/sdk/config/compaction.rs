//! Session-JSON compaction settings: `auto_compact_threshold` and the default compaction focus
//! (`compact_instructions`, else the "Compact Instructions" section of the CLAUDE.md files
//! from the filesystem root down to `cwd`, joined by a blank line).

use std::path::Path;

use serde_json::{Map, Value};

use crate::sdk::config::fields::Fields;
use crate::sdk::error::{SdkError, SdkResult};
use crate::session::compaction::compact_instructions_section;
use crate::session::AUTO_COMPACT_THRESHOLD;

/// `auto_compact_threshold`: absent → 0.835, `false` → disabled, else `0 < t ≤ 1`.
pub fn parse_threshold(what: &str, map: &Map<String, Value>) -> SdkResult<Option<f64>> {
    match map.field("auto_compact_threshold") {
        None | Some(Value::Null) => Ok(Some(AUTO_COMPACT_THRESHOLD)),
        Some(Value::Bool(false)) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(t) if t > 0.0 && t <= 1.0 => Ok(Some(t)),
            _ => Err(SdkError::config(format!(
                "{what}: field \"auto_compact_threshold\" must be a number greater than 0 and at most 1, or false, got {v}"
            ))),
        },
    }
}

/// The compaction focus the session JSON gives (`compact_instructions`, unless blank).
pub fn given(given: Option<&str>) -> Option<String> {
    given
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .map(str::to_string)
}

/// The compaction focus of a session in `cwd` without a given one: CLAUDE.md's section.
/// Read when the session's first compaction needs it, not at the session's creation.
pub fn from_claude_md(cwd: &Path) -> Option<String> {
    let claude_md = crate::sdk::project::context::walk_up(
        &crate::sdk::project::context::absolute(cwd),
        "CLAUDE.md",
    );
    compact_instructions_section(&claude_md)
}
