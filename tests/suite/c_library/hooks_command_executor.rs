//! Command executor (port of hooks/__tests__/command-executor.test.ts + more): stdin JSON, cwd,
//! env overlay, `$ENV:` secrets, exit codes, timeouts that kill the whole process group.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use robota_engine::core::env_ref::EnvVars;
use robota_engine::core::hooks::{
    CommandExecutor, HookDefinition, HookExecutor, HookResult, DEFAULT_COMMAND_TIMEOUT,
    HOOK_TIMED_OUT,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::support::process::alive;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn run(exec: &CommandExecutor, def: HookDefinition, input: Value) -> HookResult {
    rt().block_on(exec.execute(&def, &input, CancellationToken::new()))
}

fn wait_until(mut f: impl FnMut() -> bool) -> bool {
    for _ in 0..300 {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

fn read_pid(path: &Path) -> String {
    assert!(wait_until(
        || std::fs::read_to_string(path).is_ok_and(|s| !s.trim().is_empty())
    ));
    std::fs::read_to_string(path).unwrap().trim().to_string()
}

#[test]
fn default_timeout_is_10_seconds() {
    assert_eq!(DEFAULT_COMMAND_TIMEOUT, Duration::from_secs(10));
    assert_eq!(HOOK_TIMED_OUT, "Hook timed out");
    // A hook slower than a second but well under 10 s completes with the default.
    let r = run(
        &CommandExecutor::new(),
        HookDefinition::command("sleep 1.2; echo done"),
        json!({}),
    );
    assert_eq!(r, HookResult::new(0, "done\n", ""));
}

#[test]
fn stdin_receives_the_input_json() {
    let input = json!({"session_id":"s1","cwd":"/","hook_event_name":"PreToolUse",
        "tool_name":"Bash","tool_input":{"command":"ls -la"}});
    let r = run(
        &CommandExecutor::new(),
        HookDefinition::command("cat"),
        input.clone(),
    );
    assert_eq!(r.exit_code, 0);
    let echoed: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(echoed, input);
}

#[test]
fn hook_that_ignores_stdin_is_fine() {
    let big = "x".repeat(1_000_000);
    let r = run(
        &CommandExecutor::new(),
        HookDefinition::command("exit 0"),
        json!({"big": big}),
    );
    assert_eq!(r, HookResult::new(0, "", ""));
}

#[test]
fn cwd_comes_from_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::canonicalize(dir.path()).unwrap();
    let r = run(
        &CommandExecutor::new(),
        HookDefinition::command("pwd -P"),
        json!({"cwd": dir.path().to_string_lossy()}),
    );
    assert_eq!(r.stdout.trim(), real.to_string_lossy());
}

#[test]
fn exit_codes_and_streams_are_reported() {
    let r = run(
        &CommandExecutor::new(),
        HookDefinition::command("echo out; echo err >&2; exit 2"),
        json!({}),
    );
    assert_eq!(r, HookResult::new(2, "out\n", "err\n"));
    let r = run(
        &CommandExecutor::new(),
        HookDefinition::command("exit 7"),
        json!({}),
    );
    assert_eq!(r.exit_code, 7);
    // Killed by a signal: no exit code → 1.
    let r = run(
        &CommandExecutor::new(),
        HookDefinition::command("kill -9 $$"),
        json!({}),
    );
    assert_eq!(r.exit_code, 1);
}

#[test]
fn env_overlay_order_is_process_then_base_then_input() {
    // The process environment is inherited (PATH), the base env overrides it (HOME), the
    // input's env overrides the base (BOTH). Nothing here mutates the test's environment.
    let base: BTreeMap<String, String> = [
        ("BASE_ONLY".to_string(), "base".to_string()),
        ("BOTH".to_string(), "base".to_string()),
        ("HOME".to_string(), "/base/home".to_string()),
    ]
    .into_iter()
    .collect();
    let exec = CommandExecutor::new().with_env(base);
    let r = run(
        &exec,
        HookDefinition::command("echo \"${PATH:+inherited} $BASE_ONLY $BOTH $N $HOME\""),
        json!({"env":{"BOTH":"input","N":5}}),
    );
    assert_eq!(r.stdout, "inherited base input 5 /base/home\n");
}

#[test]
fn env_secrets_resolve_for_the_process_but_never_echo() {
    let vars = EnvVars::with_vars(BTreeMap::from([(
        "ROBOTA_HOOK_TEST_SECRET".to_string(),
        "s3cr3t-value-123".to_string(),
    )]));
    let dir = tempfile::tempdir().unwrap();
    let stdin_file = dir.path().join("stdin.json");
    let r = run(
        &CommandExecutor::new().with_vars(vars),
        HookDefinition::command(format!(
            "cat > {}; test \"$TOKEN\" = s3cr3t-value-123 && echo \"token=$TOKEN\"; echo \"$TOKEN\" >&2",
            stdin_file.display()
        )),
        json!({"env":{"TOKEN":"$ENV:ROBOTA_HOOK_TEST_SECRET"}}),
    );
    assert_eq!(r.exit_code, 0);
    assert_eq!(r.stdout, "token=[REDACTED]\n");
    assert_eq!(r.stderr, "[REDACTED]\n");
    let stdin = std::fs::read_to_string(&stdin_file).unwrap();
    assert!(stdin.contains("$ENV:ROBOTA_HOOK_TEST_SECRET"));
    assert!(!stdin.contains("s3cr3t-value-123"));
}

#[test]
fn per_hook_timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    let def = HookDefinition::command(format!(
        "sleep 300 & echo $! > {}; wait",
        pid_file.display()
    ))
    .with("timeout", json!(2));
    let r = run(&CommandExecutor::new(), def, json!({}));
    assert_eq!(r, HookResult::new(1, "", "Hook timed out"));
    let child = read_pid(&pid_file);
    assert!(
        wait_until(|| !alive(&child)),
        "background child {child} survived the timeout"
    );
}

#[test]
fn executor_default_timeout_is_configurable() {
    let exec = CommandExecutor::new().with_default_timeout(Duration::from_millis(300));
    let r = run(&exec, HookDefinition::command("sleep 60"), json!({}));
    assert_eq!(r, HookResult::new(1, "", "Hook timed out"));
}

#[test]
fn a_hook_timeout_reaches_the_library_log() {
    use robota_engine::core::log::{set_sink, LogSink, WARN};
    use std::sync::{Arc, Mutex};
    // The log sink is process-wide: keep only this target's lines, other tests may log too.
    let _sink = crate::support::log::sink_lock();
    let lines = Arc::new(Mutex::new(Vec::<(i32, String)>::new()));
    let l2 = lines.clone();
    let sink: LogSink = Arc::new(move |level: i32, target: &str, msg: &str| {
        if target == "robota::hooks" && msg.contains("250 ms") {
            l2.lock().unwrap().push((level, msg.to_string()));
        }
    });
    set_sink(Some(sink), WARN);
    let exec = CommandExecutor::new().with_default_timeout(Duration::from_millis(250));
    let r = run(&exec, HookDefinition::command("sleep 60"), json!({}));
    set_sink(None, WARN);
    assert_eq!(r, HookResult::new(1, "", "Hook timed out"));
    assert_eq!(
        *lines.lock().unwrap(),
        vec![(
            WARN,
            "command hook timed out after 250 ms; its process group was killed".to_string()
        )]
    );
}

#[test]
fn cancellation_kills_the_hook() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    let def = HookDefinition::command(format!(
        "sleep 300 & echo $! > {}; wait",
        pid_file.display()
    ));
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    let pf = pid_file.clone();
    std::thread::spawn(move || {
        let _ = read_pid(&pf);
        c2.cancel();
    });
    let r = rt().block_on(CommandExecutor::new().execute(&def, &json!({}), cancel));
    assert_eq!(r, HookResult::new(1, "", "Hook cancelled"));
    let child = read_pid(&pid_file);
    assert!(wait_until(|| !alive(&child)));
}

#[test]
fn background_child_holding_stdout_does_not_hang_the_hook() {
    let r = run(
        &CommandExecutor::new(),
        HookDefinition::command("sleep 300 & echo ok"),
        json!({}),
    );
    assert_eq!(r.exit_code, 0);
    assert_eq!(r.stdout, "ok\n");
}

#[test]
fn bad_definitions_and_spawn_errors_are_exit_1_with_a_message() {
    let exec = CommandExecutor::new();
    let r = run(&exec, HookDefinition::new("command"), json!({}));
    assert_eq!(
        r,
        HookResult::new(1, "", "command hook is missing a \"command\" string")
    );
    let r = run(
        &exec,
        HookDefinition::command("true").with("timeout", json!("soon")),
        json!({}),
    );
    assert_eq!(
        r.stderr,
        "hook \"timeout\" must be a positive number of seconds, got \"soon\""
    );
    let r = run(
        &exec,
        HookDefinition::command("true"),
        json!({"cwd":"/definitely/not/here"}),
    );
    assert_eq!(r.exit_code, 1);
    assert!(
        r.stderr.starts_with("Failed to start hook command: "),
        "{}",
        r.stderr
    );
}
