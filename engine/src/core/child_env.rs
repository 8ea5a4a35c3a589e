//! What environment a child process gets: the Bash tool's commands, command hooks, skill shell
//! spans and stdio MCP servers all start from [`ChildEnvPolicy::environment`].
//!
//! The session document's `tool_env` sets the policy (`inherit`, `exclude`, `include_only`,
//! `set`). Whatever it says, a value the library resolved as a secret (a `$ENV:NAME` reference
//! in a provider profile, a hook or an MCP server's config) never reaches a child: the variable
//! it came from and every inherited variable holding the value are removed ([`register_secret`]).

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Names removed by default (case-insensitive globs): what Codex scrubs from its shell.
pub const DEFAULT_EXCLUDES: [&str; 4] = ["*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*"];

/// The variables `inherit: "core"` keeps: what a shell needs to find programs, the user, the
/// locale and a temporary directory.
pub const CORE_VARIABLES: [&str; 13] = [
    "HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "LANG",
    "LC_ALL", "LC_CTYPE", "TZ",
];

/// Secret values shorter than this are matched by variable name only (a short value would
/// remove ordinary variables that happen to contain it).
const MIN_SECRET_VALUE_LEN: usize = 8;

/// Which of the host process's variables a child starts from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Inherit {
    /// Every variable (minus the exclusions).
    #[default]
    All,
    /// Only [`CORE_VARIABLES`] (minus the exclusions).
    Core,
    /// None: only `set` (and what the caller adds).
    None,
}

/// The session document's `tool_env`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
#[serde(default, deny_unknown_fields)]
pub struct ChildEnvPolicy {
    /// Which inherited variables are kept before the filters apply (default `all`).
    pub inherit: Inherit,
    /// More names to remove (case-insensitive globs, `*` = any run of characters), added to
    /// `*KEY*`, `*SECRET*`, `*TOKEN*`, `*PASSWORD*`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// When given, only inherited variables matching one of these globs are kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_only: Option<Vec<String>>,
    /// Variables every child gets, whatever the filters say (values are used as given).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub set: BTreeMap<String, String>,
}

/// Names and values the library resolved from `$ENV:` references, process-wide.
#[derive(Default)]
struct Secrets {
    names: HashSet<String>,
    values: HashSet<String>,
}

fn secrets() -> &'static Mutex<Secrets> {
    static SECRETS: OnceLock<Mutex<Secrets>> = OnceLock::new();
    SECRETS.get_or_init(Mutex::default)
}

/// Records that `name` was resolved as a secret to `value` (`None` when it was unset): no
/// child started afterwards gets a variable of that name or one holding that value.
pub fn register_secret(name: &str, value: Option<&str>) {
    let mut s = secrets().lock().unwrap_or_else(|p| p.into_inner());
    if !name.is_empty() && !s.names.contains(name) {
        s.names.insert(name.to_string());
    }
    if let Some(v) = value.filter(|v| v.len() >= MIN_SECRET_VALUE_LEN) {
        if !s.values.contains(v) {
            s.values.insert(v.to_string());
        }
    }
}

/// Registers every `$ENV:NAME` string in `value` (a config document) by name, with its value
/// from `lookup`, before anything is started.
pub fn register_references(value: &serde_json::Value, lookup: &dyn Fn(&str) -> Option<String>) {
    match value {
        serde_json::Value::String(s) => {
            if let Some(name) = s.strip_prefix(crate::core::env_ref::ENV_REFERENCE_PREFIX) {
                register_secret(name, lookup(name).as_deref());
            }
        }
        serde_json::Value::Array(items) => {
            items.iter().for_each(|v| register_references(v, lookup))
        }
        serde_json::Value::Object(map) => map.values().for_each(|v| register_references(v, lookup)),
        _ => {}
    }
}

