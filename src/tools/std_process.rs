//! Real processes behind [`ProcessPort`]: `sh -c` in its own process group (tokio).

use std::io;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::ports::{ProcessPort, ShellEnd, ShellOutput, ShellRequest};

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

#[cfg(unix)]
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: Option<u32>) {}

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

fn take(buf: &Arc<Mutex<HeadTail>>) -> (Vec<u8>, u64) {
    match buf.lock() {
        Ok(mut b) => b.take(),
        Err(_) => (Vec::new(), 0),
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
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&request.command)
            .current_dir(&request.cwd)
            .envs(request.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(if request.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd.spawn()?;
        let pid = child.id();
        let mut guard = GroupGuard(pid);

        if let (Some(mut stdin), Some(data)) = (child.stdin.take(), request.stdin.clone()) {
            tokio::spawn(async move {
                let _ = stdin.write_all(&data).await;
                let _ = stdin.shutdown().await;
            });
        }
        let out_buf = Arc::new(Mutex::new(HeadTail::new(request.max_output_bytes)));
        let err_buf = Arc::new(Mutex::new(HeadTail::new(request.max_output_bytes)));
        let mut out_task = child
            .stdout
            .take()
            .map(|s| tokio::spawn(pump(s, out_buf.clone())));
        let mut err_task = child
            .stderr
            .take()
            .map(|s| tokio::spawn(pump(s, err_buf.clone())));

        let finished = async {
            let status = child.wait().await;
            if let Some(t) = out_task.as_mut() {
                let _ = t.await;
            }
            if let Some(t) = err_task.as_mut() {
                let _ = t.await;
            }
            status
        };
        let timeout = async {
            match request.timeout {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending::<()>().await,
            }
        };
        let end = tokio::select! {
            status = finished => ShellEnd::Exited(exit_code(status?)),
            _ = timeout => ShellEnd::TimedOut,
            _ = request.cancel.cancelled() => ShellEnd::Cancelled,
        };
        // A command that exited on its own keeps any daemon it detached from its pipes.
        guard.disarm();
        if !matches!(end, ShellEnd::Exited(_)) {
            kill_group(pid);
            let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
            // The pipes close once every member of the group is gone; don't wait forever for a
            // process that escaped the group (setsid).
            for task in [out_task.as_mut(), err_task.as_mut()].into_iter().flatten() {
                let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
            }
        }
        let (stdout, stdout_dropped) = take(&out_buf);
        let (stderr, stderr_dropped) = take(&err_buf);
        Ok(ShellOutput {
            stdout,
            stderr,
            stdout_dropped,
            stderr_dropped,
            end,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::HeadTail;

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
}
