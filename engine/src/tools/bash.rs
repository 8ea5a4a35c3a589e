//! `Bash` — execute a shell command (`sh -c`; any exit code is a success) through the
//! [`ProcessPort`](super::ports::ProcessPort).

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::common::{arg_i64, arg_str, Spec};
use super::config::ToolEnv;
use super::ports::{ShellEnd, ShellOutput, ShellRequest};
use super::result::ToolOutput;
use crate::core::tool::{Tool, ToolContext, ToolResult};

/// Runs `sh -c <command>`; any exit code is a success carrying `exitCode`.
pub struct BashTool {
    env: ToolEnv,
    spec: Spec,
}

impl BashTool {
    /// A Bash tool on `env`.
    pub fn new(env: ToolEnv) -> Self {
        BashTool {
            env,
            spec: Spec::new(json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The shell command to execute"},
                    "timeout": {"type": "number", "description": "Timeout in milliseconds (default 120000, max 600000)"},
                    "workingDirectory": {"type": "string", "description": "Directory to run the command in (default: the working directory)"}
                },
                "required": ["command"]
            })),
        }
    }
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
impl Tool for BashTool {
    fn name(&self) -> &str {
        "Bash"
    }
    fn description(&self) -> &str {
        "Execute a shell command (sh -c) and return its stdout, followed by stderr when there is any, and the exit code. Parameters: command (required), timeout (ms, default 120000, max 600000), workingDirectory (default: the working directory). A non-zero exit code is reported, not treated as a failure; on timeout the command and all its child processes are killed."
    }
    fn parameters(&self) -> &Value {
        &self.spec.parameters
    }
    fn schema(&self) -> std::sync::Arc<crate::core::provider::ToolSchema> {
        self.spec.schema.get(self)
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let limits = self.env.limits();
        let max = limits.max_output_chars;
        if let Err(fail) = self.spec.validate(self.name(), &args) {
            return fail.into_result(max);
        }
        let command = arg_str(&args, "command").unwrap_or_default().to_string();
        let timeout_ms = match arg_i64(&args, "timeout") {
            Some(t) if t > 0 => (t as u64).min(limits.bash_max_timeout_ms),
            _ => limits.bash_default_timeout_ms,
        };
        let cwd = match arg_str(&args, "workingDirectory") {
            Some(dir) if !dir.is_empty() => self.env.resolve(dir),
            _ => self.env.cwd.clone(),
        };
        let mut request = ShellRequest::new(command, cwd);
        request.env = self
            .env
            .config
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        request.timeout = Some(Duration::from_millis(timeout_ms));
        request.cancel = ctx.cancel.child_token();
        request.max_output_bytes = limits.bash_max_capture_bytes;
        let out = match self.env.process.run_shell(request).await {
            Ok(out) => out,
            Err(e) => return ToolOutput::fail(e.to_string()).into_result(max),
        };
        let text = combine(&out);
        let result = match out.end {
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
        };
        result.into_result(max)
    }
}
