//! Tests of the shell runner (bounded output, timeouts, cancellation, process-group kills) and
//! the helpers other modules' tests share (`wait_for_pid`, `gone_soon`, `grandchild_command`).

use super::*;
use std::path::Path;
use std::time::Instant;

#[test]
fn head_tail_keeps_ends() {
    let mut h = HeadTail::new(8);
    h.push(b"abcdef");
    h.push(b"ghij");
    h.push(b"klmnop");
    let (kept, dropped) = h.take();
    assert_eq!(kept, b"abcdmnop");
    assert_eq!(dropped, 8);
    let mut h = HeadTail::new(100);
    h.push(b"short");
    assert_eq!(h.take(), (b"short".to_vec(), 0));
}

/// True while `pid` is a live process (`/proc/<pid>` exists and is not a zombie).
pub(crate) fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        // The state follows the `(comm)` field.
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

/// Polls until `file` holds a pid (written by the command under test) and returns it.
pub(crate) fn wait_for_pid(file: &Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Polls until `pid` is gone; false when it still lives after a few seconds.
pub(crate) fn gone_soon(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while pid_alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// A command whose background grandchild (`sleep 30`) writes its pid to `file` and is
/// waited for by the shell.
pub(crate) fn grandchild_command(file: &Path) -> String {
    format!("sleep 30 & echo $! > '{}'; wait", file.display())
}

#[cfg(unix)]
#[tokio::test]
async fn a_timeout_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pid");
    let mut spec = ShellCommand::new(grandchild_command(&file));
    spec.timeout = Some(Duration::from_millis(300));
    let out = run_shell(spec).await.unwrap();
    assert_eq!(out.end, ShellEnd::TimedOut);
    let pid = wait_for_pid(&file);
    assert!(
        gone_soon(pid),
        "the background child {pid} survived the timeout"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_cancellation_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pid");
    let spec = ShellCommand::new(grandchild_command(&file));
    let cancel = spec.cancel.clone();
    let run = tokio::spawn(run_shell(spec));
    let pid = tokio::task::spawn_blocking({
        let file = file.clone();
        move || wait_for_pid(&file)
    })
    .await
    .unwrap();
    cancel.cancel();
    assert_eq!(run.await.unwrap().unwrap().end, ShellEnd::Cancelled);
    assert!(
        gone_soon(pid),
        "the background child {pid} survived the cancellation"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn an_abandoned_run_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pid");
    let run = tokio::spawn(run_shell(ShellCommand::new(grandchild_command(&file))));
    let pid = tokio::task::spawn_blocking({
        let file = file.clone();
        move || wait_for_pid(&file)
    })
    .await
    .unwrap();
    run.abort();
    assert!(run.await.unwrap_err().is_cancelled());
    assert!(
        gone_soon(pid),
        "the background child {pid} survived the drop"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_pipe_grace_ends_children_holding_the_pipes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pid");
    let mut spec = ShellCommand::new(format!(
        "echo hi; sleep 30 & echo $! > '{}'",
        file.display()
    ));
    spec.pipe_grace = Some(Duration::from_millis(200));
    let out = run_shell(spec).await.unwrap();
    assert_eq!(out.end, ShellEnd::Exited(0));
    assert_eq!(out.stdout, b"hi\n");
    let pid = wait_for_pid(&file);
    assert!(
        gone_soon(pid),
        "the background child {pid} survived the grace"
    );
}

#[test]
fn the_blocking_variant_runs_inside_and_outside_a_runtime() {
    let mut spec = ShellCommand::new("printf \"$X\"; cat; exit 3");
    spec.env = vec![("X".into(), "x".into())];
    spec.stdin = Some(b"in".to_vec());
    let out = run_shell_blocking(spec.clone()).unwrap();
    assert_eq!(
        (out.stdout.as_slice(), out.end),
        (&b"xin"[..], ShellEnd::Exited(3))
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    let out = rt.block_on(async { run_shell_blocking(spec) }).unwrap();
    assert_eq!(out.end, ShellEnd::Exited(3));
}
