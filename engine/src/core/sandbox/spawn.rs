//! Starting a command inside a [`Sandbox`].
//!
//! Linux: the command is spawned from a short-lived thread that restricted itself with Landlock
//! (Landlock and `no_new_privs` belong to a thread and pass to the children it forks, so the
//! host's own threads stay free and no code runs between `fork` and `exec`). For root the thread
//! also drops `CAP_SYS_RESOURCE` from its bounding set, so the command cannot raise its limits.
//! The command waits behind a gate — `sh -c 'read -r _ && exec sh -c "$0"' COMMAND`, stdin a
//! pipe — until the library has set its resource limits (`prlimit`) and moved it into a pids
//! cgroup; then the gate line is written and the command starts as `sh -c COMMAND`.
//!
//! macOS: `sandbox-exec` with the [`seatbelt`](super::seatbelt) profile. Elsewhere: no sandbox.

use std::io;

use super::{Sandbox, SandboxConfig};

/// The gate script: waits for one line on stdin, then runs the command (`$0`) as `sh -c`.
pub const GATE_SCRIPT: &str = "read -r _ && exec sh -c \"$0\"";

/// What the shell runner starts: the program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Argv {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The command waits for a gate line on stdin (write `\n` first, after [`spawn`] returned).
    pub gated: bool,
}

/// What part of `config` this system cannot enforce (`None` = all of it can be).
pub fn unavailable(config: &SandboxConfig) -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        let mut missing = Vec::new();
        let support = super::landlock_rules::support();
        if let Some(why) = &support.unusable {
            missing.push(why.clone());
        } else {
            if let (false, Some(why)) = (config.network, &support.network) {
                missing.push(why.clone());
            }
            missing.extend(support.scoping.clone());
        }
        if config.limits.processes > 0 {
            if let Some(why) = super::limits::process_cap_unavailable() {
                missing.push(why);
            }
        }
        (!missing.is_empty()).then(|| missing.join("; "))
    }
    #[cfg(target_os = "macos")]
    {
        let l = &config.limits;
        let limits = l.cpu_seconds + l.address_space_mb + l.file_size_mb + l.processes > 0;
        if !std::path::Path::new("/usr/bin/sandbox-exec").exists() {
            Some("/usr/bin/sandbox-exec is missing".into())
        } else {
            limits.then(|| "resource limits are enforced on Linux only".into())
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = config;
        Some("this platform has no command sandbox".into())
    }
}

/// The argv of `sh -c command` under `sandbox` (or plain when it is not enforced here).
pub fn argv(sandbox: &Sandbox, command: &str) -> Argv {
    let plain = Argv {
        program: "sh".into(),
        args: vec!["-c".into(), command.into()],
        gated: false,
    };
    #[cfg(target_os = "linux")]
    {
        let _ = (plain, sandbox);
        Argv {
            program: "sh".into(),
            args: vec!["-c".into(), GATE_SCRIPT.into(), command.into()],
            gated: true,
        }
    }
    #[cfg(target_os = "macos")]
    {
        if sandbox
            .unavailable()
            .is_some_and(|u| u.contains("sandbox-exec"))
        {
            return plain;
        }
        let profile = super::seatbelt::profile(&super::seatbelt::SeatbeltPolicy {
            writable: sandbox.writable(),
            deny_read: sandbox.deny_read(),
            network: sandbox.config().network,
        });
        let mut args = super::seatbelt::command_args(&profile, command);
        let program = args.remove(0);
        Argv {
            program,
            args,
            gated: false,
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = sandbox;
        plain
    }
}

/// The variables a sandboxed command gets on top of its environment: its private temp dir.
pub fn env(sandbox: &Sandbox) -> Vec<(String, String)> {
    let tmp = sandbox.temp_dir().to_string_lossy().into_owned();
    ["TMPDIR", "TMP", "TEMP"]
        .into_iter()
        .map(|k| (k.to_string(), tmp.clone()))
        .collect()
}

/// A started command's sandbox state: its cgroup (Linux, when the process cap uses one).
#[derive(Debug, Default)]
pub struct Confined {
    #[cfg(target_os = "linux")]
    cgroup: Option<super::cgroup::Cgroup>,
}

impl Confined {
    /// Resolves when the command hit the process cap (never when there is no cgroup); the
    /// answer is the cap.
    pub async fn process_cap_hit(&self) -> u64 {
        #[cfg(target_os = "linux")]
        if let Some(cg) = &self.cgroup {
            return cg.wait_for_cap().await;
        }
        std::future::pending().await
    }

    /// The cap, when the command hit it at some point (a fork was refused).
    pub fn cap_was_hit(&self) -> Option<u64> {
        #[cfg(target_os = "linux")]
        if let Some(cg) = &self.cgroup {
            return cg.was_hit();
        }
        None
    }

    /// Kills every process left in the command's cgroup.
    pub fn kill_all(&self) {
        #[cfg(target_os = "linux")]
        if let Some(cg) = &self.cgroup {
            cg.kill_all();
        }
    }

    /// Ends the cgroup: removed when empty, else kept for the sandbox to remove when the session
    /// ends (a daemon the command detached stays capped).
    pub fn finish(self, sandbox: &Sandbox) {
        #[cfg(target_os = "linux")]
        if let Some(cg) = self.cgroup {
            if let Some(left) = cg.finish() {
                if let Ok(mut list) = sandbox.cgroups.lock() {
                    list.push(left);
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = sandbox;
    }
}

/// Spawns `cmd` (built from [`argv`]) under `sandbox`. On Linux the child is restricted with
/// Landlock at birth and its limits and cgroup are set before this returns; the caller then
/// writes the gate line.
pub fn spawn(
    sandbox: &Sandbox,
    cmd: &mut tokio::process::Command,
) -> io::Result<(tokio::process::Child, Confined)> {
    std::fs::create_dir_all(sandbox.temp_dir())?;
    #[cfg(target_os = "linux")]
    {
        let run_unrestricted = super::landlock_rules::support().unusable.is_some();
        let child = if run_unrestricted {
            cmd.spawn()?
        } else {
            super::landlock_rules::spawn_restricted(sandbox, cmd)?
        };
        let confined = match super::limits::apply(sandbox, &child) {
            Ok(cgroup) => Confined { cgroup },
            Err(e) => {
                if let Some(pid) = child.id() {
                    super::limits::kill(pid);
                }
                return Err(io::Error::other(format!(
                    "the sandbox could not be set up: {e}"
                )));
            }
        };
        Ok((child, confined))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = sandbox;
        Ok((cmd.spawn()?, Confined::default()))
    }
}
