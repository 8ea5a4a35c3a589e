//! Session files on disk (the SessionStore): `<dir>/<id>.json` saved and loaded by id and the
//! one rule for session ids that become file names. Every session file is written by the one
//! atomic writer, [`crate::core::atomic_file`] (durable: a crash at any moment leaves either the
//! old or the new file, never a torn one).
//!
//! This folder holds the session files themselves (here), [`list`] (listing and deleting
//! them) and [`index`] (the listing's cache of what it read, `.robota-index.jsonl`).

pub mod index;
pub mod list;

use std::fs;
use std::path::{Path, PathBuf};

use crate::core::atomic_file::write_atomic;

/// Longest accepted session id.
pub const MAX_SESSION_ID_LEN: usize = 128;

/// The rule [`check_session_id`] enforces, as error messages state it.
pub const SESSION_ID_RULE: &str =
    "1 to 128 characters from A-Z, a-z, 0-9, '_', '.' and '-', not starting with '.'";

/// Characters of a rejected id quoted in the error message.
const QUOTED_ID_CHARS: usize = 64;

/// Checks that `id` can name a file inside a session directory: [`SESSION_ID_RULE`]. The error
/// names the id (shortened when long) and the rule.
pub fn check_session_id(id: &str) -> Result<(), String> {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    let ok = !id.is_empty()
        && id.len() <= MAX_SESSION_ID_LEN
        && !id.starts_with('.')
        && id.bytes().all(allowed);
    if ok {
        return Ok(());
    }
    let n = id.chars().count();
    let shown: String = if n > QUOTED_ID_CHARS {
        let head: String = id.chars().take(QUOTED_ID_CHARS).collect();
        format!("{head:?}… ({n} characters)")
    } else {
        format!("{id:?}")
    };
    Err(format!(
        "invalid session_id {shown}: a session id is {SESSION_ID_RULE}"
    ))
}

/// `<dir>/<id>.json`, after [`check_session_id`] (so the path never leaves `dir`).
pub fn session_file_path(dir: &Path, id: &str) -> Result<PathBuf, String> {
    check_session_id(id)?;
    Ok(dir.join(format!("{id}.json")))
}

/// A failed [`save`] or [`load`]; the message names the id or the path and the cause.
#[derive(Debug, Clone, PartialEq)]
pub enum StoreError {
    /// The id breaks [`SESSION_ID_RULE`] (it would otherwise escape the directory).
    InvalidId(String),
    /// No saved session with that id (or it cannot be read).
    NotFound(String),
    /// The directory or the file cannot be written.
    Io(String),
    /// The saved file is not text (not UTF-8), so not JSON.
    NotJson(String),
}

/// Saves `text` as `<dir>/<id>.json`, creating `dir` when missing, through [`write_atomic`].
pub fn save(dir: &Path, id: &str, text: &str) -> Result<(), StoreError> {
    let path = session_file_path(dir, id).map_err(StoreError::InvalidId)?;
    fs::create_dir_all(dir)
        .map_err(|e| StoreError::Io(format!("cannot create \"{}\": {e}", dir.display())))?;
    write_atomic(&path, text.as_bytes())
        .map_err(|e| StoreError::Io(format!("cannot write \"{}\": {e}", path.display())))
}

/// Loads the text of `<dir>/<id>.json`.
pub fn load(dir: &Path, id: &str) -> Result<String, StoreError> {
    let path = session_file_path(dir, id).map_err(StoreError::InvalidId)?;
    let bytes = fs::read(&path).map_err(|e| {
        StoreError::NotFound(format!(
            "no saved session \"{id}\" ({}: {e})",
            path.display()
        ))
    })?;
    String::from_utf8(bytes).map_err(|e| {
        StoreError::NotJson(format!(
            "saved session is not valid JSON: {} is not UTF-8 text ({e})",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_rule() {
        for ok in ["a", "sess-1", "A_b.c-9", "x..y", &"z".repeat(128)] {
            assert_eq!(check_session_id(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            ".hidden",
            "../x",
            "/abs",
            "a/b",
            "a\\b",
            "é",
            "a b",
            &"z".repeat(129),
        ] {
            let e = check_session_id(bad).unwrap_err();
            assert!(e.contains(SESSION_ID_RULE), "{e}");
        }
        let e = check_session_id(&"/".repeat(200)).unwrap_err();
        assert!(e.contains("(200 characters)"), "{e}");
    }
}
