//! A custom in-memory file-system port backing Read / Write / Edit / Glob / Grep, the disabled
//! process port, and canonical paths.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use robota_engine::tools::ports::{DirEntryInfo, FileKind, FileMeta, FsPort};
use robota_engine::tools::{DisabledProcess, ToolEnv, ToolsConfig};
use serde_json::json;
use tools_common::{call, output, tool_in};

use crate::support::tools as tools_common;

/// A file system that lives in a map; directories are implied by file paths.
#[derive(Default)]
struct MemFs {
    files: Mutex<BTreeMap<PathBuf, Vec<u8>>>,
    calls: Mutex<Vec<String>>,
}

impl MemFs {
    fn log(&self, what: &str, p: &Path) {
        self.calls
            .lock()
            .unwrap()
            .push(format!("{what} {}", p.display()));
    }
    fn is_dir(&self, p: &Path) -> bool {
        p == Path::new("/")
            || self
                .files
                .lock()
                .unwrap()
                .keys()
                .any(|k| k.starts_with(p) && k != p)
    }
}

impl FsPort for MemFs {
    fn metadata(&self, path: &Path) -> io::Result<FileMeta> {
        self.log("metadata", path);
        if let Some(data) = self.files.lock().unwrap().get(path) {
            return Ok(FileMeta {
                kind: FileKind::File,
                len: data.len() as u64,
                modified: None,
            });
        }
        if self.is_dir(path) {
            return Ok(FileMeta {
                kind: FileKind::Dir,
                len: 0,
                modified: None,
            });
        }
        Err(io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.log("read", path);
        self.files
            .lock()
            .unwrap()
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
    fn write_atomic(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.log("write", path);
        self.files
            .lock()
            .unwrap()
            .insert(path.to_path_buf(), data.to_vec());
        Ok(())
    }
    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntryInfo>> {
        self.log("read_dir", path);
        let files = self.files.lock().unwrap();
        let mut out: BTreeMap<String, FileKind> = BTreeMap::new();
        for k in files.keys() {
            if let Ok(rest) = k.strip_prefix(path) {
                let mut comps = rest.components();
                if let Some(first) = comps.next() {
                    let kind = if comps.next().is_some() {
                        FileKind::Dir
                    } else {
                        FileKind::File
                    };
                    out.insert(first.as_os_str().to_string_lossy().into_owned(), kind);
                }
            }
        }
        Ok(out
            .into_iter()
            .map(|(name, kind)| DirEntryInfo { name, kind })
            .collect())
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        Ok(path.to_path_buf())
    }
}

fn mem_env(fs: &Arc<MemFs>) -> ToolEnv {
    ToolEnv::with_ports(
        Path::new("/project"),
        fs.clone(),
        Arc::new(DisabledProcess),
        ToolsConfig::default(),
    )
}

#[tokio::test]
async fn custom_fs_port_backs_read_write_edit() {
    let fs = Arc::new(MemFs::default());
    let env = mem_env(&fs);
    let r = call(
        &tool_in("Write", &env),
        json!({"filePath": "src/main.rs", "content": "fn main() {}\n"}),
    )
    .await;
    assert_eq!(output(&r), "Written 13 bytes to src/main.rs");
    assert_eq!(
        fs.files
            .lock()
            .unwrap()
            .get(Path::new("/project/src/main.rs")),
        Some(&b"fn main() {}\n".to_vec())
    );
    let r = call(
        &tool_in("Edit", &env),
        json!({"filePath": "/project/src/main.rs", "oldString": "{}", "newString": "{ run(); }"}),
    )
    .await;
    assert_eq!(
        output(&r),
        "Replaced 1 occurrence(s) in /project/src/main.rs"
    );
    let r = call(&tool_in("Read", &env), json!({"filePath": "src/main.rs"})).await;
    assert_eq!(
        output(&r),
        "[File: src/main.rs (1 lines)]\n1\tfn main() { run(); }"
    );
    let calls = fs.calls.lock().unwrap().clone();
    assert!(
        calls.contains(&"write /project/src/main.rs".to_string()),
        "{calls:?}"
    );
    assert!(
        calls.contains(&"read /project/src/main.rs".to_string()),
        "{calls:?}"
    );
    // Nothing reached the real disk.
    assert!(!Path::new("/project/src/main.rs").exists());
}

#[tokio::test]
async fn custom_fs_port_backs_glob_and_grep_with_gitignore() {
    let fs = Arc::new(MemFs::default());
    {
        let mut files = fs.files.lock().unwrap();
        for (p, c) in [
            ("/project/.gitignore", "dist/\n*.log\n"),
            ("/project/src/a.ts", "export const needle = 1;\n"),
            ("/project/src/b.tsx", "// needle here\n"),
            ("/project/src/c.rs", "needle\n"),
            ("/project/dist/out.ts", "needle\n"),
            ("/project/debug.log", "needle\n"),
            ("/project/node_modules/m/index.ts", "needle\n"),
        ] {
            files.insert(PathBuf::from(p), c.as_bytes().to_vec());
        }
    }
    let env = mem_env(&fs);
    let r = call(&tool_in("Glob", &env), json!({"pattern": "**/*.{ts,tsx}"})).await;
    // No mtimes in this FS: ties keep path order.
    assert_eq!(output(&r), "src/a.ts\nsrc/b.tsx");
    let r = call(
        &tool_in("Grep", &env),
        json!({"pattern": "needle", "outputMode": "content"}),
    )
    .await;
    assert_eq!(
        output(&r),
        "/project/src/a.ts:1:export const needle = 1;\n/project/src/b.tsx:1:// needle here\n/project/src/c.rs:1:needle"
    );
    let r = call(
        &tool_in("Grep", &env),
        json!({"pattern": "needle", "glob": "*.{ts,tsx}"}),
    )
    .await;
    assert_eq!(output(&r), "/project/src/a.ts\n/project/src/b.tsx");
}

#[tokio::test]
async fn disabled_process_port_refuses_bash() {
    let fs = Arc::new(MemFs::default());
    let r = call(
        &tool_in("Bash", &mem_env(&fs)),
        json!({"command": "echo hi"}),
    )
    .await;
    assert_eq!(
        r,
        json!({"success": false, "output": "", "error": "Running processes is disabled by the host"})
    );
}

#[test]
fn canonical_path_resolves_dots_and_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("real/src")).unwrap();
    std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
    let env = ToolEnv::new(&root);
    assert_eq!(
        env.canonical_path("link/src/../src/a.rs"),
        root.join("real/src/a.rs")
    );
    assert_eq!(
        env.canonical_path("./link/new/dir/f.txt"),
        root.join("real/new/dir/f.txt")
    );
    assert_eq!(
        env.canonical_path("/src/../etc/passwd"),
        PathBuf::from("/etc/passwd")
    );
}
