//! Session files on disk (the SessionStore): `<dir>/<id>.json` saved and loaded by id, the one rule for session ids that become file names, and the one
//! atomic writer every session file goes through (temp file in the same directory, write,
//! fsync, rename over the target, fsync the directory), so a crash at any moment leaves either
//! the old or the new file, never a torn one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Longest accepted session id.
pub const MAX_SESSION_ID_LEN: usize = 128;

/// The rule [`check_session_id`] enforces, as error messages state it.
pub const SESSION_ID_RULE: &str =
    "1 to 128 characters from A-Z, a-z, 0-9, '_', '.' and '-', not starting with '.'";

/// Characters of a rejected id quoted in the error message.
const QUOTED_ID_CHARS: usize = 64;

/// Temp files of this process get distinct names (with the pid, unique across processes).
static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

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

/// Writes `data` to `path` atomically: a new temp file beside it (`.<name>.<pid>.<n>.tmp`),
/// write, fsync the file, rename over `path`, fsync the directory. On failure the temp file
/// is removed and `path` is untouched. Concurrent writers of one path never mix their bytes:
/// the last rename wins.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    let Some(name) = path.file_name() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("\"{}\" does not name a file", path.display()),
        ));
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        TEMP_SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let written = write_new_synced(&tmp, data).and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(dir)
}

/// The pid in the name of a temp file [`write_atomic`] creates (`.<name>.<pid>.<n>.tmp`).
fn temp_file_pid(file_name: &str) -> Option<u32> {
    let rest = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = rest.rsplitn(3, '.');
    parts.next()?.parse::<u64>().ok()?;
    let pid = parts.next()?.parse().ok()?;
    parts.next().filter(|target| !target.is_empty())?;
    Some(pid)
}

/// True when `file_name` is a temp file of [`write_atomic`] whose process is gone (killed
/// between writing it and the rename): it is garbage. A live writer's (this process, or
/// any running process with that pid) is never one.
pub fn is_stale_temp_file(file_name: &str) -> bool {
    let Some(pid) = temp_file_pid(file_name) else {
        return false;
    };
    if pid == std::process::id() {
        return false;
    }
    #[cfg(unix)]
    {
        let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        else {
            return false;
        };
        rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
    }
    #[cfg(not(unix))]
    {
        false
    }
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
    fs::read_to_string(&path).map_err(|e| {
        StoreError::NotFound(format!(
            "no saved session \"{id}\" ({}: {e})",
            path.display()
        ))
    })
}

fn write_new_synced(tmp: &Path, data: &[u8]) -> io::Result<()> {
    let mut f = OpenOptions::new().write(true).create_new(true).open(tmp)?;
    f.write_all(data)?;
    f.sync_all()
}

/// Makes a rename inside `dir` durable (a no-op where directories cannot be opened).
fn sync_dir(dir: &Path) -> io::Result<()> {
    if cfg!(unix) {
        File::open(dir)?.sync_all()
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_file_names() {
        assert_eq!(temp_file_pid(".s-1.json.4242.7.tmp"), Some(4242));
        assert_eq!(temp_file_pid(".a.b.json.1.0.tmp"), Some(1));
        assert_eq!(temp_file_pid("s-1.json"), None);
        assert_eq!(temp_file_pid(".s.json.x.0.tmp"), None);
        assert_eq!(temp_file_pid("..1.0.tmp"), None);
        let own = format!(".s.json.{}.0.tmp", std::process::id());
        assert!(!is_stale_temp_file(&own));
    }

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

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        write_atomic(&p, b"old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("s.json")]);
        let missing = dir.path().join("no/such/dir/s.json");
        assert!(write_atomic(&missing, b"x").is_err());
    }
}
