//! `Bash` — execute a shell command (`sh -c`; any exit code is a success) through the
//! [`ProcessPort`](super::ports::ProcessPort).

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::args::int;
use super::builtin::{Builtin, Spec};
use super::config::ToolEnv;
use super::ports::{ShellEnd, ShellOutput, ShellRequest};
use super::result::ToolOutput;
use crate::core::tool::ToolContext;

/// Runs `sh -c <command>`; any exit code is a success carrying `exitCode`.
pub struct BashTool {
    spec: Spec,
}

impl BashTool {
    /// A Bash tool on `env`.
    pub fn new(env: ToolEnv) -> Self {
        BashTool {
            spec: Spec::of::<Self>(env),
        }
    }
}

/// Bash's arguments.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BashArgs {
    command: String,
    #[serde(default, deserialize_with = "int")]
    timeout: Option<i64>,
    working_directory: Option<String>,
}

fn dropped_note(n: u64) -> String {
    format!("\n[... {n} bytes omitted ...]\n")
}

/// stdout, plus `\nstderr:\n<stderr>` when stderr is non-empty.
fn combine(out: &ShellOutput) -> String {
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.stdout_dropped > 0 {
        let half = out.stdout.len() / 2;
        let (a, b) = out.stdout.split_at(half);
        text = format!(
            "{}{}{}",
            String::from_utf8_lossy(a),
            dropped_note(out.stdout_dropped),
            String::from_utf8_lossy(b)
        );
    }
    if !out.stderr.is_empty() {
        text.push_str("\nstderr:\n");
        if out.stderr_dropped > 0 {
            let half = out.stderr.len() / 2;
            let (a, b) = out.stderr.split_at(half);
            text.push_str(&String::from_utf8_lossy(a));
            text.push_str(&dropped_note(out.stderr_dropped));
            text.push_str(&String::from_utf8_lossy(b));
        } else {
            text.push_str(&String::from_utf8_lossy(&out.stderr));
        }
    }
    text
}

#[async_trait]
impl Builtin for BashTool {
    type Args = BashArgs;
    const NAME: &'static str = "Bash";
    const DESCRIPTION: &'static str = "Execute a shell command (sh -c) and return its stdout, followed by stderr when there is any, and the exit code. Parameters: command (required), timeout (ms, default 120000, max 600000), workingDirectory (default: the working directory). A non-zero exit code is reported, not treated as a failure; on timeout the command and all its child processes are killed.";

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The shell command to execute"},
                "timeout": {"type": "number", "description": "Timeout in milliseconds (default 120000, max 600000)"},
                "workingDirectory": {"type": "string", "description": "Directory to run the command in (default: the working directory)"}
            },
            "required": ["command"]
        })
    }
    fn spec(&self) -> &Spec {
        &self.spec
    }

    async fn run(&self, args: BashArgs, ctx: &ToolContext) -> ToolOutput {
        let env = &self.spec.env;
        let limits = env.limits();
        let timeout_ms = match args.timeout {
            Some(t) if t > 0 => (t as u64).min(limits.bash_max_timeout_ms),
            _ => limits.bash_default_timeout_ms,
        };
        let cwd = match args.working_directory.as_deref() {
            Some(dir) if !dir.is_empty() => env.resolve(dir),
            _ => env.cwd.clone(),
        };
        if let Some(Err(refusal)) = env.sandbox.as_ref().map(|s| s.refusal()) {
            return ToolOutput::fail(refusal);
        }
        let mut request = ShellRequest::new(args.command, cwd);
        request.env_policy = env.child_env.clone();
        request.sandbox = env.sandbox.clone();
        request.env = env
            .config
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        request.timeout = Some(Duration::from_millis(timeout_ms));
        request.cancel = ctx.cancel.child_token();
        request.max_output_bytes = limits.bash_max_capture_bytes;
        let out = match env.process.run_shell(request).await {
            Ok(out) => out,
            Err(e) => return ToolOutput::fail(e.to_string()),
        };
        let text = combine(&out);
        match out.end {
            ShellEnd::Exited(code) => {
                let mut r = ToolOutput::ok(text);
                r.exit_code = Some(code);
                r
            }
            ShellEnd::TimedOut => ToolOutput {
                success: false,
                output: text,
                error: Some(format!("Command timed out after {timeout_ms}ms")),
                exit_code: None,
                start_line: None,
            },
            ShellEnd::Cancelled => ToolOutput {
                success: false,
                output: text,
                error: Some("Command was cancelled".to_string()),
                exit_code: None,
                start_line: None,
            },
            ShellEnd::ProcessLimit(cap) => ToolOutput {
                success: false,
                output: text,
                error: Some(format!(
                    "Command stopped: it tried to run more than {cap} processes at once \
                     (the sandbox's limits.processes); everything it started was killed"
                )),
                exit_code: None,
                start_line: None,
            },
        }
    }
}
