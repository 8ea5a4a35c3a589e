//! Bash (ports of Robota's bash tool tests) on the real process port: output capture, exit codes,
//! timeouts and cancellation that kill the whole process group, truncation, env.

use crate::support::process::alive;
use crate::support::tools as tools_common;

use std::path::Path;
use std::time::Duration;

use robota_engine::core::tool::ToolContext;
use robota_engine::core::truncation::MAX_TOOL_OUTPUT_CHARS;
use robota_engine::tools::ports::{ProcessPort, ShellEnd, ShellRequest};
use robota_engine::tools::{builtin_tools_with, TokioProcess, ToolsConfig};
use serde_json::json;
use tools_common::{call, call_ctx, error, output, tool};

#[tokio::test]
async fn bash_captures_stdout_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let r = call(&tool("Bash", dir.path()), json!({"command": "echo hello"})).await;
    assert_eq!(
        r,
        json!({"success": true, "output": "hello\n", "exitCode": 0})
    );
}

#[tokio::test]
async fn bash_appends_stderr_section() {
    let dir = tempfile::tempdir().unwrap();
    let r = call(
        &tool("Bash", dir.path()),
        json!({"command": "echo out; echo err >&2"}),
    )
    .await;
    assert_eq!(output(&r), "out\n\nstderr:\nerr\n");
    let r = call(
        &tool("Bash", dir.path()),
        json!({"command": "echo only-err >&2"}),
    )
    .await;
    assert_eq!(output(&r), "\nstderr:\nonly-err\n");
}

#[tokio::test]
async fn bash_non_zero_exit_is_success_with_code() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool("Bash", dir.path());
    let r = call(&t, json!({"command": "echo partial; exit 3"})).await;
    assert_eq!(
        r,
        json!({"success": true, "output": "partial\n", "exitCode": 3})
    );
    let r = call(&t, json!({"command": "definitely-not-a-command-robota"})).await;
    assert_eq!(r["success"], true);
    assert_eq!(r["exitCode"], 127);
    assert!(output(&r).contains("stderr:"), "{r}");
}

#[tokio::test]
async fn bash_runs_in_working_directory_and_cwd() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let canon = std::fs::canonicalize(dir.path()).unwrap();
    let t = tool("Bash", dir.path());
    let r = call(&t, json!({"command": "pwd -P"})).await;
    assert_eq!(output(&r), format!("{}\n", canon.display()));
    let r = call(&t, json!({"command": "pwd -P", "workingDirectory": "sub"})).await;
    assert_eq!(output(&r), format!("{}\n", canon.join("sub").display()));
}

#[tokio::test]
async fn bash_bad_working_directory_is_a_clean_failure() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let r = call(
        &tool("Bash", dir.path()),
        json!({"command": "echo hi", "workingDirectory": missing.to_string_lossy()}),
    )
    .await;
    assert_eq!(
        r,
        json!({"success": false, "output": "",
               "error": format!("Working directory not found: {}", missing.display())})
    );
}

#[tokio::test]
async fn bash_timeout_reports_partial_output() {
    let dir = tempfile::tempdir().unwrap();
    let r = call(
        &tool("Bash", dir.path()),
        json!({"command": "echo started; sleep 30", "timeout": 2000}),
    )
    .await;
    assert_eq!(
        r,
        json!({"success": false, "output": "started\n", "error": "Command timed out after 2000ms"})
    );
}

