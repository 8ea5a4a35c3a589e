//! Read / Write / Edit (ports of Robota's read/write/edit tool tests), the registry, and a
//! custom in-memory file-system port.

use crate::support::tools as tools_common;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use robota_engine::tools::ports::{DirEntryInfo, FileKind, FileMeta, FsPort};
use robota_engine::tools::{
    builtin_tool, builtin_tools, builtin_tools_named, DisabledProcess, ToolEnv, ToolsConfig,
    BUILTIN_TOOL_NAMES,
};
use serde_json::json;
use tools_common::{call, error, output, put, tool, tool_in};

// ---------------------------------------------------------------- Read

#[tokio::test]
async fn read_numbers_lines_with_header() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.txt", "alpha\nbeta\ngamma\n");
    let p = dir.path().join("a.txt").to_string_lossy().into_owned();
    let r = call(&tool("Read", dir.path()), json!({ "filePath": p })).await;
    assert_eq!(r["success"], true);
    assert_eq!(
        output(&r),
        format!("[File: {p} (3 lines)]\n1\talpha\n2\tbeta\n3\tgamma")
    );
    assert!(r.get("error").is_none());
}

#[tokio::test]
async fn read_offset_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=12).map(|i| format!("line{i}\n")).collect();
    put(dir.path(), "f.txt", &body);
    let t = tool("Read", dir.path());
    let r = call(&t, json!({"filePath": "f.txt", "offset": 9, "limit": 2})).await;
    assert_eq!(
        output(&r),
        "[File: f.txt (lines 9-10 of 12)]\n 9\tline9\n10\tline10"
    );
    // offset <= 0 means 1
    let r = call(&t, json!({"filePath": "f.txt", "offset": 0, "limit": 1})).await;
    assert_eq!(output(&r), "[File: f.txt (lines 1-1 of 12)]\n1\tline1");
}

#[tokio::test]
async fn read_default_limit_is_2000_lines() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    put(dir.path(), "big.txt", &body);
    let r = call(&tool("Read", dir.path()), json!({"filePath": "big.txt"})).await;
    let out = output(&r);
    assert!(out.starts_with("[File: big.txt (lines 1-2000 of 2500)]\n   1\t1\n"));
    assert!(out.ends_with("\n2000\t2000"));
}

#[tokio::test]
async fn read_empty_binary_directory_missing_and_past_end() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "empty.txt", "");
    put(dir.path(), "one.txt", "only\n");
    std::fs::write(dir.path().join("bin.dat"), [0x50u8, 0x4b, 0x00, 0x01]).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let t = tool("Read", dir.path());

    let r = call(&t, json!({"filePath": "empty.txt"})).await;
    assert_eq!(r["success"], true);
    assert_eq!(output(&r), "[File: empty.txt (0 lines)]\n");

    let r = call(&t, json!({"filePath": "one.txt", "offset": 100})).await;
    assert_eq!(r["success"], true);
    assert_eq!(output(&r), "[File: one.txt (lines 100-99 of 1)]\n");

    let r = call(&t, json!({"filePath": "bin.dat"})).await;
    assert_eq!(r["success"], false);
    assert_eq!(error(&r), "Binary file not supported: bin.dat");
    assert_eq!(output(&r), "");

    let r = call(&t, json!({"filePath": "sub"})).await;
    assert_eq!(error(&r), "Path is not a file: sub");

    let r = call(&t, json!({"filePath": "nope.txt"})).await;
    assert_eq!(error(&r), "File not found: nope.txt");
}

#[tokio::test]
async fn read_keeps_carriage_returns_and_multibyte() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "crlf.txt", "a\r\n한글 😀\r\n");
    let r = call(&tool("Read", dir.path()), json!({"filePath": "crlf.txt"})).await;
    assert_eq!(
        output(&r),
        "[File: crlf.txt (2 lines)]\n1\ta\r\n2\t한글 😀\r"
    );
}

#[tokio::test]
async fn read_validates_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool("Read", dir.path());
    let r = call(&t, json!({})).await;
    assert_eq!(r["success"], false);
    assert_eq!(
        error(&r),
        "Validation Error: Invalid parameters for tool \"Read\": Missing required parameter: filePath"
    );
    let r = call(&t, json!({"filePath": 5})).await;
    assert_eq!(
        error(&r),
        "Validation Error: Invalid parameters for tool \"Read\": Parameter \"filePath\" must be a string, got number"
    );
}

