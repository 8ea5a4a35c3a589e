//! The real file system behind [`FsPort`].

use std::fs;
use std::io;
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

    /// Parent directories are created, then [`crate::core::atomic_file::write_atomic`].
    fn write_atomic(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                fs::create_dir_all(parent)?;
            }
        }
        crate::core::atomic_file::write_atomic(path, data)
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
