//! The OS sandbox of the Bash tool's commands: the session document's `sandbox`
//! ([`SandboxConfig`]) resolved against the session's working directory ([`Sandbox`]).
//!
//! On Linux a command runs under Landlock (writes only under the writable roots, no TCP unless
//! `network`, no reads of `deny_read`), with resource limits and a process cap
//! ([`spawn`]). Whatever cannot be enforced is reported once per session as a `WARNING`
//! `SANDBOX_UNAVAILABLE` ([`Sandbox::unavailable`]), and `fallback` decides whether commands
//! run without it or are refused. The file tools check the same roots ([`Sandbox::check_write`],
//! [`Sandbox::check_read`]).

#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(target_os = "linux")]
mod landlock_rules;
#[cfg(target_os = "linux")]
mod limits;
pub mod seatbelt;
pub mod spawn;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What commands may write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SandboxMode {
    /// No sandbox.
    #[serde(rename = "off")]
    Off,
    /// Writes under `cwd`, the session's temp dir and `writable` only.
    #[default]
    #[serde(rename = "workspace-write")]
    WorkspaceWrite,
    /// No writes except the session's temp dir.
    #[serde(rename = "read-only")]
    ReadOnly,
}

impl SandboxMode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
        }
    }
}

/// What happens when part of the sandbox cannot be enforced on this system.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Fallback {
    /// Commands run without the missing part (a `SANDBOX_UNAVAILABLE` warning says which).
    #[default]
    Unsandboxed,
    /// Every Bash call fails with a tool error naming what is missing.
    Refuse,
}

/// Resource limits of each command (and of each process it starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
#[serde(default, deny_unknown_fields)]
pub struct SandboxLimits {
    /// CPU seconds per process (`RLIMIT_CPU`; 0 = no limit).
    pub cpu_seconds: u64,
    /// Address space per process, MiB (`RLIMIT_AS`; 0 = no limit).
    pub address_space_mb: u64,
    /// Largest file a process may write, MiB (`RLIMIT_FSIZE`; 0 = no limit).
    pub file_size_mb: u64,
    /// Processes the command may have at once, itself included (0 = no limit).
    pub processes: u64,
}

impl Default for SandboxLimits {
    fn default() -> Self {
        SandboxLimits {
            cpu_seconds: 3600,
            address_space_mb: 32 * 1024,
            file_size_mb: 4 * 1024,
            processes: 1024,
        }
    }
}

/// The session document's `sandbox`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
#[serde(default, deny_unknown_fields)]
pub struct SandboxConfig {
    /// `workspace-write` (default), `read-only` or `off`.
    pub mode: SandboxMode,
    /// More writable directories (relative to `cwd`, or absolute; `~/` is the home directory).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub writable: Vec<String>,
    /// Paths commands and the file tools may not read (as `writable`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny_read: Vec<String>,
    /// TCP connections and listeners allowed (default `false`).
    pub network: bool,
    /// What to do when part of the sandbox cannot be enforced (default `unsandboxed`).
    pub fallback: Fallback,
    /// Resource limits.
    pub limits: SandboxLimits,
}

