//! The `command` executor: `sh -c <command>` with the hook input as stdin JSON, cwd = `input.cwd`,
//! env = process env + the executor's base env + `input.env`, and a timeout (default 10 s,
//! per-hook `timeout` in seconds) after which the whole process group is killed; run by the one
//! shell runner, [`crate::core::shell`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::registry::HookExecutor;
use super::secrets::{resolve_secret_value, Redactor};
use super::types::{HookDefinition, HookResult, DEFAULT_COMMAND_TIMEOUT, HOOK_TIMED_OUT};
use crate::core::child_env::ChildEnvPolicy;
use crate::core::env_ref::EnvVars;
use crate::core::shell::{run_shell_with_status, ShellCommand, ShellEnd};

/// Stderr of a command hook stopped because the turn was cancelled.
pub const HOOK_CANCELLED: &str = "Hook cancelled";

/// Grace period for output pipes to close after the shell exited (background children may
/// still hold them; they are killed after this).
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// Runs `command` hooks.
#[derive(Debug, Clone)]
pub struct CommandExecutor {
    base_env: BTreeMap<String, String>,
    env_policy: Arc<ChildEnvPolicy>,
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
            env_policy: ChildEnvPolicy::shared_default(),
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

    /// Which of the host's variables the commands inherit (default: the default policy).
    pub fn with_env_policy(mut self, policy: Arc<ChildEnvPolicy>) -> Self {
        self.env_policy = policy;
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
        let (command, timeout) =
            match def.field_and_timeout(self.kind(), "command", self.default_timeout) {
                Ok(read) => read,
                Err(failure) => return failure,
            };
        let mut redactor = Redactor::default();
        let cwd = input
            .get("cwd")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(PathBuf::from);
        let mut env: BTreeMap<String, String> = self.base_env.clone();
        if let Some(Value::Object(m)) = input.get("env") {
            for (k, v) in m {
                env.insert(k.clone(), env_value(v));
            }
        }
        let env = env
            .into_iter()
            .map(|(k, v)| {
                let resolved = resolve_secret_value(&v, &self.vars, &mut redactor);
                (k, resolved)
            })
            .collect();
        let out = run_shell_with_status(ShellCommand {
            command: command.to_string(),
            cwd,
            env,
            env_policy: self.env_policy.clone(),
            sandbox: None,
            stdin: Some(serde_json::to_vec(input).unwrap_or_default()),
            timeout: Some(timeout),
            cancel,
            max_output_bytes: usize::MAX,
            pipe_grace: Some(PIPE_GRACE),
        })
        .await;
        let (out, status) = match out {
            Ok(out) => out,
            Err(e) => return HookResult::failure(format!("Failed to start hook command: {e}")),
        };
        let code = match out.end {
            // Killed by a signal: no exit code → 1.
            ShellEnd::Exited(_) => status.and_then(|s| s.code()).unwrap_or(1),
            ShellEnd::TimedOut => {
                crate::log_at!(
                    crate::core::log::WARN,
                    "robota::hooks",
                    "command hook timed out after {} ms; its process group was killed",
                    timeout.as_millis()
                );
                return HookResult::failure(HOOK_TIMED_OUT);
            }
            ShellEnd::Cancelled => return HookResult::failure(HOOK_CANCELLED),
            // Hooks run outside the sandbox: no process cap applies.
            ShellEnd::ProcessLimit(_) => 1,
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        HookResult::new(code, redactor.redact(&stdout), redactor.redact(&stderr))
    }
}
