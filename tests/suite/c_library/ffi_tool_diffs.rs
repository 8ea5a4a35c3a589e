//! Edit and Write diffs through the C ABI: a successful call's `tool_end` carries `diff_file`
//! and `diff_lines` (changed lines only; a new file is all additions), a failed one neither.

use robota::ffi::{robota_runtime_free, robota_session_free};
use serde_json::{json, Value};

use std::ptr::null_mut;

use robota::ffi::{robota_session_messages, robota_string_free, ROBOTA_OK};

use crate::support_ffi::{c, events_until, runtime, session_new, submit};

/// The session's UI timeline (`"view":"history"`).
fn history(s: *mut robota::ffi::robota_session) -> Value {
    let mut out = null_mut();
    let q = c(r#"{"view":"history"}"#);
    let st = robota_session_messages(s, q.as_ptr(), &mut out, &mut null_mut());
    assert_eq!(st, ROBOTA_OK);
    // SAFETY: the library wrote a NUL-terminated string it owns; freed right after.
    let text = unsafe { std::ffi::CStr::from_ptr(out) }
        .to_string_lossy()
        .into_owned();
    robota_string_free(out);
    serde_json::from_str(&text).unwrap()
}

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"tool_calls":[{"id": id, "name": name, "arguments": args}]})
}

fn line(kind: &str, content: &str, n: u64) -> Value {
    json!({"type": kind, "content": content, "lineNumber": n})
}

#[test]
fn edit_and_write_report_their_exact_diffs() {
    let dir = tempfile::tempdir().unwrap();
    let turns = json!([
        call("w1", "Write", json!({"filePath": "new.txt", "content": "a\nb\n"})),
        call("e1", "Edit", json!({"filePath": "new.txt", "oldString": "b", "newString": "B\nc"})),
        call("w2", "Write", json!({"filePath": "new.txt", "content": "a\nB\n"})),
        call("e2", "Edit", json!({"filePath": "new.txt", "oldString": "zzz", "newString": "y"})),
        {"text": "done"}
    ]);
    let rt =
        runtime(&json!({"v":1,"providers":{"s":{"kind":"scripted","turns": turns}}}).to_string());
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","delivery":"pull","cwd": dir.path(),
                "tools":["Write","Edit"],"permission_mode":"bypassPermissions"})
        .to_string(),
    )
    .unwrap();
    submit(s, "go");
    let events = events_until(s, "turn_completed");
    let history = history(s);
    robota_session_free(s);
    robota_runtime_free(rt);
    let ends: Vec<&Value> = events.iter().filter(|e| e["type"] == "tool_end").collect();
    assert_eq!(ends.len(), 4);
    let diff = |e: &Value| (e["diff_file"].clone(), e["diff_lines"].clone());
    assert_eq!(
        diff(ends[0]),
        (
            json!("new.txt"),
            json!([line("add", "a", 1), line("add", "b", 2)])
        )
    );
    assert_eq!(
        diff(ends[1]),
        (
            json!("new.txt"),
            json!([
                line("remove", "b", 2),
                line("add", "B", 2),
                line("add", "c", 3)
            ])
        )
    );
    assert_eq!(
        diff(ends[2]),
        (json!("new.txt"), json!([line("remove", "c", 3)]))
    );
    // A built-in tool's failure is a result document the model reads; it changed nothing.
    assert_eq!(
        ends[3]["output"],
        json!({"success": false, "output": "", "error": "oldString not found in file: new.txt"})
            .to_string()
    );
    assert!(ends[3].get("diff_file").is_none() && ends[3].get("diff_lines").is_none());
    // The timeline's tool-end entries carry the same diffs under the tool state's names.
    let tool_ends: Vec<&Value> = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "tool-end")
        .collect();
    assert_eq!(tool_ends.len(), 4);
    assert_eq!(tool_ends[1]["data"]["diffFile"], "new.txt");
    assert_eq!(tool_ends[1]["data"]["diffLines"], ends[1]["diff_lines"]);
    assert!(tool_ends[3]["data"].get("diffLines").is_none());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.txt")).unwrap(),
        "a\nB\n"
    );
}
