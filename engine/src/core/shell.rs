//! The one place the library runs `sh -c <command>`: the Bash tool's process port
//! ([`TokioProcess`](crate::tools::TokioProcess)), command hooks and the shell spans of skills
//! all go through [`run_shell`] (or [`run_shell_blocking`]) and keep their own output formats.
//!
//! The shell is the leader of a new process group (`process_group(0)`). A timeout, a
//! cancellation, or the run being abandoned (its future dropped) kills the whole group with
//! `SIGKILL`, so background children (`cmd &`) die with the shell instead of surviving it.

use std::io;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::core::child_env::ChildEnvPolicy;
use crate::core::sandbox::spawn::{self as sandboxed, Argv, Confined};
use crate::core::sandbox::Sandbox;

/// How long to wait for the killed group to be reaped before giving up on it.
const REAP_WAIT: Duration = Duration::from_secs(5);

/// How long to wait for the pipes to close after the group was killed (a process that escaped
/// the group with `setsid` may hold them forever).
const PIPE_CLOSE_WAIT: Duration = Duration::from_secs(2);

/// How a shell command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellEnd {
    /// It exited on its own: the exit code (`128 + signal` when a signal ended it).
    Exited(i32),
    /// The timeout passed; the process group was killed.
    TimedOut,
    /// The cancellation token fired; the process group was killed.
    Cancelled,
    /// The command tried to have more processes than its sandbox allows (the cap); everything
    /// it started was killed.
    ProcessLimit(u64),
}

/// What a shell command produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellOutput {
    /// Captured stdout (possibly with the middle dropped, see `stdout_dropped`).
    pub stdout: Vec<u8>,
    /// Captured stderr (possibly with the middle dropped, see `stderr_dropped`).
    pub stderr: Vec<u8>,
    /// Bytes of stdout dropped from the middle because of `max_output_bytes`.
    pub stdout_dropped: u64,
    /// Bytes of stderr dropped from the middle because of `max_output_bytes`.
    pub stderr_dropped: u64,
    /// How it ended.
    pub end: ShellEnd,
}

/// One `sh -c` run as the callers describe it.
#[derive(Debug, Clone)]
pub struct ShellCommand {
    /// The command line, run as `sh -c <command>`.
    pub command: String,
    /// Working directory; `None` = this process's.
    pub cwd: Option<PathBuf>,
    /// Variables added to (or overriding) what the environment policy keeps.
    pub env: Vec<(String, String)>,
    /// Which of this process's variables the command inherits (see [`ChildEnvPolicy`]).
    pub env_policy: Arc<ChildEnvPolicy>,
    /// The OS sandbox to run the command in (`None` = none).
    pub sandbox: Option<Arc<Sandbox>>,
    /// Bytes written to the command's stdin (then closed); `None` = stdin is `/dev/null`.
    pub stdin: Option<Vec<u8>>,
    /// Wall-clock limit; when it passes the whole process group is killed.
    pub timeout: Option<Duration>,
    /// Cancels the command (the whole process group is killed).
    pub cancel: CancellationToken,
    /// At most this many bytes of each stream are kept (head and tail halves; the middle is
    /// dropped and counted).
    pub max_output_bytes: usize,
    /// After the shell exited while background children still hold its stdout/stderr open:
    /// `None` = wait for the pipes to close (as a shell's `$(...)` would, bounded by the
    /// timeout; the children are left running when they close them); `Some(grace)` = wait at
    /// most `grace`, then kill the group and keep what was read.
    pub pipe_grace: Option<Duration>,
}

impl ShellCommand {
    /// `command` in this process's directory: the default environment policy, no sandbox, no
    /// stdin, no timeout, a fresh token, 10 MiB kept per stream, pipes waited for.
    pub fn new(command: impl Into<String>) -> Self {
        ShellCommand {
            command: command.into(),
            cwd: None,
            env: Vec::new(),
            env_policy: ChildEnvPolicy::shared_default(),
            sandbox: None,
            stdin: None,
            timeout: None,
            cancel: CancellationToken::new(),
            max_output_bytes: 10 * 1024 * 1024,
            pipe_grace: None,
        }
    }
}

