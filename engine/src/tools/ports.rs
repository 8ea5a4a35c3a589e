//! Host-virtualizable I/O: the two small seams every built-in tool reaches the outside through.
//!
//! * [`FsPort`] — the file system (read, atomic write, metadata, directory listing, canonicalize).
//!   It is synchronous on purpose: file operations block by nature, host callbacks across the C ABI
//!   are synchronous, and the tools call the port from `spawn_blocking` threads.
//! * [`ProcessPort`] — running one shell command with cwd/env/stdin, capturing stdout and stderr,
//!   with a timeout and cancellation that end the whole process group.
//!
//! The defaults are [`StdFs`](super::std_fs::StdFs) and [`TokioProcess`](super::std_process::TokioProcess).
//! A host replaces them to put the tools on top of an asset store, a sandbox, or "no shell at all"
//! ([`DisabledProcess`](super::std_process::DisabledProcess)).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::core::child_env::ChildEnvPolicy;
use crate::core::sandbox::Sandbox;

/// What a path is (after following symlinks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Anything else (device, socket, fifo, dangling link).
    Other,
}

/// Metadata of one path (symlinks followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMeta {
    /// File, directory or other.
    pub kind: FileKind,
    /// Size in bytes.
    pub len: u64,
    /// Last modification time, when known.
    pub modified: Option<SystemTime>,
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntryInfo {
    /// The entry's file name (no directory part).
    pub name: String,
    /// Its kind (symlinks followed; a dangling link is `Other`).
    pub kind: FileKind,
}

/// The file-system seam of the built-in tools.
///
/// Paths handed to the port are always absolute (the tools resolve relative paths against their
/// working directory first). Errors are `std::io::Error`s; their text reaches the model.
pub trait FsPort: Send + Sync {
    /// Metadata of `path`, following symlinks. `NotFound` when it does not exist.
    fn metadata(&self, path: &Path) -> io::Result<FileMeta>;
    /// The whole content of a file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Replaces (or creates) a file atomically: readers see the old or the new content, never a
    /// mix. Parent directories are created as needed; an existing file's permissions are kept.
    fn write_atomic(&self, path: &Path, data: &[u8]) -> io::Result<()>;
    /// The entries of a directory (without `.` and `..`), in the port's natural order.
    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntryInfo>>;
    /// The absolute path with `.`, `..` and symlinks resolved.
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf>;
    /// True when paths name files of the operating system's own file system, so Glob and Grep
    /// may hand them to ripgrep's native parallel walker (`ignore`) and searcher
    /// (`grep-searcher`). Ports that return `false` (the default) get a sequential walk made of
    /// [`read_dir`](Self::read_dir) / [`read`](Self::read) calls, with the same filtering rules
    /// (`.gitignore` files read through the port, `.git`/`node_modules` skipped).
    fn is_native(&self) -> bool {
        false
    }
}

/// One shell command to run.
#[derive(Debug, Clone)]
pub struct ShellRequest {
    /// The command line, run as `sh -c <command>`.
    pub command: String,
    /// Working directory (absolute).
    pub cwd: PathBuf,
    /// Variables added to (or overriding) what the environment policy keeps.
    pub env: Vec<(String, String)>,
    /// Which of the host's variables the command inherits (the session's `tool_env`).
    pub env_policy: Arc<ChildEnvPolicy>,
    /// The session's OS sandbox (`None` = off). A host's own port enforces what it can.
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
}

impl ShellRequest {
    /// A request with no extra env, the default environment policy, no sandbox, no stdin, no timeout, a fresh token and a 10 MiB cap per stream.
    pub fn new(command: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        ShellRequest {
            command: command.into(),
            cwd: cwd.into(),
            env: Vec::new(),
            env_policy: ChildEnvPolicy::shared_default(),
            sandbox: None,
            stdin: None,
            timeout: None,
            cancel: CancellationToken::new(),
            max_output_bytes: 10 * 1024 * 1024,
        }
    }
}

pub use crate::core::shell::{ShellEnd, ShellOutput};

/// The process seam of the built-in tools.
#[async_trait]
pub trait ProcessPort: Send + Sync {
    /// Runs one shell command to its end (exit, timeout or cancellation). `Err` only when it
    /// could not be started (missing working directory, no shell, processes disabled, ...).
    async fn run_shell(&self, request: ShellRequest) -> io::Result<ShellOutput>;
}
