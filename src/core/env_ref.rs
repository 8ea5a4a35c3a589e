//! `$ENV:NAME` references for secrets: resolved at use, never echoed, from an [`EnvVars`]
//! (variables the host passed explicitly, then the process environment).

use std::collections::BTreeMap;
use std::sync::Arc;

/// The canonical prefix.
pub const ENV_REFERENCE_PREFIX: &str = "$ENV:";

/// True when `value` starts with `$ENV:`.
pub fn is_env_reference(value: &str) -> bool {
    value.starts_with(ENV_REFERENCE_PREFIX)
}

/// `$ENV:<name>`.
pub fn format_env_reference(name: &str) -> String {
    format!("{ENV_REFERENCE_PREFIX}{name}")
}

/// Where `$ENV:NAME` (and hook `$NAME`) references are looked up: variables given explicitly
/// (a host's runtime config, a test) first, then the process environment. Cheap to clone.
/// Passing variables this way never mutates the process environment.
#[derive(Debug, Clone, Default)]
pub struct EnvVars {
    explicit: Option<Arc<BTreeMap<String, String>>>,
}

impl EnvVars {
    /// The process environment only.
    pub fn process() -> Self {
        Self::default()
    }

    /// `vars` first, then the process environment.
    pub fn with_vars(vars: BTreeMap<String, String>) -> Self {
        EnvVars {
            explicit: (!vars.is_empty()).then(|| Arc::new(vars)),
        }
    }

    /// The variable's value (`None` when unset or not UTF-8).
    pub fn get(&self, name: &str) -> Option<String> {
        if let Some(v) = self.explicit.as_ref().and_then(|m| m.get(name)) {
            return Some(v.clone());
        }
        std::env::var(name).ok()
    }

    /// Resolves `$ENV:NAME` to the variable's value (`None` when unset, empty or the name is
    /// empty); any other string is returned as-is.
    pub fn resolve(&self, value: &str) -> Option<String> {
        match value.strip_prefix(ENV_REFERENCE_PREFIX) {
            Some("") => None,
            Some(name) => self.get(name).filter(|v| !v.is_empty()),
            None => Some(value.to_string()),
        }
    }
}

/// [`EnvVars::resolve`] against the process environment.
pub fn resolve_env_reference(value: &str) -> Option<String> {
    EnvVars::process().resolve(value)
}

/// True when `value` is non-empty and resolves to something (process environment).
pub fn has_usable_secret_reference(value: &str) -> bool {
    !value.is_empty() && resolve_env_reference(value).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_vars_win_and_nothing_is_mutated() {
        let vars = EnvVars::with_vars(BTreeMap::from([
            ("ROBOTA_ENV_REF_TEST".to_string(), "explicit".to_string()),
            ("PATH".to_string(), "/only/this".to_string()),
        ]));
        assert_eq!(
            vars.resolve("$ENV:ROBOTA_ENV_REF_TEST").as_deref(),
            Some("explicit")
        );
        assert_eq!(vars.get("PATH").as_deref(), Some("/only/this"));
        assert_eq!(std::env::var("ROBOTA_ENV_REF_TEST").ok(), None);
        assert_eq!(EnvVars::process().resolve("$ENV:ROBOTA_ENV_REF_TEST"), None);
        assert_eq!(vars.resolve("plain").as_deref(), Some("plain"));
        assert_eq!(vars.resolve("$ENV:"), None);
    }
}