/// True when `name` matches the glob `pattern` (`*` = any run), ignoring ASCII case. Linear
/// in practice: a mismatch goes back only to the last `*` (a pattern of many stars cannot make
/// it exponential).
pub fn name_matches(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i].eq_ignore_ascii_case(&n[j]) {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

impl ChildEnvPolicy {
    /// The default policy (inherit all, the default exclusions), shared.
    pub fn shared_default() -> Arc<ChildEnvPolicy> {
        static DEFAULT: OnceLock<Arc<ChildEnvPolicy>> = OnceLock::new();
        DEFAULT.get_or_init(Arc::default).clone()
    }

    /// A pattern of `exclude` or `include_only` that is empty, or a `set` name that is empty or
    /// holds `=` or NUL: the message names it.
    pub fn validate(&self) -> Result<(), String> {
        let patterns = self.exclude.iter().map(|p| ("exclude", p));
        let only = self
            .include_only
            .iter()
            .flatten()
            .map(|p| ("include_only", p));
        if let Some((field, _)) = patterns.chain(only).find(|(_, p)| p.is_empty()) {
            return Err(format!("field \"{field}\": a pattern is empty"));
        }
        for (name, value) in &self.set {
            if name.is_empty() || name.contains(['=', '\0']) {
                return Err(format!("field \"set\": \"{name}\" is not a variable name"));
            }
            if value.contains('\0') {
                return Err(format!(
                    "field \"set\": the value of \"{name}\" holds a NUL"
                ));
            }
        }
        Ok(())
    }

    fn keeps(&self, name: &str, value: &OsString, secrets: &Secrets) -> bool {
        if self.inherit == Inherit::Core && !CORE_VARIABLES.contains(&name) {
            return false;
        }
        if let Some(only) = &self.include_only {
            if !only.iter().any(|p| name_matches(p, name)) {
                return false;
            }
        }
        let excluded = DEFAULT_EXCLUDES
            .iter()
            .copied()
            .chain(self.exclude.iter().map(String::as_str))
            .any(|p| name_matches(p, name));
        if excluded || secrets.names.contains(name) {
            return false;
        }
        let value = value.to_string_lossy();
        !secrets.values.iter().any(|s| value.contains(s.as_str()))
    }

    /// The whole environment of a child: the inherited variables the policy keeps, then
    /// `extra` (the caller's own: the settings `env` map, a hook's input, an MCP server's
    /// `env`), then `set`.
    pub fn environment(&self, extra: &[(String, String)]) -> Vec<(OsString, OsString)> {
        let mut out: Vec<(OsString, OsString)> = Vec::new();
        if self.inherit != Inherit::None {
            let secrets = secrets().lock().unwrap_or_else(|p| p.into_inner());
            out.extend(
                std::env::vars_os()
                    .filter(|(k, v)| k.to_str().is_some_and(|name| self.keeps(name, v, &secrets))),
            );
        }
        let mut put = |k: &str, v: &str| {
            out.retain(|(name, _)| name != k);
            out.push((k.into(), v.into()));
        };
        for (k, v) in extra {
            put(k, v);
        }
        for (k, v) in &self.set {
            put(k, v);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(env: &[(OsString, OsString)]) -> Vec<String> {
        env.iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn globs_match_case_insensitively() {
        assert!(name_matches("*KEY*", "openai_api_key"));
        assert!(name_matches("*TOKEN*", "GITHUB_TOKEN"));
        assert!(name_matches("PATH", "path"));
        assert!(!name_matches("*KEY*", "PATH"));
        assert!(name_matches("AWS_*", "AWS_REGION"));
        assert!(!name_matches("AWS_*", "MY_AWS_REGION"));
        assert!(name_matches("*", ""));
        assert!(!name_matches("", "A"));
        assert!(name_matches("A*B*C", "AxxBxxC"));
        assert!(!name_matches("A*B*C", "AxxCxxB"));
        // Many stars against a long miss stays fast (the recursive form took minutes).
        let long = "A".repeat(4096);
        assert!(!name_matches(&format!("{}B", "*A".repeat(64)), &long));
    }

    #[test]
    fn the_default_policy_drops_secret_looking_names_and_registered_secrets() {
        // PATH is in every test environment; the others are looked at by name only.
        let env = ChildEnvPolicy::default().environment(&[
            ("ROBOTA_CE_TOKEN".into(), "from-extra".into()),
            ("PLAIN".into(), "x".into()),
        ]);
        let n = names(&env);
        assert!(n.contains(&"PATH".to_string()));
        // `extra` is the caller's own choice: kept even when it looks like a secret.
        assert!(n.contains(&"ROBOTA_CE_TOKEN".to_string()));
        assert!(n.contains(&"PLAIN".to_string()));
        assert!(!n
            .iter()
            .any(|k| name_matches("*KEY*", k) && k != "ROBOTA_CE_TOKEN"));
    }

    #[test]
    fn inherit_none_and_include_only_and_set() {
        let mut p = ChildEnvPolicy {
            inherit: Inherit::None,
            ..Default::default()
        };
        p.set.insert("ONLY".into(), "1".into());
        assert_eq!(names(&p.environment(&[])), vec!["ONLY".to_string()]);
        let p = ChildEnvPolicy {
            include_only: Some(vec!["PATH".into()]),
            ..Default::default()
        };
        assert_eq!(names(&p.environment(&[])), vec!["PATH".to_string()]);
        let p = ChildEnvPolicy {
            inherit: Inherit::Core,
            ..Default::default()
        };
        assert!(names(&p.environment(&[]))
            .iter()
            .all(|k| CORE_VARIABLES.contains(&k.as_str())));
    }

    #[test]
    fn a_registered_value_is_removed_under_any_name() {
        let path = std::env::var("PATH").unwrap_or_default();
        // A registered name goes whatever its value.
        register_secret("ROBOTA_CE_REGISTERED_NAME", None);
        let p = ChildEnvPolicy::default();
        assert!(!p.keeps(
            "ROBOTA_CE_REGISTERED_NAME",
            &"v".into(),
            &secrets().lock().unwrap()
        ));
        register_secret("ROBOTA_CE_UNUSED", Some("sk-robota-secret-value"));
        let s = secrets().lock().unwrap();
        assert!(!p.keeps("AUTH", &"Bearer sk-robota-secret-value".into(), &s));
        assert!(p.keeps("PATH", &path.into(), &s));
    }

    #[test]
    fn bad_documents_are_named() {
        let p: ChildEnvPolicy =
            serde_json::from_value(serde_json::json!({"set": {"A=B": "1"}})).unwrap();
        assert_eq!(
            p.validate().unwrap_err(),
            "field \"set\": \"A=B\" is not a variable name"
        );
        let e = serde_json::from_value::<ChildEnvPolicy>(serde_json::json!({"inherit": "some"}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown variant `some`"), "{e}");
        let e = serde_json::from_value::<ChildEnvPolicy>(serde_json::json!({"exclud": []}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `exclud`"), "{e}");
    }
}
