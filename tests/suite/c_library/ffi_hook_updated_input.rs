//! A PreToolUse `command` hook rewriting a tool's input through the C ABI
//! (`hookSpecificOutput.updatedInput`): the tool runs with the rewritten input, `tool_start`
//! shows it, the model's own call stays as it made it, and an input that is not an object blocks
//! the call with an error naming the hook.

use std::path::Path;

use robota::ffi::{robota_runtime_free, robota_session_free};
use serde_json::{json, Value};

use crate::support_ffi::{events_until, messages, runtime, session_new, submit};

/// A session whose model reads `a` once (then says "done"), with a PreToolUse hook printing
/// `hook_stdout`.
fn run_read_with_hook(dir: &Path, hook_stdout: &str) -> (Vec<Value>, Value) {
    let a = dir.join("a.txt");
    std::fs::write(&a, "alpha\n").unwrap();
    std::fs::write(dir.join("b.txt"), "beta\n").unwrap();
    let script = dir.join("hook.sh");
    std::fs::write(
        &script,
        format!("cat > /dev/null\nprintf '%s' '{hook_stdout}'\n"),
    )
    .unwrap();
    let rt = runtime(
        &json!({"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"tool_calls":[{"id":"call_0","name":"Read","arguments":{"filePath": a}}]},
            {"text":"done"}]}}})
        .to_string(),
    );
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","delivery":"pull","cwd": dir,"tools":["Read"],
                "hooks":{"PreToolUse":[{"matcher":"Read","hooks":[
                    {"type":"command","command": format!("sh {}", script.display())}]}]}})
        .to_string(),
    )
    .unwrap();
    submit(s, "read a");
    let events = events_until(s, "turn_completed");
    let msgs = messages(s);
    robota_session_free(s);
    robota_runtime_free(rt);
    (events, msgs)
}

fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

#[test]
fn a_command_hook_rewrites_the_input_the_tool_runs_with() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b.txt").display().to_string();
    let a = dir.path().join("a.txt").display().to_string();
    let out =
        json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"filePath": b}}});
    let (events, msgs) = run_read_with_hook(dir.path(), &out.to_string());
    let start = of_type(&events, "tool_start");
    assert_eq!(start.len(), 1);
    assert_eq!(start[0]["arguments"], json!({"filePath": b}));
    assert_eq!(start[0]["first_arg"], json!(b));
    let end = of_type(&events, "tool_end");
    assert_eq!(end[0]["result"], "success");
    let expected = json!({"success":true,"output": format!("[File: {b} (1 lines)]\n1\tbeta")});
    assert_eq!(
        serde_json::from_str::<Value>(end[0]["output"].as_str().unwrap()).unwrap(),
        expected
    );
    // The model's call is recorded as the model made it; its result is the rewritten call's.
    let m = msgs["messages"].as_array().unwrap();
    assert_eq!(
        m[1]["toolCalls"][0]["function"]["arguments"],
        json!({"filePath": a}).to_string()
    );
    assert_eq!(m[2]["role"], "tool");
    assert_eq!(m[2]["content"], expected.to_string());
}

#[test]
fn an_updated_input_that_is_not_an_object_blocks_the_call_naming_the_hook() {
    let dir = tempfile::tempdir().unwrap();
    let out = r#"{"hookSpecificOutput":{"updatedInput":["b.txt"]}}"#;
    let (events, _) = run_read_with_hook(dir.path(), out);
    let end = of_type(&events, "tool_end");
    assert_eq!(end[0]["result"], "denied");
    let command = format!("sh {}", dir.path().join("hook.sh").display());
    let expected = json!({"success": false, "output": "", "error": format!(
        "Blocked by hook: PreToolUse hook \"{command}\" returned an invalid updatedInput: it must be a JSON object, not an array")});
    assert_eq!(
        serde_json::from_str::<Value>(end[0]["output"].as_str().unwrap()).unwrap(),
        expected
    );
    // The start shows the model's input: nothing was rewritten.
    let start = of_type(&events, "tool_start");
    assert_eq!(
        start[0]["arguments"]["filePath"],
        json!(dir.path().join("a.txt"))
    );
}
