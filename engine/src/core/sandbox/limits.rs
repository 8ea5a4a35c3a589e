//! Resource limits of a sandboxed command, set from outside with `prlimit` while it waits at
//! its gate, and its process cap (a pids cgroup, else `RLIMIT_NPROC` for a host not running as
//! root).

use std::io;

use rustix::process::{prlimit, Pid, Resource, Rlimit};

use super::cgroup::{self, Cgroup};
use super::Sandbox;

const MIB: u64 = 1024 * 1024;

/// Why the process cap cannot be enforced here (`None` = it can).
pub(super) fn process_cap_unavailable() -> Option<String> {
    if cgroup::available() || !rustix::process::geteuid().is_root() {
        return None;
    }
    Some(
        "the process limit needs a writable pids cgroup when the host runs as root \
         (the kernel does not apply RLIMIT_NPROC to root)"
            .into(),
    )
}

fn set(pid: Pid, resource: Resource, value: u64) -> io::Result<()> {
    if value == 0 {
        return Ok(());
    }
    let limit = Rlimit {
        current: Some(value),
        maximum: Some(value),
    };
    prlimit(Some(pid), resource, limit)?;
    Ok(())
}

/// Threads of the host's real user now (what `RLIMIT_NPROC` counts: every task).
fn user_tasks() -> u64 {
    use std::os::unix::fs::MetadataExt;
    let uid = rustix::process::getuid().as_raw();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid))
        .map(|e| {
            std::fs::read_to_string(e.path().join("status"))
                .ok()
                .and_then(|s| {
                    s.lines()
                        .find_map(|l| l.strip_prefix("Threads:"))
                        .and_then(|n| n.trim().parse().ok())
                })
                .unwrap_or(1)
        })
        .sum()
}

/// Sets the limits of the command `child` (waiting at its gate) and, when the process cap uses
/// a cgroup, moves it there.
pub(super) fn apply(
    sandbox: &Sandbox,
    child: &tokio::process::Child,
) -> io::Result<Option<Cgroup>> {
    let pid = child
        .id()
        .and_then(|p| i32::try_from(p).ok())
        .and_then(Pid::from_raw)
        .ok_or_else(|| io::Error::other("the command ended before its limits were set"))?;
    let l = sandbox.config().limits;
    set(pid, Resource::Cpu, l.cpu_seconds)?;
    set(pid, Resource::As, l.address_space_mb.saturating_mul(MIB))?;
    set(pid, Resource::Fsize, l.file_size_mb.saturating_mul(MIB))?;
    if l.processes == 0 {
        return Ok(None);
    }
    if cgroup::available() {
        let cg = Cgroup::create(l.processes)?;
        cg.add(pid.as_raw_nonzero().get() as u32)?;
        return Ok(Some(cg));
    }
    if !rustix::process::geteuid().is_root() {
        set(pid, Resource::Nproc, user_tasks() + l.processes)?;
    }
    Ok(None)
}

/// `SIGKILL` to the process `pid` (setting up its sandbox failed).
pub(super) fn kill(pid: u32) {
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}