/// A session's sandbox: the configuration with its paths resolved, its private temp dir, and
/// what this system cannot enforce.
#[derive(Debug)]
pub struct Sandbox {
    config: SandboxConfig,
    /// Writable roots (absolute, symlinks resolved where they exist): cwd (workspace-write),
    /// the temp dir, `writable`.
    writable: Vec<PathBuf>,
    deny_read: Vec<PathBuf>,
    temp_dir: PathBuf,
    /// What this system cannot enforce, probed at the first question (the probes start a
    /// thread and create a cgroup: a session that runs no command never pays them).
    unavailable: OnceLock<Option<String>>,
    #[cfg(target_os = "linux")]
    cgroups: std::sync::Mutex<Vec<PathBuf>>,
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// `path` as an absolute path: `~/` is the home directory, a relative path is under `cwd`;
/// symlinks are resolved for the part that exists.
fn resolve_path(cwd: &Path, path: &str) -> Result<PathBuf, String> {
    if path.is_empty() {
        return Err("a path is empty".into());
    }
    let joined = match path.strip_prefix("~/") {
        Some(rest) => home_dir()
            .ok_or_else(|| format!("\"{path}\": HOME is not set"))?
            .join(rest),
        None => cwd.join(path),
    };
    Ok(canonical_prefix(&crate::tools::config::normalize_lexical(
        &joined,
    )))
}

/// The longest existing ancestor of `path` with symlinks resolved, the rest appended.
pub(crate) fn canonical_prefix(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(canon) = std::fs::canonicalize(&existing) {
            let mut out = canon;
            out.extend(rest.iter().rev());
            return out;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The `SANDBOX_UNAVAILABLE` warning of a session configured with `config` on this system
/// (`None` when it is off or fully enforced).
pub fn warning(config: &SandboxConfig) -> Option<String> {
    if config.mode == SandboxMode::Off {
        return None;
    }
    spawn::unavailable(config).map(|missing| warning_text(&missing, config.fallback))
}

fn warning_text(missing: &str, fallback: Fallback) -> String {
    match fallback {
        Fallback::Unsandboxed => format!(
            "sandbox unavailable: {missing}; commands run without it (sandbox.fallback \"unsandboxed\")"
        ),
        Fallback::Refuse => format!(
            "sandbox unavailable: {missing}; Bash commands are refused (sandbox.fallback \"refuse\")"
        ),
    }
}

impl Sandbox {
    /// Resolves `config` for a session working in `cwd` (absolute). `None` for mode `off`.
    /// The private temp dir is created by the first command and removed when the sandbox is
    /// dropped.
    pub fn new(config: SandboxConfig, cwd: &Path) -> Result<Option<Sandbox>, String> {
        if config.mode == SandboxMode::Off {
            return Ok(None);
        }
        let field = |name: &str, paths: &[String]| -> Result<Vec<PathBuf>, String> {
            paths
                .iter()
                .map(|p| resolve_path(cwd, p).map_err(|e| format!("field \"{name}\": {e}")))
                .collect()
        };
        let listed = field("writable", &config.writable)?;
        let deny_read = field("deny_read", &config.deny_read)?;
        let temp_dir = std::env::temp_dir().join(format!(
            "robota-sandbox-{}-{}",
            std::process::id(),
            crate::core::util::new_uuid()
        ));
        let temp_dir = canonical_prefix(&temp_dir);
        let mut writable = vec![temp_dir.clone()];
        if config.mode == SandboxMode::WorkspaceWrite {
            writable.push(canonical_prefix(cwd));
            writable.extend(listed);
        }
        Ok(Some(Sandbox {
            config,
            writable,
            deny_read,
            temp_dir,
            unavailable: OnceLock::new(),
            #[cfg(target_os = "linux")]
            cgroups: std::sync::Mutex::new(Vec::new()),
        }))
    }

    /// The configuration.
    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    /// The mode's wire name.
    pub fn mode_name(&self) -> &'static str {
        self.config.mode.as_str()
    }

    /// The writable roots (absolute).
    pub fn writable(&self) -> &[PathBuf] {
        &self.writable
    }

    /// The denied read paths (absolute).
    pub fn deny_read(&self) -> &[PathBuf] {
        &self.deny_read
    }

    /// The session's private temp dir (writable; the command's `TMPDIR`).
    pub fn temp_dir(&self) -> &Path {
        &self.temp_dir
    }

    /// What this system cannot enforce of the configuration (`None` = all of it).
    pub fn unavailable(&self) -> Option<&str> {
        self.unavailable
            .get_or_init(|| spawn::unavailable(&self.config))
            .as_deref()
    }

    /// The `SANDBOX_UNAVAILABLE` warning's text, when something is missing.
    pub fn warning(&self) -> Option<String> {
        self.unavailable()
            .map(|missing| warning_text(missing, self.config.fallback))
    }

    /// `Err` (the tool error) when commands must be refused on this system.
    pub fn refusal(&self) -> Result<(), String> {
        match (self.unavailable(), self.config.fallback) {
            (Some(missing), Fallback::Refuse) => Err(format!(
                "The sandbox cannot run this command: {missing} (sandbox.fallback is \"refuse\")"
            )),
            _ => Ok(()),
        }
    }

    /// `Err` naming the sandbox when a file tool may not write `path` (absolute, resolved).
    pub fn check_write(&self, path: &Path) -> Result<(), String> {
        if self.writable.iter().any(|root| path.starts_with(root)) {
            return Ok(());
        }
        Err(format!(
            "The sandbox ({}) does not allow writing {}: writable are {}",
            self.mode_name(),
            path.display(),
            self.writable
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    /// `Err` naming the sandbox when a file tool may not read `path` (absolute, resolved).
    pub fn check_read(&self, path: &Path) -> Result<(), String> {
        match self.deny_read.iter().find(|d| path.starts_with(d)) {
            Some(denied) => Err(format!(
                "The sandbox denies reading {} ({} is on sandbox.deny_read)",
                path.display(),
                denied.display()
            )),
            None => Ok(()),
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.temp_dir);
        #[cfg(target_os = "linux")]
        for dir in self
            .cgroups
            .get_mut()
            .map(std::mem::take)
            .unwrap_or_default()
        {
            cgroup::remove(&dir);
        }
    }
}

#[cfg(test)]
mod tests;
