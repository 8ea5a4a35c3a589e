//! Settings files (missing or empty files skipped): up to six layers, lowest → highest priority:
//! `~/.claude/settings.json`, `~/.robota/settings.json`, `<cwd>/.claude/settings.json`,
//! `<cwd>/.claude/settings.local.json`, `<cwd>/.robota/settings.json`,
//! `<cwd>/.robota/settings.local.json`: `.robota/` is the primary convention and beats the
//! Claude Code compatible `.claude/` file of the same scope. `"settings":"user"` reads the first
//! two, `"project"` all six, `"none"` (the default) none. `ROBOTA_HOME` replaces `~/.robota`.

mod layers;
mod merge;
pub mod provider;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::core::env_ref::EnvVars;
use crate::core::permissions::PermissionMode;

pub use layers::{load_layer, parse_layer, TRUST_LEVELS};
pub use merge::merge_into;

/// The model a settings file falls back to when its provider names none.
pub const DEFAULT_SETTINGS_MODEL: &str = "claude-opus-4-5";

/// Allow patterns every settings-enabled session starts with (before the settings' own allow list).
pub const DEFAULT_ALLOW: [&str; 6] = [
    "Read(.agents/**)",
    "Read(.claude/**)",
    "Read(.robota/**)",
    "Glob(.agents/**)",
    "Glob(.claude/**)",
    "Glob(.robota/**)",
];

/// Which layers a session reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsScope {
    /// No settings files.
    None,
    /// The two user files.
    User,
    /// All six files.
    Project,
}

impl SettingsScope {
    /// Parses the session JSON value.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "none" => Some(SettingsScope::None),
            "user" => Some(SettingsScope::User),
            "project" => Some(SettingsScope::Project),
            _ => None,
        }
    }
}

/// The user-level directories: `$ROBOTA_HOME` (else `$HOME/.robota`) and `$HOME/.claude`.
#[derive(Debug, Clone, Default)]
pub struct UserDirs {
    /// The robota user directory.
    pub robota: Option<PathBuf>,
    /// The claude user directory.
    pub claude: Option<PathBuf>,
}

impl UserDirs {
    /// Looks the directories up in `env` (`ROBOTA_HOME`, `HOME`).
    pub fn from_env(env: &EnvVars) -> Self {
        let home = env.get("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        UserDirs {
            robota: env
                .get("ROBOTA_HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".robota"))),
            claude: home.map(|h| h.join(".claude")),
        }
    }
}

/// The layer files of `scope`, lowest priority first.
pub fn layer_paths(scope: SettingsScope, cwd: &Path, dirs: &UserDirs) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if scope == SettingsScope::None {
        return out;
    }
    if let Some(c) = &dirs.claude {
        out.push(c.join("settings.json"));
    }
    if let Some(r) = &dirs.robota {
        out.push(r.join("settings.json"));
    }
    if scope == SettingsScope::Project {
        for (dir, file) in [
            (".claude", "settings.json"),
            (".claude", "settings.local.json"),
            (".robota", "settings.json"),
            (".robota", "settings.local.json"),
        ] {
            out.push(cwd.join(dir).join(file));
        }
    }
    out
}

/// What the merged layers give a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Resolved model (`None` when no layer has a provider block).
    pub model: Option<String>,
    /// `currentProvider`.
    pub current_provider: Option<String>,
    /// The resolved provider profile (`{type, model, apiKey?, baseURL?, timeout?}`, `$ENV:`
    /// already resolved): `providers[currentProvider]`, else the legacy `provider` block
    /// (`name` → `type`, default `anthropic`); `None` when neither is usable.
    pub provider: Option<Map<String, Value>>,
    /// `TRUST_TO_MODE[defaultTrustLevel]` (`None` when unset).
    pub permission_mode: Option<PermissionMode>,
    /// The trust level (`moderate` by default).
    pub trust_level: String,
    /// `permissions.allow`.
    pub allow: Vec<String>,
    /// `permissions.deny`.
    pub deny: Vec<String>,
    /// `hooks` (wholesale from the highest layer that has it).
    pub hooks: Option<Value>,
    /// `language`.
    pub language: Option<String>,
    /// `env`.
    pub env: BTreeMap<String, String>,
    /// `autoCompactThreshold` (`Some(None)` = disabled).
    pub auto_compact_threshold: Option<Option<f64>>,
    /// `enabledPlugins` (plugin name or `name@marketplace` → on/off).
    pub enabled_plugins: BTreeMap<String, bool>,
}

/// `safe→plan`, `moderate→default`, `full→acceptEdits`.
pub fn trust_to_mode(level: &str) -> Option<PermissionMode> {
    match level {
        "safe" => Some(PermissionMode::Plan),
        "moderate" => Some(PermissionMode::Default),
        "full" => Some(PermissionMode::AcceptEdits),
        _ => None,
    }
}

/// Reads the layers of `scope` and merges them; problems are appended to `warnings`.
pub fn load(
    scope: SettingsScope,
    cwd: &Path,
    dirs: &UserDirs,
    env: &EnvVars,
    warnings: &mut Vec<String>,
) -> Settings {
    let mut acc = Map::new();
    for path in layer_paths(scope, cwd, dirs) {
        if let Some(layer) = load_layer(&path, env, warnings) {
            merge_into(&mut acc, layer);
        }
    }
    resolve(&acc, warnings)
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Turns the merged document into [`Settings`].
pub fn resolve(m: &Map<String, Value>, warnings: &mut Vec<String>) -> Settings {
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let current_provider = s("currentProvider");
    let provider = provider::resolve_profile(m, current_provider.as_deref());
    let model = match &current_provider {
        Some(cp) => match m.get("providers").and_then(|p| p.get(cp)) {
            None => {
                warnings.push(format!(
                    "settings: currentProvider \"{cp}\" was not found in providers"
                ));
                None
            }
            Some(p) if p.get("type").is_none() => {
                warnings.push(format!(
                    "settings: Provider profile \"{cp}\" is missing type"
                ));
                None
            }
            Some(p) => Some(
                p.get("model")
                    .and_then(Value::as_str)
                    .unwrap_or(DEFAULT_SETTINGS_MODEL)
                    .to_string(),
            ),
        },
        None => m.get("provider").map(|p| {
            p.get("model")
                .and_then(Value::as_str)
                .unwrap_or(DEFAULT_SETTINGS_MODEL)
                .to_string()
        }),
    };
    let trust = s("defaultTrustLevel");
    let perms = m.get("permissions");
    Settings {
        model,
        current_provider,
        provider,
        permission_mode: trust.as_deref().and_then(trust_to_mode),
        trust_level: trust.unwrap_or_else(|| "moderate".into()),
        allow: strings(perms.and_then(|p| p.get("allow"))),
        deny: strings(perms.and_then(|p| p.get("deny"))),
        hooks: m.get("hooks").cloned(),
        language: s("language"),
        env: m
            .get("env")
            .and_then(Value::as_object)
            .map(|e| {
                e.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default(),
        auto_compact_threshold: m.get("autoCompactThreshold").map(Value::as_f64),
        enabled_plugins: m
            .get("enabledPlugins")
            .and_then(Value::as_object)
            .map(|e| {
                e.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_bool()?)))
                    .collect()
            })
            .unwrap_or_default(),
    }
}
