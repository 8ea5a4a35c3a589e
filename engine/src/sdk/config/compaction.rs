//! Session-JSON compaction settings: `auto_compact_threshold` and the default compaction focus
//! (`compact_instructions`, else the "Compact Instructions" section of the CLAUDE.md files
//! from the filesystem root down to `cwd`, joined by a blank line).

use std::path::Path;

use crate::sdk::config::document::ThresholdDocument;
use crate::session::compaction::compact_instructions_section;
use crate::session::AUTO_COMPACT_THRESHOLD;

/// `auto_compact_threshold` (checked by [`super::read`]): absent → 0.835, `false` → disabled.
pub fn threshold(t: Option<ThresholdDocument>) -> Option<f64> {
    match t {
        None => Some(AUTO_COMPACT_THRESHOLD),
        Some(ThresholdDocument::Fraction(t)) => Some(t),
        Some(ThresholdDocument::Off(_)) => None,
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
