//! The session document's `transcript` field (the writer is [`crate::sdk::events::transcript`]).

use std::path::{Path, PathBuf};

use super::document::TranscriptDocument;

/// `transcript` (checked by [`super::read`]): absent/`false` → none, `true` →
/// `<cwd>/.robota/logs`, a directory → that directory (relative to `cwd`).
pub fn parse(t: Option<&TranscriptDocument>, cwd: &str) -> Option<PathBuf> {
    match t? {
        TranscriptDocument::On(false) => None,
        TranscriptDocument::On(true) => Some(Path::new(cwd).join(".robota").join("logs")),
        TranscriptDocument::Dir(d) => Some(Path::new(cwd).join(d)),
    }
}
