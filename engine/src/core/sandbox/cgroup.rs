//! A pids cgroup per sandboxed command: the kernel caps how many processes it may have, and
//! the library sees when the cap was hit (`pids.events`) and ends the whole tree.
//!
//! Used where the host may create cgroups: the cgroup v1 `pids` hierarchy, or cgroup v2 when
//! the host's cgroup is the root and has the `pids` controller enabled for its children.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// How often a running command's `pids.events` is read.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// Rounds of "list, kill" when ending a cgroup whose processes keep forking.
const KILL_ROUNDS: usize = 200;

/// The directory new cgroups are created in, when this process may create them.
fn parent() -> Option<&'static Path> {
    static PARENT: OnceLock<Option<PathBuf>> = OnceLock::new();
    PARENT.get_or_init(find_parent).as_deref()
}

/// True when commands can get a pids cgroup.
pub(super) fn available() -> bool {
    parent().is_some()
}

fn find_parent() -> Option<PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut candidates = Vec::new();
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let rel = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            candidates.push(Path::new("/sys/fs/cgroup/pids").join(rel));
        } else if controllers.is_empty() && rel.is_empty() {
            for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                let control =
                    std::fs::read_to_string(Path::new(root).join("cgroup.subtree_control"));
                if control.is_ok_and(|c| c.split_whitespace().any(|c| c == "pids")) {
                    candidates.push(PathBuf::from(root));
                }
            }
        }
    }
    candidates.into_iter().find(|dir| {
        let probe = dir.join(format!("robota-probe-{}", std::process::id()));
        let ok = std::fs::create_dir(&probe).is_ok() && probe.join("pids.max").exists();
        let _ = std::fs::remove_dir(&probe);
        ok
    })
}

/// One command's cgroup.
#[derive(Debug)]
pub(super) struct Cgroup {
    dir: PathBuf,
    max: u64,
}

impl Cgroup {
    /// A new cgroup allowing `max` processes.
    pub(super) fn create(max: u64) -> io::Result<Cgroup> {
        let parent = parent().ok_or_else(|| io::Error::other("no pids cgroup"))?;
        let dir = parent.join(format!(
            "robota-{}-{}",
            std::process::id(),
            crate::core::util::new_uuid()
        ));
        std::fs::create_dir(&dir)?;
        let cg = Cgroup { dir, max };
        std::fs::write(cg.dir.join("pids.max"), max.to_string())?;
        Ok(cg)
    }

    /// Moves process `pid` (and so what it will start) into the cgroup.
    pub(super) fn add(&self, pid: u32) -> io::Result<()> {
        std::fs::write(self.dir.join("cgroup.procs"), pid.to_string())
    }

    fn cap_hits(&self) -> u64 {
        std::fs::read_to_string(self.dir.join("pids.events"))
            .ok()
            .and_then(|s| {
                s.lines().find_map(|l| {
                    l.strip_prefix("max ")
                        .map(|n| n.trim().parse().unwrap_or(0))
                })
            })
            .unwrap_or(0)
    }

    /// The cap, when a fork was refused because of it.
    pub(super) fn was_hit(&self) -> Option<u64> {
        (self.cap_hits() > 0).then_some(self.max)
    }

    /// Resolves (with the cap) once a fork was refused because of the cap.
    pub(super) async fn wait_for_cap(&self) -> u64 {
        loop {
            if let Some(max) = self.was_hit() {
                return max;
            }
            tokio::time::sleep(WATCH_EVERY).await;
        }
    }

    /// Kills every process in the cgroup.
    pub(super) fn kill_all(&self) {
        kill_all(&self.dir);
    }

    /// Removes the cgroup when it is empty; else returns it (a detached daemon still runs).
    pub(super) fn finish(self) -> Option<PathBuf> {
        std::fs::remove_dir(&self.dir).err().map(|_| self.dir)
    }
}

fn kill_all(dir: &Path) {
    for _ in 0..KILL_ROUNDS {
        let Ok(procs) = std::fs::read_to_string(dir.join("cgroup.procs")) else {
            return;
        };
        let pids: Vec<_> = procs
            .lines()
            .filter_map(|l| l.trim().parse::<i32>().ok())
            .filter_map(rustix::process::Pid::from_raw)
            .collect();
        if pids.is_empty() {
            return;
        }
        for pid in pids {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

/// Ends what is left in a kept cgroup and removes it (the session ended).
pub(super) fn remove(dir: &Path) {
    kill_all(dir);
    for _ in 0..KILL_ROUNDS {
        if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
            return;
        }
        std::thread::yield_now();
    }
}
