//! The `command` executor: `sh -c <command>` with the hook input as stdin JSON, cwd = `input.cwd`,
//! env = process env + the executor's base env + `input.env`, and a timeout (default 10 s,
//! per-hook `timeout` in seconds) after which the whole process group is killed.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::registry::HookExecutor;
use super::secrets::{resolve_secret_value, Redactor};
use super::types::{HookDefinition, HookResult, DEFAULT_COMMAND_TIMEOUT, HOOK_TIMED_OUT};
use crate::core::env_ref::EnvVars;

/// Stderr of a command hook stopped because the turn was cancelled.
pub const HOOK_CANCELLED: &str = "Hook cancelled";

/// Grace period for output pipes to close after the shell exited (background children may
/// still hold them; they are killed after this).
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// Runs `command` hooks.
#[derive(Debug, Clone)]
pub struct CommandExecutor {
    base_env: BTreeMap<String, String>,
    vars: EnvVars,
    default_timeout: Duration,
}

impl Default for CommandExecutor {
    fn default() -> Self {
        Self::new()
    }
}

impl CommandExecutor {
    /// An executor with the 10 s default timeout and no extra environment.
    pub fn new() -> Self {
        CommandExecutor {
            base_env: BTreeMap::new(),
            vars: EnvVars::process(),
            default_timeout: DEFAULT_COMMAND_TIMEOUT,
        }
    }

    /// Adds environment applied to every command (e.g. the settings `env` map); values may be
    /// `$ENV:NAME` references, resolved at spawn time and never echoed.
    pub fn with_env(mut self, env: BTreeMap<String, String>) -> Self {
        self.base_env = env;
        self
    }

    /// Where `$ENV:NAME` values of the environment are looked up (default: the process
    /// environment).
    pub fn with_vars(mut self, vars: EnvVars) -> Self {
        self.vars = vars;
        self
    }

    /// Changes the timeout used when a hook has no `timeout` field.
    pub fn with_default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }
}

/// Kills `pid`'s whole process group (the shell was started as a group leader).
pub fn kill_process_group(pid: u32) {
    #[cfg(unix)]
    {
        if let Some(p) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
        }
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
    }
}

fn spawn_reader<R: AsyncRead + Unpin + Send + 'static>(r: Option<R>) -> JoinHandle<Vec<u8>> {
    tokio::spawn(async move {
        let mut buf = Vec::new();
        if let Some(mut r) = r {
            let _ = r.read_to_end(&mut buf).await;
        }
        buf
    })
}

async fn collect(handle: JoinHandle<Vec<u8>>) -> String {
    String::from_utf8_lossy(&handle.await.unwrap_or_default()).into_owned()
}

fn env_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[async_trait]
impl HookExecutor for CommandExecutor {
    fn kind(&self) -> &str {
        "command"
    }

    async fn execute(
        &self,
        def: &HookDefinition,
        input: &Value,
        cancel: CancellationToken,
    ) -> HookResult {
        let Some(command) = def.str_field("command") else {
            return HookResult::failure("command hook is missing a \"command\" string");
        };
        let timeout = match def.timeout() {
            Ok(t) => t.unwrap_or(self.default_timeout),
            Err(e) => return HookResult::failure(e),
        };
        let mut redactor = Redactor::default();
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(command);
        if let Some(cwd) = input.get("cwd").and_then(Value::as_str) {
            if !cwd.is_empty() {
                cmd.current_dir(cwd);
            }
        }
        let mut env: BTreeMap<String, String> = self.base_env.clone();
        if let Some(Value::Object(m)) = input.get("env") {
            for (k, v) in m {
                env.insert(k.clone(), env_value(v));
            }
        }
        for (k, v) in env {
            let resolved = resolve_secret_value(&v, &self.vars, &mut redactor);
            cmd.env(k, resolved);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => return HookResult::failure(format!("Failed to start hook command: {e}")),
        };
        let pid = child.id().unwrap_or(0);
        let payload = serde_json::to_vec(input).unwrap_or_default();
        if let Some(mut stdin) = child.stdin.take() {
            tokio::spawn(async move {
                // EPIPE (the hook did not read its input) is fine.
                let _ = stdin.write_all(&payload).await;
                let _ = stdin.shutdown().await;
            });
        }
        let out = spawn_reader(child.stdout.take());
        let err = spawn_reader(child.stderr.take());
        let status = tokio::select! {
            s = child.wait() => s,
            _ = tokio::time::sleep(timeout) => {
                kill_process_group(pid);
                let _ = child.kill().await;
                out.abort();
                err.abort();
                crate::log_at!(
                    crate::core::log::WARN,
                    "robota::hooks",
                    "command hook timed out after {} ms; its process group was killed",
                    timeout.as_millis()
                );
                return HookResult::failure(HOOK_TIMED_OUT);
            }
            _ = cancel.cancelled() => {
                kill_process_group(pid);
                let _ = child.kill().await;
                out.abort();
                err.abort();
                return HookResult::failure(HOOK_CANCELLED);
            }
        };
        let code = match status {
            Ok(s) => s.code().unwrap_or(1),
            Err(e) => {
                kill_process_group(pid);
                return HookResult::failure(format!("Failed to wait for hook command: {e}"));
            }
        };
        // Background children may keep the pipes open: give them a moment, then kill the group.
        let both = async { (collect(out).await, collect(err).await) };
        tokio::pin!(both);
        let (stdout, stderr) = tokio::select! {
            r = &mut both => r,
            _ = tokio::time::sleep(PIPE_GRACE) => {
                kill_process_group(pid);
                both.await
            }
        };
        HookResult::new(code, redactor.redact(&stdout), redactor.redact(&stderr))
    }
}
