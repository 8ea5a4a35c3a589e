//! Edit (ports of Robota's edit tool tests): unique replacement, replace-all, missing text and
//! files, line ends and multibyte text, regex metacharacters taken literally.

use std::path::Path;

use serde_json::json;
use tools_common::{call, error, output, put, tool};

use crate::support::tools as tools_common;

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
