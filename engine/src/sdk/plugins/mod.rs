//! Local bundle plugins, in Claude Code's plugin folder shape: a folder with a manifest
//! ([`manifest`]) and any of `commands/`, `skills/`, `agents/`, `hooks/hooks.json` and
//! `.mcp.json` ([`contents`]). A session loads the plugins [`discover()`] finds (the host's
//! `plugin_dirs`, and those of `.robota/plugins/` and `~/.robota/plugins/` that
//! `enabledPlugins` turns on) and adds their commands and skills, agents, hooks and MCP servers
//! to its own, every name qualified by the plugin. Nothing is ever downloaded: there is no
//! marketplace and no remote install.

pub mod contents;
pub mod discover;
pub mod manifest;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::core::env_ref::EnvVars;
use crate::sdk::config::SessionConfig;
use crate::sdk::settings::{SettingsScope, UserDirs};

pub use contents::{load, PluginContents};
pub use discover::{discover, enabled_state, Plugin, PluginSources};

/// Where a session with settings `scope` looks for plugins: `host_dirs`, then
/// `<cwd>/.robota/plugins` (`"project"`), then `<robota user dir>/plugins` (`"user"`, `"project"`).
pub fn sources(
    scope: SettingsScope,
    cwd: &Path,
    dirs: &UserDirs,
    host_dirs: &[PathBuf],
    enabled: BTreeMap<String, bool>,
) -> PluginSources {
    let mut parents = Vec::new();
    if scope == SettingsScope::Project {
        parents.push(cwd.join(".robota/plugins"));
    }
    if scope != SettingsScope::None {
        parents.extend(dirs.robota.as_ref().map(|r| r.join("plugins")));
    }
    PluginSources {
        host_dirs: host_dirs.to_vec(),
        parents,
        enabled,
    }
}

/// Adds what `c` brings to `cfg`; an entry whose name is already there is not added twice (a
/// forked or resumed session's config already holds its plugins' hooks and servers).
pub fn add_to(cfg: &mut SessionConfig, c: PluginContents) {
    let mut skills = cfg.params.skills.as_ref().clone();
    for s in c.skills {
        if !skills.iter().any(|k| k.name == s.name) {
            skills.push(s);
        }
    }
    cfg.params.skills = Arc::new(skills);
    let mut agents = cfg.params.agents.all.as_ref().clone();
    for a in c.agents {
        if !agents.iter().any(|k| k.name == a.name) {
            agents.push(a);
        }
    }
    cfg.params.agents.all = Arc::new(agents);
    if let Some(h) = c.hooks {
        let hooks = cfg.hooks.get_or_insert_with(Default::default);
        for (event, groups) in h.events {
            let list = hooks.events.entry(event).or_default();
            for g in groups {
                if !list.contains(&g) {
                    list.push(g);
                }
            }
        }
    }
    for m in c.mcp_servers {
        if !cfg.mcp_servers.iter().any(|x| x.name == m.name) {
            cfg.mcp_servers.push(m);
        }
    }
}

/// Loads the plugins of a host's session (not of a subagent: it inherits its parent's) into
/// `cfg`; `enabled` is the settings' `enabledPlugins`. Problems become `cfg.params.warnings`.
pub fn apply(
    cfg: &mut SessionConfig,
    host_dirs: &[PathBuf],
    enabled: BTreeMap<String, bool>,
    env: &EnvVars,
) {
    if cfg.params.agents.depth > 0 {
        return;
    }
    let scope = SettingsScope::parse(&cfg.settings).unwrap_or(SettingsScope::None);
    if scope == SettingsScope::None && host_dirs.is_empty() {
        return;
    }
    load_all(cfg, scope, host_dirs, enabled, env);
}

/// Finds and loads the plugins `apply` reads. Never inlined: its frame (2.7 KB) stays off a
/// host thread's stack when a session has no plugins to read.
#[inline(never)]
fn load_all(
    cfg: &mut SessionConfig,
    scope: SettingsScope,
    host_dirs: &[PathBuf],
    enabled: BTreeMap<String, bool>,
    env: &EnvVars,
) {
    let cwd = crate::sdk::project::context::absolute(Path::new(&cfg.cwd));
    let src = sources(scope, &cwd, &UserDirs::from_env(env), host_dirs, enabled);
    let mut warnings = std::mem::take(&mut cfg.params.warnings);
    let cwd_text = cwd.to_string_lossy().into_owned();
    for p in discover(&src, &mut warnings) {
        let c = load(&p, &cwd_text, &mut warnings);
        if !cfg.params.plugins.iter().any(|n| n == p.name()) {
            cfg.params.plugins.push(p.name().to_string());
        }
        add_to(cfg, c);
    }
    cfg.params.warnings = warnings;
}
