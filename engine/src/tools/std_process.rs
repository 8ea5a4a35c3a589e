//! Real processes behind [`ProcessPort`]: `sh -c` in its own process group, run by the one
//! shell runner, [`crate::core::shell`].

use std::io;

use async_trait::async_trait;

use super::ports::{ProcessPort, ShellOutput, ShellRequest};
use crate::core::shell::{run_shell, ShellCommand};

/// Runs commands with `sh -c` via tokio (the default process port).
///
/// Each command is the leader of a new process group; on timeout or cancellation the whole group
/// gets `SIGKILL`, so background children (`cmd &`) die with it. A command that exits while a
/// background child still holds its stdout/stderr open is waited for until the pipes close (as a
/// shell's `$(...)` would), bounded by the timeout.
#[derive(Debug, Default, Clone, Copy)]
pub struct TokioProcess;

/// A process port that refuses to run anything ("no shell at all" hosts).
#[derive(Debug, Default, Clone, Copy)]
pub struct DisabledProcess;

#[async_trait]
impl ProcessPort for DisabledProcess {
    async fn run_shell(&self, _request: ShellRequest) -> io::Result<ShellOutput> {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "Running processes is disabled by the host",
        ))
    }
}

#[async_trait]
impl ProcessPort for TokioProcess {
    async fn run_shell(&self, request: ShellRequest) -> io::Result<ShellOutput> {
        match std::fs::metadata(&request.cwd) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "Working directory is not a directory: {}",
                        request.cwd.display()
                    ),
                ))
            }
            Err(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("Working directory not found: {}", request.cwd.display()),
                ))
            }
        }
        run_shell(ShellCommand {
            command: request.command,
            cwd: Some(request.cwd),
            env: request.env,
            env_policy: request.env_policy,
            sandbox: request.sandbox,
            stdin: request.stdin,
            timeout: request.timeout,
            cancel: request.cancel,
            max_output_bytes: request.max_output_bytes,
            pipe_grace: None,
        })
        .await
    }
}
