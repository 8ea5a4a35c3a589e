//! `$ENV:NAME` references for secrets: resolved at use, never echoed.

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

/// Resolves `$ENV:NAME` to the variable's value (`None` when unset, empty or the name is empty);
/// any other string is returned as-is.
pub fn resolve_env_reference(value: &str) -> Option<String> {
    match value.strip_prefix(ENV_REFERENCE_PREFIX) {
        Some("") => None,
        Some(name) => std::env::var(name).ok().filter(|v| !v.is_empty()),
        None => Some(value.to_string()),
    }
}

/// True when `value` is non-empty and resolves to something.
pub fn has_usable_secret_reference(value: &str) -> bool {
    !value.is_empty() && resolve_env_reference(value).is_some()
}
