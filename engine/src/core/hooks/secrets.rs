//! Secret handling for hook executors: `$ENV:NAME` / `$NAME` resolution at use time, and
//! redaction of every resolved value from anything a hook hands back (stdout, stderr, errors).

use once_cell::sync::Lazy;
use regex::Regex;

use crate::core::env_ref::{is_env_reference, EnvVars};

/// Text that replaces a secret value.
pub const REDACTED: &str = "[REDACTED]";

/// Secrets shorter than this are not redacted (too likely to hit ordinary text).
const MIN_REDACT_LEN: usize = 4;

/// Collects resolved secret values and removes them from text.
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// Remembers `value` as a secret.
    pub fn add(&mut self, value: &str) {
        if value.len() >= MIN_REDACT_LEN && !self.secrets.iter().any(|s| s == value) {
            self.secrets.push(value.to_string());
            // Longest first so a secret containing another is removed whole.
            self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    /// `text` with every remembered secret replaced by [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), REDACTED);
            }
        }
        out
    }
}

/// Resolves a whole-value `$ENV:NAME` reference (unset → empty) and records it as a secret;
/// any other value is returned unchanged.
pub fn resolve_secret_value(value: &str, vars: &EnvVars, redactor: &mut Redactor) -> String {
    if !is_env_reference(value) {
        return value.to_string();
    }
    match vars.resolve(value) {
        Some(v) => {
            redactor.add(&v);
            v
        }
        None => String::new(),
    }
}

static VAR: Lazy<Option<Regex>> =
    Lazy::new(|| Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)").ok());

/// Interpolates a header value: a whole `$ENV:NAME` reference resolves to the variable; otherwise
/// every `$NAME` / `${NAME}` is replaced by the variable's value, an unset variable staying
/// literal. Every substituted value is recorded as a secret.
pub fn interpolate_header(value: &str, vars: &EnvVars, redactor: &mut Redactor) -> String {
    if is_env_reference(value) {
        return match vars.resolve(value) {
            Some(v) => {
                redactor.add(&v);
                v
            }
            None => value.to_string(),
        };
    }
    let Some(re) = VAR.as_ref() else {
        return value.to_string();
    };
    re.replace_all(value, |caps: &regex::Captures<'_>| {
        let name = caps
            .get(1)
            .or_else(|| caps.get(2))
            .map_or("", |m| m.as_str());
        match vars.get(name) {
            Some(v) => {
                redactor.add(&v);
                v
            }
            None => caps
                .get(0)
                .map_or_else(String::new, |m| m.as_str().to_string()),
        }
    })
    .into_owned()
}
