//! The sandbox against the real kernel: what a command may and may not do.

use super::*;

#[test]
fn the_mode_and_fallback_names_and_defaults() {
    let c: SandboxConfig = serde_json::from_value(serde_json::json!({})).unwrap();
    assert_eq!(c.mode, SandboxMode::WorkspaceWrite);
    assert!(!c.network);
    assert_eq!(c.fallback, Fallback::Unsandboxed);
    assert_eq!(c.limits, SandboxLimits::default());
    let e = serde_json::from_value::<SandboxConfig>(serde_json::json!({"mode": "open"}))
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown variant `open`"), "{e}");
    let e = serde_json::from_value::<SandboxConfig>(serde_json::json!({"limits": {"cpu": 1}}))
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `cpu`"), "{e}");
    let off = SandboxConfig {
        mode: SandboxMode::Off,
        ..Default::default()
    };
    assert!(Sandbox::new(off, Path::new("/")).unwrap().is_none());
}

#[test]
fn the_file_tools_checks_follow_the_roots() {
    let ws = tempfile::tempdir().unwrap();
    let cwd = ws.path().canonicalize().unwrap();
    let config = SandboxConfig {
        deny_read: vec!["secret".into()],
        ..Default::default()
    };
    let sb = Sandbox::new(config, &cwd).unwrap().unwrap();
    assert!(sb.check_write(&cwd.join("a/b.txt")).is_ok());
    assert!(sb.check_write(&sb.temp_dir().join("x")).is_ok());
    let e = sb.check_write(Path::new("/etc/passwd")).unwrap_err();
    assert!(
        e.starts_with("The sandbox (workspace-write) does not allow writing /etc/passwd"),
        "{e}"
    );
    let e = sb.check_read(&cwd.join("secret/key")).unwrap_err();
    assert!(e.contains("is on sandbox.deny_read"), "{e}");
    assert!(sb.check_read(&cwd.join("open.txt")).is_ok());
}

#[test]
fn what_the_system_cannot_enforce_is_probed_at_the_first_question() {
    let ws = tempfile::tempdir().unwrap();
    let sb = Sandbox::new(SandboxConfig::default(), ws.path())
        .unwrap()
        .unwrap();
    // A session that never runs a command never starts the probes (a thread, a cgroup).
    assert!(sb.unavailable.get().is_none());
    let missing = sb.unavailable().map(str::to_string);
    assert_eq!(sb.unavailable.get(), Some(&missing));
    assert_eq!(missing, spawn::unavailable(sb.config()));
    assert_eq!(
        sb.warning(),
        missing.map(|m| warning_text(&m, Fallback::Unsandboxed))
    );
}

#[cfg(all(target_os = "linux", feature = "sandbox"))]
mod linux {
    use std::sync::Arc;

    use super::*;
    use crate::core::shell::{run_shell, ShellCommand, ShellEnd, ShellOutput};

    fn sandbox(config: SandboxConfig, cwd: &Path) -> Arc<Sandbox> {
        Arc::new(Sandbox::new(config, cwd).unwrap().expect("a sandbox"))
    }

    async fn run(sandbox: &Arc<Sandbox>, cwd: &Path, command: &str) -> ShellOutput {
        let mut spec = ShellCommand::new(command);
        spec.cwd = Some(cwd.to_path_buf());
        spec.sandbox = Some(sandbox.clone());
        spec.timeout = Some(std::time::Duration::from_secs(60));
        run_shell(spec).await.expect("started")
    }

    fn text(out: &ShellOutput) -> String {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }

    /// These tests need what the sandbox needs; under CI a missing part fails them.
    fn enforced(config: &SandboxConfig) -> bool {
        match spawn::unavailable(config) {
            None => true,
            Some(missing) if std::env::var_os("CI").is_some() => {
                panic!("the sandbox is not enforced on this CI machine: {missing}")
            }
            Some(_) => false,
        }
    }

    #[tokio::test]
    async fn writes_stay_in_the_workspace_and_the_temp_dir() {
        let config = SandboxConfig::default();
        if !enforced(&config) {
            return;
        }
        let parent = tempfile::tempdir().unwrap();
        let cwd = parent.path().join("ws");
        std::fs::create_dir(&cwd).unwrap();
        let sb = sandbox(config, &cwd);
        let out = run(
            &sb,
            &cwd,
            "echo in > inside.txt && echo ok-inside; \
             echo t > \"$TMPDIR/t\" && echo ok-tmp; \
             echo s > ../sibling.txt || echo denied-sibling; \
             echo n > /dev/null && echo ok-devnull; \
             echo $0",
        )
        .await;
        let t = text(&out);
        assert!(t.contains("ok-inside\n"), "{t}");
        assert!(t.contains("ok-tmp\n"), "{t}");
        assert!(t.contains("denied-sibling\n"), "{t}");
        assert!(t.contains("ok-devnull\n"), "{t}");
        assert!(t.contains("\nsh\n"), "the command runs as `sh -c`: {t}");
        assert!(!parent.path().join("sibling.txt").exists());
        assert_eq!(
            std::fs::read_to_string(cwd.join("inside.txt")).unwrap(),
            "in\n"
        );
        assert!(sb.temp_dir().join("t").exists());
    }

