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

/// A source of variables read at every lookup (so its answers may change between lookups).
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Where `$ENV:NAME` (and hook `$NAME`) references are looked up: variables given explicitly
/// (a host's runtime config, a test) first, then a lookup function when one is set, then the
/// process environment. Cheap to clone. Passing variables this way never mutates the process
/// environment.
#[derive(Clone, Default)]
pub struct EnvVars {
    explicit: Option<Arc<BTreeMap<String, String>>>,
    lookup: Option<EnvLookup>,
}

impl std::fmt::Debug for EnvVars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnvVars")
            .field("explicit", &self.explicit)
            .field("lookup", &self.lookup.is_some())
            .finish()
    }
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
            lookup: None,
        }
    }

    /// `lookup` (asked at every lookup: what it answers may change from one to the next)
    /// first, then the process environment.
    pub fn with_lookup(lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        EnvVars {
            explicit: None,
            lookup: Some(Arc::new(lookup)),
        }
    }

    /// The variable's value (`None` when unset or not UTF-8).
    pub fn get(&self, name: &str) -> Option<String> {
        if let Some(v) = self.explicit.as_ref().and_then(|m| m.get(name)) {
            return Some(v.clone());
        }
        if let Some(v) = self.lookup.as_ref().and_then(|f| f(name)) {
            return Some(v);
        }
        std::env::var(name).ok()
    }

    /// Resolves `$ENV:NAME` to the variable's value (`None` when unset, empty or the name is
    /// empty); any other string is returned as-is. A resolved reference is a secret: no child
    /// process started afterwards inherits it ([`crate::core::child_env::register_secret`]).
    pub fn resolve(&self, value: &str) -> Option<String> {
        match value.strip_prefix(ENV_REFERENCE_PREFIX) {
            Some("") => None,
            Some(name) => {
                let value = self.get(name).filter(|v| !v.is_empty());
                crate::core::child_env::register_secret(name, value.as_deref());
                value
            }
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

    #[test]
    fn a_lookup_is_asked_at_every_lookup_before_the_process_environment() {
        let value = Arc::new(std::sync::Mutex::new("one".to_string()));
        let v2 = value.clone();
        let vars = EnvVars::with_lookup(move |name| {
            matches!(name, "ROBOTA_ENV_REF_LOOKUP" | "PATH").then(|| v2.lock().unwrap().clone())
        });
        assert_eq!(
            vars.resolve("$ENV:ROBOTA_ENV_REF_LOOKUP").as_deref(),
            Some("one")
        );
        *value.lock().unwrap() = "two".to_string();
        assert_eq!(
            vars.resolve("$ENV:ROBOTA_ENV_REF_LOOKUP").as_deref(),
            Some("two")
        );
        assert_eq!(vars.get("PATH").as_deref(), Some("two"));
        assert_eq!(vars.get("HOME"), std::env::var("HOME").ok());
        assert_eq!(std::env::var("ROBOTA_ENV_REF_LOOKUP").ok(), None);
    }
}
