//! The real file system behind [`FsPort`].

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use super::ports::{DirEntryInfo, FileKind, FileMeta, FsPort};

/// `std::fs` as a port (the default). Native: Glob and Grep use ripgrep's parallel walker on it.
#[derive(Debug, Default, Clone, Copy)]
pub struct StdFs;

fn kind_of(ft: fs::FileType) -> FileKind {
    if ft.is_file() {
        FileKind::File
    } else if ft.is_dir() {
        FileKind::Dir
    } else {
        FileKind::Other
    }
}

impl FsPort for StdFs {
    fn metadata(&self, path: &Path) -> io::Result<FileMeta> {
        let m = fs::metadata(path)?;
        Ok(FileMeta {
            kind: kind_of(m.file_type()),
            len: m.len(),
            modified: m.modified().ok(),
        })
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        fs::read(path)
    }

    fn write_atomic(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        write_atomic(path, data)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntryInfo>> {
        let mut out = Vec::new();
        for entry in fs::read_dir(path)? {
            let entry = entry?;
            let kind = match fs::metadata(entry.path()) {
                Ok(m) => kind_of(m.file_type()),
                Err(_) => FileKind::Other,
            };
            out.push(DirEntryInfo {
                name: entry.file_name().to_string_lossy().into_owned(),
                kind,
            });
        }
        Ok(out)
    }

    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        fs::canonicalize(path)
    }

    fn is_native(&self) -> bool {
        true
    }
}

/// Writes `data` to `path` atomically: parents created, a sibling temp file
/// `.<name>.robota-tmp-<pid>-<ms>-<12 hex>` written and synced, the existing file's permission
/// bits copied, then renamed over the target. The temp file is removed on failure.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    if let Ok(m) = fs::metadata(path) {
        if m.is_dir() {
            return Err(io::Error::other(format!(
                "Path is a directory: {}",
                path.display()
            )));
        }
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(parent) = parent {
        fs::create_dir_all(parent)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("Not a file path: {}", path.display()),
            )
        })?;
    let hex: String = (0..12)
        .map(|_| char::from(b"0123456789abcdef"[fastrand::usize(..16)]))
        .collect();
    let tmp_name = format!(
        ".{name}.robota-tmp-{}-{}-{hex}",
        std::process::id(),
        crate::core::util::now_ms()
    );
    let tmp = match parent {
        Some(p) => p.join(tmp_name),
        None => PathBuf::from(tmp_name),
    };
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        drop(f);
        if let Ok(m) = fs::metadata(path) {
            fs::set_permissions(&tmp, m.permissions())?;
        }
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
