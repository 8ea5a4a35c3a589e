//! Which plugin folders a session loads: the host's (the runtime JSON's `plugin_dirs`, each one
//! plugin folder, loaded unless `enabledPlugins` turns it off), then every folder of
//! `<cwd>/.robota/plugins/` (settings `"project"`) and of `~/.robota/plugins/` (settings `"user"`
//! or `"project"`) whose plugin `enabledPlugins` turns on. First name wins; a bad manifest is a
//! warning naming the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::manifest::{self, Manifest};
use crate::sdk::commands::skills::entries;

/// A plugin folder with a valid manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    /// Its manifest.
    pub manifest: Manifest,
    /// The plugin folder (`${CLAUDE_PLUGIN_ROOT}`).
    pub root: PathBuf,
}

impl Plugin {
    /// The plugin's name.
    pub fn name(&self) -> &str {
        &self.manifest.name
    }
}

/// Where plugins are looked for and which are on.
#[derive(Debug, Clone, Default)]
pub struct PluginSources {
    /// Plugin folders the host registered.
    pub host_dirs: Vec<PathBuf>,
    /// Folders holding one plugin folder each (`.robota/plugins`, `~/.robota/plugins`), in
    /// priority order.
    pub parents: Vec<PathBuf>,
    /// The merged settings' `enabledPlugins`.
    pub enabled: BTreeMap<String, bool>,
}

/// What `enabledPlugins` says of plugin `name`: keys `name` and `name@<marketplace>` count;
/// `false` under any of them wins over `true`; `None` when no key names it.
pub fn enabled_state(enabled: &BTreeMap<String, bool>, name: &str) -> Option<bool> {
    let mut state = None;
    for (key, on) in enabled {
        let plugin = key.split_once('@').map_or(key.as_str(), |(p, _)| p);
        if plugin == name {
            if !on {
                return Some(false);
            }
            state = Some(true);
        }
    }
    state
}

/// The plugin of folder `root`: `Ok(None)` when it has no manifest.
fn open(root: &Path) -> Result<Option<Plugin>, String> {
    let Some(file) = manifest::find(root) else {
        return Ok(None);
    };
    Ok(Some(Plugin {
        manifest: manifest::read(&file)?,
        root: root.to_path_buf(),
    }))
}

fn folder_name(root: &Path) -> String {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn no_manifest(root: &Path) -> String {
    format!(
        "plugin folder {} has no manifest ({}); plugin skipped",
        root.display(),
        manifest::MANIFEST_PATHS.join(" or ")
    )
}

/// Adds `p` unless a plugin of its name is already there (then a warning, unless it is the same
/// folder found twice).
fn push(found: &mut Vec<Plugin>, p: Plugin, warnings: &mut Vec<String>) {
    match found.iter().find(|f| f.name() == p.name()) {
        Some(first) if first.root == p.root => {}
        Some(first) => warnings.push(format!(
            "plugin \"{}\" at {} skipped: a plugin of that name is loaded from {}",
            p.name(),
            p.root.display(),
            first.root.display()
        )),
        None => found.push(p),
    }
}

/// The plugins a session loads, in priority order; problems become `warnings`.
pub fn discover(src: &PluginSources, warnings: &mut Vec<String>) -> Vec<Plugin> {
    let mut found = Vec::new();
    for root in &src.host_dirs {
        match open(root) {
            Ok(Some(p)) if enabled_state(&src.enabled, p.name()) == Some(false) => {}
            Ok(Some(p)) => push(&mut found, p, warnings),
            Ok(None) => warnings.push(no_manifest(root)),
            Err(e) => warnings.push(e),
        }
    }
    for parent in &src.parents {
        for root in entries(parent).into_iter().filter(|d| d.is_dir()) {
            match open(&root) {
                Ok(Some(p)) if enabled_state(&src.enabled, p.name()) == Some(true) => {
                    push(&mut found, p, warnings)
                }
                Ok(Some(_)) => {}
                Ok(None) if enabled_state(&src.enabled, &folder_name(&root)) == Some(true) => {
                    warnings.push(no_manifest(&root))
                }
                Ok(None) => {}
                Err(e) => warnings.push(e),
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enabled_keys_with_and_without_marketplace() {
        let m: BTreeMap<String, bool> = [
            ("a".to_string(), true),
            ("b@market".to_string(), true),
            ("c@x".to_string(), true),
            ("c".to_string(), false),
        ]
        .into();
        assert_eq!(enabled_state(&m, "a"), Some(true));
        assert_eq!(enabled_state(&m, "b"), Some(true));
        assert_eq!(enabled_state(&m, "c"), Some(false));
        assert_eq!(enabled_state(&m, "d"), None);
        assert_eq!(enabled_state(&m, "b@market"), None);
    }
}
