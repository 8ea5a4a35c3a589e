//! Read and Write (ports of Robota's read/write tool tests).

use serde_json::json;
use tools_common::{call, error, output, put, tool};

use crate::support::tools as tools_common;

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