    #[tokio::test]
    async fn stdin_reaches_the_command_after_the_gate() {
        let config = SandboxConfig::default();
        if !enforced(&config) {
            return;
        }
        let ws = tempfile::tempdir().unwrap();
        let sb = sandbox(config, ws.path());
        let mut spec = ShellCommand::new("cat; echo; read -r x || echo eof");
        spec.cwd = Some(ws.path().to_path_buf());
        spec.sandbox = Some(sb);
        spec.stdin = Some(b"line one\nline two".to_vec());
        let out = run_shell(spec).await.unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "line one\nline two\neof\n"
        );
        assert_eq!(out.end, ShellEnd::Exited(0));
    }

    #[tokio::test]
    async fn tcp_is_closed_unless_the_network_is_allowed() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let probe = format!(
            "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 5); print(\"connected\")' 2>&1 | tail -1"
        );
        let ws = tempfile::tempdir().unwrap();
        let closed = SandboxConfig::default();
        if !enforced(&closed) {
            return;
        }
        let out = run(&sandbox(closed, ws.path()), ws.path(), &probe).await;
        assert!(text(&out).contains("PermissionError"), "{}", text(&out));
        let open = SandboxConfig {
            network: true,
            ..Default::default()
        };
        let out = run(&sandbox(open, ws.path()), ws.path(), &probe).await;
        assert_eq!(text(&out), "connected\n");
    }

    #[tokio::test]
    async fn a_denied_path_cannot_be_read_and_the_rest_can() {
        let ws = tempfile::tempdir().unwrap();
        let cwd = ws.path().canonicalize().unwrap();
        std::fs::create_dir(cwd.join("private")).unwrap();
        std::fs::write(cwd.join("private/key"), "k").unwrap();
        std::fs::write(cwd.join("open.txt"), "open").unwrap();
        let config = SandboxConfig {
            deny_read: vec!["private".into()],
            ..Default::default()
        };
        if !enforced(&config) {
            return;
        }
        let out = run(
            &sandbox(config, &cwd),
            &cwd,
            "cat private/key || echo denied; cat open.txt; echo; head -c 4 /etc/passwd",
        )
        .await;
        let t = text(&out);
        assert!(t.contains("denied\nopen\nroot"), "{t}");
        assert!(!t.contains("\nk"), "{t}");
    }

    #[tokio::test]
    async fn a_fork_bomb_ends_at_the_process_cap() {
        let config = SandboxConfig {
            limits: SandboxLimits {
                processes: 32,
                ..Default::default()
            },
            ..Default::default()
        };
        if !enforced(&config) {
            return;
        }
        let ws = tempfile::tempdir().unwrap();
        let out = run(
            &sandbox(config, ws.path()),
            ws.path(),
            "bomb() { bomb | bomb & }; bomb; wait",
        )
        .await;
        if super::cgroup::available() {
            assert_eq!(out.end, ShellEnd::ProcessLimit(32));
        } else {
            // RLIMIT_NPROC: forks fail; the command ends by its timeout at worst.
            assert_ne!(out.end, ShellEnd::Exited(0));
        }
    }

    #[tokio::test]
    async fn a_file_larger_than_the_limit_is_not_written() {
        let config = SandboxConfig {
            limits: SandboxLimits {
                file_size_mb: 1,
                ..Default::default()
            },
            ..Default::default()
        };
        if !enforced(&config) {
            return;
        }
        let ws = tempfile::tempdir().unwrap();
        let out = run(
            &sandbox(config, ws.path()),
            ws.path(),
            "head -c 2097152 /dev/zero > big; echo $?; head -c 1000 /dev/zero > small; echo $?",
        )
        .await;
        let t = String::from_utf8_lossy(&out.stdout);
        assert_eq!(t, "153\n0\n", "SIGXFSZ ends the big write (128 + 25)");
        let big = std::fs::metadata(ws.path().join("big")).unwrap().len();
        assert_eq!(big, 1024 * 1024);
    }
}
