//! The one atomic file writer: every file the library replaces (session files, the session
//! index, transcript payloads, the Write and Edit tools' files) goes through [`replace_file`].
//!
//! A new temp file beside the target (`.<name>.<pid>.<n>.tmp`, created exclusively, so no two
//! writers of this or any other process share one), the bytes written, the target's permission
//! bits copied onto it, fsync of the file when durable, rename over the target, fsync of the
//! directory when durable. A crash at any moment leaves either the old or the new file, never a
//! torn one; concurrent writers of one path never mix their bytes (the last rename wins). On
//! failure the temp file is removed and the target is untouched. Missing parent directories are
//! an error (callers that want them create them first).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Temp files of this process get distinct names (with the pid, unique across processes).
static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// [`replace_file`] with `durable == true`: the file and the directory are fsynced, so the new
/// content survives a power loss once this returns.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    replace_file(path, data, true)
}

/// Replaces `path` by a file holding `data`, atomically (see the module). `durable == false`
/// skips both fsyncs (for caches that may be lost, never torn: a crash can leave the old file,
/// the new one or an empty one).
pub fn replace_file(path: &Path, data: &[u8], durable: bool) -> io::Result<()> {
    let Some(name) = path.file_name() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("\"{}\" does not name a file", path.display()),
        ));
    };
    let existing = fs::metadata(path).ok();
    if existing.as_ref().is_some_and(fs::Metadata::is_dir) {
        return Err(io::Error::other(format!(
            "Path is a directory: {}",
            path.display()
        )));
    }
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
    let written = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(data)?;
        if let Some(m) = &existing {
            f.set_permissions(m.permissions())?;
        }
        if durable {
            f.sync_all()?;
        }
        drop(f);
        #[cfg(test)]
        tests::fail_point()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if durable {
        sync_dir(dir)
    } else {
        Ok(())
    }
}

/// Makes a rename inside `dir` durable (a no-op where directories cannot be opened).
fn sync_dir(dir: &Path) -> io::Result<()> {
    if cfg!(unix) {
        File::open(dir)?.sync_all()
    } else {
        Ok(())
    }
}

/// The pid in the name of a temp file [`replace_file`] creates (`.<name>.<pid>.<n>.tmp`).
fn temp_file_pid(file_name: &str) -> Option<u32> {
    let rest = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = rest.rsplitn(3, '.');
    parts.next()?.parse::<u64>().ok()?;
    let pid = parts.next()?.parse().ok()?;
    parts.next().filter(|target| !target.is_empty())?;
    Some(pid)
}

/// True when `file_name` is a temp file of [`replace_file`] whose process is gone (killed
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::ffi::OsString;

    thread_local! {
        /// Set by a test: this thread's next write fails after its temp file was written.
        static FAIL_BEFORE_RENAME: Cell<bool> = const { Cell::new(false) };
    }

    pub(super) fn fail_point() -> io::Result<()> {
        if FAIL_BEFORE_RENAME.with(|f| f.replace(false)) {
            return Err(io::Error::other("injected failure before the rename"));
        }
        Ok(())
    }

    fn names(dir: &Path) -> Vec<OsString> {
        let mut v: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    }

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
    fn replaces_content_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        write_atomic(&p, b"old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        replace_file(&p, b"cache", false).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"cache");
        assert_eq!(names(dir.path()), vec![OsString::from("s.json")]);
    }

    #[test]
    fn a_missing_parent_fails_and_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir/s.json");
        assert!(write_atomic(&missing, b"x").is_err());
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn a_directory_target_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = write_atomic(dir.path(), b"x").unwrap_err();
        assert!(e.to_string().contains("Path is a directory"), "{e}");
        let sub = dir.path().join("d");
        fs::create_dir(&sub).unwrap();
        let e = write_atomic(&sub, b"x").unwrap_err();
        assert!(e.to_string().contains("Path is a directory"), "{e}");
        assert_eq!(names(dir.path()), vec![OsString::from("d")]);
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.sh");
        fs::write(&p, b"old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o751)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o751
        );
    }

    /// The write fails after the temp file was written and synced (injected: a read-only
    /// directory stops nothing for root, as in CI): the old file is intact, the temp file gone.
    #[test]
    fn a_write_failing_before_the_rename_leaves_the_old_file_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        write_atomic(&p, b"old").unwrap();
        for durable in [true, false] {
            FAIL_BEFORE_RENAME.with(|f| f.set(true));
            let e = replace_file(&p, b"new", durable).unwrap_err();
            assert!(e.to_string().contains("injected"), "{e}");
            assert_eq!(fs::read(&p).unwrap(), b"old");
            assert_eq!(names(dir.path()), vec![OsString::from("s.json")]);
        }
    }

    /// A parent that is a file: the write fails and leaves that file and nothing else.
    #[test]
    fn a_file_as_parent_fails_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, b"x").unwrap();
        assert!(write_atomic(&file.join("s.json"), b"new").is_err());
        assert_eq!(fs::read(&file).unwrap(), b"x");
        assert_eq!(names(dir.path()), vec![OsString::from("f")]);
    }

    #[test]
    fn concurrent_writers_never_tear_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        let contents: Vec<Vec<u8>> = (0..8u8).map(|i| vec![b'a' + i; 64 * 1024]).collect();
        write_atomic(&p, &contents[0]).unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            let reader = s.spawn(|| {
                let mut reads = 0u32;
                while !stop.load(Ordering::Relaxed) || reads == 0 {
                    let got = fs::read(&p).unwrap();
                    assert!(contents.contains(&got), "torn file: {} bytes", got.len());
                    reads += 1;
                }
            });
            let writers: Vec<_> = contents
                .iter()
                .map(|c| {
                    let p = &p;
                    s.spawn(move || {
                        for round in 0..20 {
                            replace_file(p, c, round % 2 == 0).unwrap();
                        }
                    })
                })
                .collect();
            for w in writers {
                w.join().unwrap();
            }
            stop.store(true, Ordering::Relaxed);
            reader.join().unwrap();
        });
        assert!(contents.contains(&fs::read(&p).unwrap()));
        assert_eq!(names(dir.path()), vec![OsString::from("s.json")]);
    }
}