// ---------------------------------------------------------------- Write

#[tokio::test]
async fn write_creates_parents_and_counts_utf8_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool("Write", dir.path());
    let r = call(&t, json!({"filePath": "a/b/c.txt", "content": "hello"})).await;
    assert_eq!(r["success"], true);
    assert_eq!(output(&r), "Written 5 bytes to a/b/c.txt");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
        "hello"
    );
    let r = call(&t, json!({"filePath": "k.txt", "content": "한글 😀"})).await;
    assert_eq!(output(&r), "Written 11 bytes to k.txt");
    let r = call(&t, json!({"filePath": "e.txt", "content": ""})).await;
    assert_eq!(output(&r), "Written 0 bytes to e.txt");
    assert_eq!(std::fs::read(dir.path().join("e.txt")).unwrap(), b"");
}

#[tokio::test]
async fn write_overwrites_atomically_keeping_mode_and_leaves_no_temp_files() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "run.sh", "old");
    let p = dir.path().join("run.sh");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o751)).unwrap();
    let r = call(
        &tool("Write", dir.path()),
        json!({"filePath": p.to_string_lossy(), "content": "#!/bin/sh\n"}),
    )
    .await;
    assert_eq!(r["success"], true);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "#!/bin/sh\n");
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777,
        0o751
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["run.sh".to_string()]);
}

#[tokio::test]
async fn write_to_directory_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let r = call(
        &tool("Write", dir.path()),
        json!({"filePath": "d", "content": "x"}),
    )
    .await;
    assert_eq!(r["success"], false);
    assert_eq!(output(&r), "");
    assert_eq!(error(&r), "Path is a directory: d");
}

// ---------------------------------------------------------------- Edit

async fn edit(dir: &Path, args: serde_json::Value) -> serde_json::Value {
    call(&tool("Edit", dir), args).await
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap()
}

#[tokio::test]
async fn edit_replaces_unique_string_with_start_line() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "f.ts",
        "const a = 1;\nconst b = 2;\nconst c = 3;\n",
    );
    let r = edit(
        dir.path(),
        json!({"filePath": "f.ts", "oldString": "const b = 2;", "newString": "const b = 20;"}),
    )
    .await;
    assert_eq!(
        r,
        json!({"success": true, "output": "Replaced 1 occurrence(s) in f.ts", "startLine": 2})
    );
    assert_eq!(
        read(dir.path(), "f.ts"),
        "const a = 1;\nconst b = 20;\nconst c = 3;\n"
    );
}

#[tokio::test]
async fn edit_refuses_non_unique_and_replace_all_counts() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "f.txt", "x foo y foo z foo\n");
    let r = edit(
        dir.path(),
        json!({"filePath": "f.txt", "oldString": "foo", "newString": "bar"}),
    )
    .await;
    assert_eq!(r["success"], false);
    assert_eq!(
        error(&r),
        "oldString is not unique in file (found 3 occurrences). Provide more context to make it unique, or use replaceAll:true."
    );
    assert_eq!(read(dir.path(), "f.txt"), "x foo y foo z foo\n");
    let r = edit(
        dir.path(),
        json!({"filePath": "f.txt", "oldString": "foo", "newString": "bar", "replaceAll": true}),
    )
    .await;
    assert_eq!(output(&r), "Replaced 3 occurrence(s) in f.txt");
    assert_eq!(r["startLine"], 1);
    assert_eq!(read(dir.path(), "f.txt"), "x bar y bar z bar\n");
    // Non-overlapping count: "aaaa" contains "aa" twice.
    put(dir.path(), "o.txt", "aaaa");
    let r = edit(
        dir.path(),
        json!({"filePath": "o.txt", "oldString": "aa", "newString": "b", "replaceAll": true}),
    )
    .await;
    assert_eq!(output(&r), "Replaced 2 occurrence(s) in o.txt");
    assert_eq!(read(dir.path(), "o.txt"), "bb");
}

