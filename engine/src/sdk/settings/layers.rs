//! One settings file (only `cwd` itself, no walk-up): read, validated field by field, `$ENV:`
//! resolved. A file that is missing or empty is skipped; a file that is not a JSON object, or a
//! field of the wrong shape, becomes a warning naming the file and the field (the field is dropped,
//! the rest of the layer still applies). Unknown keys are dropped silently.

use std::path::Path;

use serde_json::{Map, Value};

use crate::core::env_ref::{EnvVars, ENV_REFERENCE_PREFIX};
use crate::core::hooks::HooksConfig;

/// Trust levels a `defaultTrustLevel` may name.
pub const TRUST_LEVELS: [&str; 3] = ["safe", "moderate", "full"];

/// Reads and validates one layer. `Ok(None)` when the file is missing or empty.
pub fn load_layer(
    path: &Path,
    env: &EnvVars,
    warnings: &mut Vec<String>,
) -> Option<Map<String, Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            warnings.push(format!(
                "settings file {}: cannot be read: {e}",
                path.display()
            ));
            return None;
        }
    };
    parse_layer(&text, &path.display().to_string(), env, warnings)
}

/// Validates the text of one settings file named `file` (in warnings), as [`load_layer`] does
/// after reading it. `None` when the text is blank.
pub fn parse_layer(
    text: &str,
    file: &str,
    env: &EnvVars,
    warnings: &mut Vec<String>,
) -> Option<Map<String, Value>> {
    if text.trim().is_empty() {
        return None;
    }
    let map = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            warnings.push(format!(
                "settings file {file}: must be a JSON object; file skipped"
            ));
            return None;
        }
        Err(e) => {
            warnings.push(format!(
                "settings file {file}: is not valid JSON ({e}); file skipped"
            ));
            return None;
        }
    };
    let mut w = Check {
        file,
        env,
        warnings,
    };
    let mut out = Map::new();
    for (key, value) in map {
        if let Some(v) = w.field(&key, value) {
            out.insert(key, v);
        }
    }
    Some(out)
}

struct Check<'a> {
    file: &'a str,
    env: &'a EnvVars,
    warnings: &'a mut Vec<String>,
}

impl Check<'_> {
    fn bad(&mut self, field: &str, what: &str) -> Option<Value> {
        self.warnings.push(format!(
            "settings file {}: field \"{field}\" {what}; field ignored",
            self.file
        ));
        None
    }

    /// `$ENV:NAME` → the variable's value; an unset variable drops the field with a warning
    /// naming the variable (never its value).
    fn string(&mut self, field: &str, v: Value) -> Option<Value> {
        let Value::String(s) = v else {
            return self.bad(field, "must be a string");
        };
        match s.strip_prefix(ENV_REFERENCE_PREFIX) {
            None => Some(Value::String(s)),
            Some(name) => match self.env.resolve(&s) {
                Some(val) => Some(Value::String(val)),
                None => self.bad(
                    field,
                    &format!("refers to environment variable \"{name}\", which is not set"),
                ),
            },
        }
    }

    fn string_list(&mut self, field: &str, v: Value) -> Option<Value> {
        match v {
            Value::Array(a) if a.iter().all(Value::is_string) => Some(Value::Array(a)),
            _ => self.bad(field, "must be an array of strings"),
        }
    }

    fn object(&mut self, field: &str, v: Value) -> Option<Map<String, Value>> {
        match v {
            Value::Object(m) => Some(m),
            _ => {
                self.bad(field, "must be an object");
                None
            }
        }
    }

    /// A provider profile (`providers.<name>`) or the legacy `provider` block.
    fn profile(&mut self, field: &str, v: Value, name_key: &str) -> Option<Value> {
        let m = self.object(field, v)?;
        let mut out = Map::new();
        for (k, v) in m {
            let f = format!("{field}.{k}");
            let kept = match k.as_str() {
                "model" | "apiKey" | "baseURL" => self.string(&f, v),
                k if k == name_key => self.string(&f, v),
                "timeout" => match v.as_f64() {
                    Some(n) if n > 0.0 => Some(v),
                    _ => self.bad(&f, "must be a positive number of milliseconds"),
                },
                "options" => self.object(&f, v).map(Value::Object),
                _ => None,
            };
            if let Some(v) = kept {
                out.insert(k, v);
            }
        }
        Some(Value::Object(out))
    }

    fn field(&mut self, key: &str, v: Value) -> Option<Value> {
        match key {
            "defaultTrustLevel" => match v.as_str() {
                Some(s) if TRUST_LEVELS.contains(&s) => Some(v),
                _ => self.bad(key, "must be \"safe\", \"moderate\" or \"full\""),
            },
            "language" | "currentProvider" => self.string(key, v),
            "provider" => self.profile(key, v, "name"),
            "providers" => {
                let m = self.object(key, v)?;
                let mut out = Map::new();
                for (name, p) in m {
                    if let Some(p) = self.profile(&format!("providers.{name}"), p, "type") {
                        out.insert(name, p);
                    }
                }
                Some(Value::Object(out))
            }
            "permissions" => {
                let m = self.object(key, v)?;
                let mut out = Map::new();
                for (k, v) in m {
                    if k == "allow" || k == "deny" {
                        if let Some(v) = self.string_list(&format!("permissions.{k}"), v) {
                            out.insert(k, v);
                        }
                    }
                }
                Some(Value::Object(out))
            }
            "env" => {
                let m = self.object(key, v)?;
                let mut out = Map::new();
                for (k, v) in m {
                    if let Some(v) = self.string(&format!("env.{k}"), v) {
                        out.insert(k, v);
                    }
                }
                Some(Value::Object(out))
            }
            "hooks" => match HooksConfig::from_json(&v) {
                Ok(_) => Some(v),
                Err(e) => self.bad(key, &format!("is not a valid hooks config: {e}")),
            },
            "enabledPlugins" => match &v {
                Value::Object(m) if m.values().all(Value::is_boolean) => Some(v),
                _ => self.bad(key, "must be an object of name → true/false"),
            },
            "autoCompactThreshold" => match &v {
                Value::Bool(false) => Some(v),
                Value::Number(n) if n.as_f64().is_some_and(|x| x > 0.0 && x <= 1.0) => Some(v),
                _ => self.bad(key, "must be a number in (0, 1] or false"),
            },
            "extraKnownMarketplaces" | "transports" => self.object(key, v).map(Value::Object),
            _ => None,
        }
    }
}
