//! The Landlock ruleset of a [`Sandbox`] and the restricted spawner thread.

use std::io;
#[cfg(feature = "sandbox")]
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

#[cfg(feature = "sandbox")]
use landlock::{
    AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, LandlockStatus, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope, ABI,
};

use super::Sandbox;

/// The newest Landlock ABI the rules use (abstract Unix sockets and signals scoped: Linux 6.12).
#[cfg(feature = "sandbox")]
const TARGET: ABI = ABI::V6;

/// Files every command may write whatever the mode.
#[cfg(feature = "sandbox")]
const DEVICES: [&str; 4] = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// What the kernel's Landlock cannot do, probed once: each field says why, `None` = it can.
#[derive(Debug, Clone, Default)]
pub(super) struct Support {
    /// Landlock cannot be used at all.
    pub unusable: Option<String>,
    /// TCP cannot be restricted (before ABI 4).
    pub network: Option<String>,
    /// Signals and abstract Unix sockets cannot be scoped (before ABI 6).
    pub scoping: Option<String>,
}

/// What this kernel's Landlock supports.
pub(super) fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(probe)
}

#[cfg(feature = "sandbox")]
fn probe() -> Support {
    // Restricting a throwaway thread is the one way to learn what the kernel enforces.
    let status = std::thread::spawn(|| {
        Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_write(TARGET))
            .and_then(|r| r.create())
            .and_then(|r| r.restrict_self())
            .map(|s| s.landlock)
            // The crate's error texts are not linked (size): the status says enough.
            .map_err(|_| ())
    })
    .join();
    let unusable = |why: String| Support {
        unusable: Some(why),
        ..Default::default()
    };
    match status {
        Ok(Ok(LandlockStatus::Available { effective_abi, .. })) => {
            let abi = effective_abi as i32;
            Support {
                unusable: None,
                network: (abi < ABI::V4 as i32).then(|| {
                    "network rules need Landlock ABI 4 (Linux 6.7); TCP stays open".to_string()
                }),
                scoping: (abi < ABI::V6 as i32).then(|| {
                    "signals and abstract Unix sockets reach processes outside the sandbox \
                     (scoped from Landlock ABI 6, Linux 6.12)"
                        .to_string()
                }),
            }
        }
        Ok(Ok(_)) => unusable(
            "Landlock is not available in this kernel (Linux 5.13 or newer with Landlock enabled is needed)".into(),
        ),
        Ok(Err(())) => unusable("Landlock refused a ruleset".into()),
        Err(_) => unusable("Landlock could not be probed".into()),
    }
}

/// Adds a rule granting `access` beneath `path`; a path that does not exist (or cannot be
/// opened) gets no rule. Files get only the rights a file can have.
#[cfg(feature = "sandbox")]
fn grant(
    ruleset: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> io::Result<RulesetCreated> {
    let Ok(fd) = PathFd::new(path) else {
        return Ok(ruleset);
    };
    let access = if path.is_dir() {
        access
    } else {
        access & AccessFs::from_file(TARGET)
    };
    if access.is_empty() {
        return Ok(ruleset);
    }
    ruleset
        .add_rule(PathBeneath::new(fd, access))
        .map_err(|_| io::Error::other(format!("Landlock refused a rule for {}", path.display())))
}

/// Grants `read` on everything beneath `dir` except the denied paths: entries leading to a
/// denied path are descended into (and may be listed); the others are granted whole.
#[cfg(feature = "sandbox")]
fn grant_reads(
    mut ruleset: RulesetCreated,
    dir: &Path,
    deny: &[PathBuf],
    read: BitFlags<AccessFs>,
) -> io::Result<RulesetCreated> {
    ruleset = grant(ruleset, dir, AccessFs::ReadDir.into())?;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(ruleset);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if deny.iter().any(|d| d == &path) {
            continue;
        }
        ruleset = if deny.iter().any(|d| d.starts_with(&path)) {
            grant_reads(ruleset, &path, deny, read)?
        } else {
            grant(ruleset, &path, read)?
        };
    }
    Ok(ruleset)
}

/// Restricts the calling thread (and so every process it starts) to `sandbox`'s rules.
#[cfg(feature = "sandbox")]
fn restrict(sandbox: &Sandbox) -> io::Result<()> {
    let err =
        |_: landlock::RulesetError| io::Error::other("Landlock refused the sandbox's ruleset");
    let write = AccessFs::from_write(TARGET);
    let read = AccessFs::from_read(TARGET);
    let deny = sandbox.deny_read();
    let handled = if deny.is_empty() { write } else { write | read };
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(handled)
        .map_err(err)?;
    if !sandbox.config().network {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(err)?;
    }
    let mut created = ruleset
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(err)?
        .create()
        .map_err(err)?;
    for root in sandbox.writable() {
        created = grant(created, root, write)?;
    }
    for device in DEVICES {
        created = grant(created, Path::new(device), write)?;
    }
    if !deny.is_empty() {
        created = grant_reads(created, Path::new("/"), deny, read)?;
    }
    created.restrict_self().map_err(err)?;
    Ok(())
}

/// Without the `sandbox` feature there is no Landlock: commands run without it.
#[cfg(not(feature = "sandbox"))]
fn probe() -> Support {
    Support {
        unusable: Some("this library was built without Landlock (the `sandbox` feature)".into()),
        ..Default::default()
    }
}

/// Without the `sandbox` feature: a plain spawn (never called: Landlock is unusable).
#[cfg(not(feature = "sandbox"))]
pub(super) fn spawn_restricted(
    _sandbox: &Sandbox,
    cmd: &mut tokio::process::Command,
) -> io::Result<tokio::process::Child> {
    cmd.spawn()
}

/// Drops `CAP_SYS_RESOURCE` and `CAP_SYS_PTRACE` from the calling thread's bounding set when
/// it runs as root, so a command it starts can neither raise the limits it is given nor trace
/// processes outside the sandbox on the strength of the capability.
#[cfg(feature = "sandbox")]
fn drop_root_capabilities() -> io::Result<()> {
    if rustix::process::geteuid().is_root() {
        use rustix::thread::{remove_capability_from_bounding_set, CapabilitySet};
        remove_capability_from_bounding_set(CapabilitySet::SYS_RESOURCE)?;
        remove_capability_from_bounding_set(CapabilitySet::SYS_PTRACE)?;
    }
    Ok(())
}

/// Spawns `cmd` from a fresh thread restricted to `sandbox` (the caller's thread stays free).
#[cfg(feature = "sandbox")]
pub(super) fn spawn_restricted(
    sandbox: &Sandbox,
    cmd: &mut tokio::process::Command,
) -> io::Result<tokio::process::Child> {
    let handle = tokio::runtime::Handle::current();
    std::thread::scope(|s| {
        s.spawn(|| {
            drop_root_capabilities()?;
            restrict(sandbox)?;
            let _runtime = handle.enter();
            cmd.spawn()
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the sandboxed spawn panicked")))
    })
}