async fn wait_dead(pid: u32) -> bool {
    for _ in 0..200 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

async fn wait_for_file(p: &Path) -> String {
    for _ in 0..400 {
        if let Ok(s) = std::fs::read_to_string(p) {
            if s.ends_with('\n') {
                return s;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{} never appeared", p.display());
}

#[tokio::test]
async fn bash_timeout_kills_background_children() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    let marker = dir.path().join("late.txt");
    // The background child records its pid, then would write the marker much later.
    let command = format!(
        "sh -c 'echo $$ > {pid}; sleep 60; echo late > {marker}' & \
         while [ ! -s {pid} ]; do sleep 0.05; done; echo ready; sleep 60",
        pid = pid_file.display(),
        marker = marker.display()
    );
    let r = call(
        &tool("Bash", dir.path()),
        json!({"command": command, "timeout": 3000}),
    )
    .await;
    assert_eq!(r["success"], false, "{r}");
    assert_eq!(error(&r), "Command timed out after 3000ms");
    let pid: u32 = wait_for_file(&pid_file).await.trim().parse().unwrap();
    assert!(
        wait_dead(pid).await,
        "background child {pid} survived the timeout"
    );
    assert!(!marker.exists());
}

#[tokio::test]
async fn bash_cancellation_kills_the_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    let command = format!(
        "sh -c 'echo $$ > {pid}; sleep 60' & sleep 60",
        pid = pid_file.display()
    );
    let ctx = ToolContext::detached("c");
    let cancel = ctx.cancel.clone();
    let t = tool("Bash", dir.path());
    let pid_file2 = pid_file.clone();
    let canceller = tokio::spawn(async move {
        let pid = wait_for_file(&pid_file2).await;
        cancel.cancel();
        pid
    });
    let r = call_ctx(&t, json!({"command": command}), &ctx).await;
    assert_eq!(
        r,
        json!({"success": false, "output": "", "error": "Command was cancelled"})
    );
    let pid: u32 = canceller.await.unwrap().trim().parse().unwrap();
    assert!(wait_dead(pid).await, "child {pid} survived cancellation");
}

#[tokio::test]
async fn dropping_a_running_call_kills_the_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    let command = format!(
        "sh -c 'echo $$ > {pid}; sleep 60' & sleep 60",
        pid = pid_file.display()
    );
    let t = tool("Bash", dir.path());
    let ctx = ToolContext::detached("d");
    let pid_file2 = pid_file.clone();
    let fut = t.execute(json!({"command": command}), &ctx);
    // Drop the call as soon as the background child has started.
    tokio::select! {
        _ = fut => panic!("the command should still be running"),
        _ = wait_for_file(&pid_file2) => {}
    }
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_dead(pid).await,
        "child {pid} survived the dropped call"
    );
}

#[tokio::test]
async fn bash_long_output_is_truncated_in_the_middle_as_valid_json() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool("Bash", dir.path());
    let raw = t
        .execute(
            json!({"command": "seq 1 20000"}),
            &ToolContext::detached("x"),
        )
        .await
        .unwrap();
    let text = raw.as_str().unwrap();
    assert!(text.chars().count() <= MAX_TOOL_OUTPUT_CHARS);
    let r: serde_json::Value = serde_json::from_str(text).unwrap();
    let out = output(&r);
    assert!(out.starts_with("1\n2\n3\n"));
    assert!(out.ends_with("19999\n20000\n"));
    assert!(out.contains("\n\n[... output truncated: 108,894 chars total, showing first and last "));
    assert_eq!(r["exitCode"], 0);
}

#[tokio::test]
async fn bash_gets_configured_env() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ToolsConfig::default();
    config
        .env
        .insert("ROBOTA_TOOL_TEST_VAR".into(), "from-settings".into());
    let bash = builtin_tools_with(dir.path(), config).remove(0);
    let r = call(&bash, json!({"command": "echo $ROBOTA_TOOL_TEST_VAR"})).await;
    assert_eq!(output(&r), "from-settings\n");
}

#[tokio::test]
async fn bash_rejects_missing_command() {
    let dir = tempfile::tempdir().unwrap();
    let r = call(&tool("Bash", dir.path()), json!({"timeout": 5})).await;
    assert_eq!(
        error(&r),
        "Validation Error: Invalid parameters for tool \"Bash\": Missing required parameter: command"
    );
}

#[tokio::test]
async fn process_port_feeds_stdin_and_caps_capture() {
    let dir = tempfile::tempdir().unwrap();
    let mut req = ShellRequest::new("tr a-z A-Z", dir.path());
    req.stdin = Some(b"abc".to_vec());
    let out = TokioProcess.run_shell(req).await.unwrap();
    assert_eq!(out.stdout, b"ABC");
    assert_eq!(out.end, ShellEnd::Exited(0));

    let mut req = ShellRequest::new("head -c 1000 /dev/zero | tr '\\0' x", dir.path());
    req.max_output_bytes = 100;
    let out = TokioProcess.run_shell(req).await.unwrap();
    assert_eq!(out.stdout.len(), 100);
    assert_eq!(out.stdout_dropped, 900);
}