/// Keeps the first and last `cap / 2` bytes of a stream and counts what was dropped between.
#[derive(Debug, Default)]
pub(crate) struct HeadTail {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    half: usize,
    dropped: u64,
}

impl HeadTail {
    pub(crate) fn new(cap: usize) -> Self {
        HeadTail {
            half: (cap / 2).max(1),
            ..Default::default()
        }
    }

    pub(crate) fn push(&mut self, mut data: &[u8]) {
        if self.head.len() < self.half {
            let take = (self.half - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..take]);
            data = &data[take..];
        }
        if data.len() >= self.half {
            self.dropped += (self.tail.len() + data.len() - self.half) as u64;
            self.tail.clear();
            self.tail.extend(&data[data.len() - self.half..]);
            return;
        }
        self.tail.extend(data);
        let over = self.tail.len().saturating_sub(self.half);
        if over > 0 {
            self.tail.drain(..over);
            self.dropped += over as u64;
        }
    }

    /// Bytes kept (head + tail) and the count dropped between them.
    pub(crate) fn take(&mut self) -> (Vec<u8>, u64) {
        let mut out = std::mem::take(&mut self.head);
        out.extend(self.tail.drain(..));
        (out, self.dropped)
    }
}

async fn pump<R: AsyncRead + Unpin>(mut reader: R, buf: Arc<Mutex<HeadTail>>) {
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if let Ok(mut b) = buf.lock() {
                    b.push(&chunk[..n]);
                }
            }
        }
    }
}

/// Waits for the pipe readers still running; each one is forgotten once it finished (a
/// finished `JoinHandle` must not be polled again), so this may be called again after being
/// interrupted.
async fn join_pipes(out: &mut Option<JoinHandle<()>>, err: &mut Option<JoinHandle<()>>) {
    for task in [out, err] {
        if let Some(t) = task.as_mut() {
            let _ = t.await;
            *task = None;
        }
    }
}

fn take(buf: &Arc<Mutex<HeadTail>>) -> (Vec<u8>, u64) {
    match buf.lock() {
        Ok(mut b) => b.take(),
        Err(_) => (Vec::new(), 0),
    }
}

/// Kills the process group led by `pid` with `SIGKILL`.
fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Kills the process group if the run is abandoned (its future dropped) before it ended.
struct GroupGuard(Option<u32>);

impl GroupGuard {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.0.is_some() {
            kill_group(self.0);
        }
    }
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return 128 + sig;
        }
    }
    -1
}

/// Runs `sh -c <command>` to its end (exit, timeout or cancellation; see [`ShellCommand`]).
/// `Err` only when it could not be started (or waited for).
pub async fn run_shell(spec: ShellCommand) -> io::Result<ShellOutput> {
    run_shell_with_status(spec).await.map(|(out, _)| out)
}