#[tokio::test]
async fn edit_not_found_and_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "f.txt", "abc");
    let r = edit(
        dir.path(),
        json!({"filePath": "f.txt", "oldString": "zzz", "newString": "y"}),
    )
    .await;
    assert_eq!(error(&r), "oldString not found in file: f.txt");
    let r = edit(
        dir.path(),
        json!({"filePath": "none.txt", "oldString": "a", "newString": "b"}),
    )
    .await;
    assert_eq!(error(&r), "File not found: none.txt");
    let r = edit(
        dir.path(),
        json!({"filePath": "f.txt", "oldString": "", "newString": "b"}),
    )
    .await;
    assert_eq!(
        error(&r),
        "oldString must not be empty (use Write to create or replace a whole file)"
    );
}

#[tokio::test]
async fn edit_preserves_crlf_emoji_korean_and_handles_deletion() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "w.txt", "line1\r\nline2\r\nline3\r\n");
    let r = edit(
        dir.path(),
        json!({"filePath": "w.txt", "oldString": "line2\r\n", "newString": "LINE2\r\n"}),
    )
    .await;
    assert_eq!(r["startLine"], 2);
    assert_eq!(read(dir.path(), "w.txt"), "line1\r\nLINE2\r\nline3\r\n");

    put(dir.path(), "u.txt", "안녕하세요 😀 world\n두번째 줄\n");
    let r = edit(
        dir.path(),
        json!({"filePath": "u.txt", "oldString": "😀", "newString": "🎉🎉"}),
    )
    .await;
    assert_eq!(r["success"], true);
    let r = edit(
        dir.path(),
        json!({"filePath": "u.txt", "oldString": "두번째", "newString": "세번째"}),
    )
    .await;
    assert_eq!(r["startLine"], 2);
    assert_eq!(
        read(dir.path(), "u.txt"),
        "안녕하세요 🎉🎉 world\n세번째 줄\n"
    );

    // Deletion.
    let r = edit(
        dir.path(),
        json!({"filePath": "u.txt", "oldString": " world", "newString": ""}),
    )
    .await;
    assert_eq!(r["success"], true);
    assert_eq!(read(dir.path(), "u.txt"), "안녕하세요 🎉🎉\n세번째 줄\n");
}

#[tokio::test]
async fn edit_treats_regex_metacharacters_literally() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "r.txt", "a.*b(c)[d]$1 and axxb\n");
    let r = edit(
        dir.path(),
        json!({"filePath": "r.txt", "oldString": "a.*b(c)[d]$1", "newString": "$& \\1"}),
    )
    .await;
    assert_eq!(output(&r), "Replaced 1 occurrence(s) in r.txt");
    assert_eq!(read(dir.path(), "r.txt"), "$& \\1 and axxb\n");
}

// ---------------------------------------------------------------- Registry

#[test]
fn registry_lists_the_eight_in_reference_order() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = builtin_tools(dir.path())
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(names, BUILTIN_TOOL_NAMES.to_vec());
    assert!(builtin_tool("Nope", dir.path()).is_none());
    let env = ToolEnv::new(dir.path());
    let err = builtin_tools_named(&["Read", "Nope"], &env).err().unwrap();
    assert_eq!(
        err,
        "Unknown built-in tool: Nope (available: Bash, Read, Write, Edit, Glob, Grep, WebFetch, WebSearch)"
    );
}

#[test]
fn registry_schemas_use_camel_case_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let props = |name: &str| -> Vec<String> {
        let t = builtin_tool(name, dir.path()).unwrap();
        let mut keys: Vec<String> = t.parameters()["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(props("Bash"), ["command", "timeout", "workingDirectory"]);
    assert_eq!(props("Read"), ["filePath", "limit", "offset"]);
    assert_eq!(props("Write"), ["content", "filePath"]);
    assert_eq!(
        props("Edit"),
        ["filePath", "newString", "oldString", "replaceAll"]
    );
    assert_eq!(props("Glob"), ["limit", "path", "pattern"]);
    assert_eq!(
        props("Grep"),
        [
            "caseInsensitive",
            "contextLines",
            "glob",
            "outputMode",
            "path",
            "pattern"
        ]
    );
    assert_eq!(props("WebFetch"), ["headers", "url"]);
    assert_eq!(props("WebSearch"), ["limit", "query"]);
    let read_only: Vec<bool> = builtin_tools(dir.path())
        .iter()
        .map(|t| t.read_only())
        .collect();
    assert_eq!(
        read_only,
        [false, true, false, false, true, true, true, true]
    );
}

// ---------------------------------------------------------------- Custom FS port

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