/// [`run_shell`] that also returns the shell's own exit status when it exited on its own (for
/// callers that map a death by signal their own way).
pub async fn run_shell_with_status(
    spec: ShellCommand,
) -> io::Result<(ShellOutput, Option<std::process::ExitStatus>)> {
    let argv = match &spec.sandbox {
        Some(sandbox) => sandboxed::argv(sandbox, &spec.command),
        None => Argv {
            program: "sh".into(),
            args: vec!["-c".into(), spec.command.clone()],
            gated: false,
        },
    };
    let mut env = spec.env_policy.environment(&spec.env);
    if let Some(sandbox) = &spec.sandbox {
        // The private temp dir wins over `tool_env.set`: it is the one the command may write.
        for (k, v) in sandboxed::env(sandbox) {
            env.retain(|(name, _)| name.as_os_str() != k.as_str());
            env.push((k.into(), v.into()));
        }
    }
    let mut cmd = Command::new(&argv.program);
    cmd.args(&argv.args)
        .env_clear()
        .envs(env)
        .stdin(if spec.stdin.is_some() || argv.gated {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    crate::core::child_signal::prepare();
    let (mut child, confined) = match &spec.sandbox {
        Some(sandbox) => sandboxed::spawn(sandbox, &mut cmd)?,
        None => (cmd.spawn()?, Confined::default()),
    };
    let pid = child.id();
    let mut guard = GroupGuard(pid);

    if let Some(mut stdin) = child.stdin.take() {
        let (gated, data) = (argv.gated, spec.stdin);
        tokio::spawn(async move {
            // EPIPE (the command did not read its input) is fine.
            if gated {
                let _ = stdin.write_all(b"\n").await;
            }
            if let Some(data) = data {
                let _ = stdin.write_all(&data).await;
            }
            let _ = stdin.shutdown().await;
        });
    }
    let out_buf = Arc::new(Mutex::new(HeadTail::new(spec.max_output_bytes)));
    let err_buf = Arc::new(Mutex::new(HeadTail::new(spec.max_output_bytes)));
    let mut out_task = child
        .stdout
        .take()
        .map(|s| tokio::spawn(pump(s, out_buf.clone())));
    let mut err_task = child
        .stderr
        .take()
        .map(|s| tokio::spawn(pump(s, err_buf.clone())));

    let pipe_grace = spec.pipe_grace;
    let finished = async {
        let status = child.wait().await?;
        let pipes = join_pipes(&mut out_task, &mut err_task);
        match pipe_grace {
            None => pipes.await,
            Some(grace) => {
                if tokio::time::timeout(grace, pipes).await.is_err() {
                    // Background children still hold the pipes: end them, keep what was read.
                    kill_group(pid);
                }
            }
        }
        io::Result::Ok(status)
    };
    let timeout = async {
        match spec.timeout {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending::<()>().await,
        }
    };
    let mut exit_status = None;
    let mut end = tokio::select! {
        status = finished => {
            let status = status?;
            exit_status = Some(status);
            ShellEnd::Exited(exit_code(status))
        }
        _ = timeout => ShellEnd::TimedOut,
        _ = spec.cancel.cancelled() => ShellEnd::Cancelled,
        cap = confined.process_cap_hit() => ShellEnd::ProcessLimit(cap),
    };
    // A command that hit its process cap failed, even when it ended on its own afterwards.
    if let (ShellEnd::Exited(_), Some(cap)) = (end, confined.cap_was_hit()) {
        end = ShellEnd::ProcessLimit(cap);
        exit_status = None;
    }
    // A command that exited on its own keeps any daemon it detached from its pipes (unless a
    // pipe grace ended it above).
    guard.disarm();
    if !matches!(end, ShellEnd::Exited(_)) {
        kill_group(pid);
        confined.kill_all();
        let _ = tokio::time::timeout(REAP_WAIT, child.wait()).await;
    }
    // The pipes close once every member of the group is gone; don't wait forever for a process
    // that escaped the group (setsid). A no-op when they were read to their end above.
    let _ = tokio::time::timeout(PIPE_CLOSE_WAIT, join_pipes(&mut out_task, &mut err_task)).await;
    if let Some(sandbox) = &spec.sandbox {
        confined.finish(sandbox);
    }
    let (stdout, stdout_dropped) = take(&out_buf);
    let (stderr, stderr_dropped) = take(&err_buf);
    let output = ShellOutput {
        stdout,
        stderr,
        stdout_dropped,
        stderr_dropped,
        end,
    };
    Ok((output, exit_status))
}

/// [`run_shell`] for synchronous callers: runs it on a small runtime of its own on a helper
/// thread (so it may be called from anywhere, a runtime's worker thread included) and blocks
/// until it ended.
pub fn run_shell_blocking(spec: ShellCommand) -> io::Result<ShellOutput> {
    std::thread::scope(|s| {
        s.spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?
                .block_on(run_shell(spec))
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the shell runner panicked")))
    })
}

#[cfg(test)]
pub(crate) mod tests;
