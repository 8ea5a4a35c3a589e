//! The capabilities a host provider is registered with (`capabilities_json`).

use serde_json::{Map, Value};

use crate::sdk::error::{parse_json, SdkError, SdkResult};

/// Retries of a recoverable failure when the capabilities name none.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// How long a call waits for the host's next event when the capabilities name no timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 300_000;

const KEYS: &[&str] = &[
    "models",
    "context_window",
    "max_output_tokens",
    "vision",
    "thinking",
    "max_retries",
    "timeout_ms",
];

/// What a host provider can do, from `{"models"?, "context_window"?, "max_output_tokens"?,
/// "vision"?, "thinking"?, "max_retries"?, "timeout_ms"?}`.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCaps {
    /// The model ids it serves (empty = any).
    pub models: Vec<String>,
    /// The context window of its models, when known.
    pub context_window: Option<u64>,
    /// Output limit sent when the session sets no `max_tokens`.
    pub max_output_tokens: Option<u32>,
    /// Whether requests may carry images.
    pub vision: bool,
    /// Whether a thinking budget is passed on.
    pub thinking: bool,
    /// Retries of a recoverable failure that delivered nothing.
    pub max_retries: u32,
    /// How long a call waits for the next event, in milliseconds.
    pub timeout_ms: u64,
}

impl Default for HostCaps {
    fn default() -> Self {
        HostCaps {
            models: Vec::new(),
            context_window: None,
            max_output_tokens: None,
            vision: false,
            thinking: false,
            max_retries: DEFAULT_MAX_RETRIES,
            timeout_ms: DEFAULT_TIMEOUT_MS,
        }
    }
}

impl HostCaps {
    /// Parses `capabilities_json` (`None` = `{}`); an unknown key or a wrong type is
    /// `InvalidConfig` naming it.
    pub fn parse(text: Option<&str>) -> SdkResult<HostCaps> {
        let Some(text) = text else {
            return Ok(HostCaps::default());
        };
        let Value::Object(map) = parse_json("capabilities_json", text)? else {
            return Err(SdkError::config(
                "capabilities_json: expected a JSON object",
            ));
        };
        if let Some(k) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(SdkError::config(format!(
                "capabilities_json: unknown key \"{k}\" (known: {})",
                KEYS.join(", ")
            )));
        }
        let mut caps = HostCaps::default();
        if let Some(v) = map.get("models") {
            caps.models = models(v)?;
        }
        caps.context_window = uint(&map, "context_window", 1, u64::MAX)?;
        caps.max_output_tokens =
            uint(&map, "max_output_tokens", 1, u64::from(u32::MAX))?.map(|n| n as u32);
        caps.vision = flag(&map, "vision")?.unwrap_or(false);
        caps.thinking = flag(&map, "thinking")?.unwrap_or(false);
        if let Some(n) = uint(&map, "max_retries", 0, 10)? {
            caps.max_retries = n as u32;
        }
        // At most ~49 days: a deadline that far is as good as none and never overflows.
        if let Some(n) = uint(&map, "timeout_ms", 1, u64::from(u32::MAX))? {
            caps.timeout_ms = n;
        }
        Ok(caps)
    }
}

fn models(v: &Value) -> SdkResult<Vec<String>> {
    let wrong =
        || SdkError::config("capabilities_json: \"models\" must be an array of non-empty strings");
    let Value::Array(items) = v else {
        return Err(wrong());
    };
    items
        .iter()
        .map(|m| match m.as_str() {
            Some(s) if !s.is_empty() => Ok(s.to_string()),
            _ => Err(wrong()),
        })
        .collect()
}

fn uint(map: &Map<String, Value>, key: &str, min: u64, max: u64) -> SdkResult<Option<u64>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(SdkError::config(format!(
                "capabilities_json: \"{key}\" must be an integer from {min} to {max}"
            ))),
        },
    }
}

fn flag(map: &Map<String, Value>, key: &str) -> SdkResult<Option<bool>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(SdkError::config(format!(
            "capabilities_json: \"{key}\" must be true or false"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_key_and_refuses_unknown_ones() {
        let caps = HostCaps::parse(Some(
            r#"{"models":["a","b"],"context_window":8192,"max_output_tokens":512,"vision":true,
                "thinking":true,"max_retries":0,"timeout_ms":50}"#,
        ))
        .unwrap_or_default();
        assert_eq!(
            caps,
            HostCaps {
                models: vec!["a".into(), "b".into()],
                context_window: Some(8192),
                max_output_tokens: Some(512),
                vision: true,
                thinking: true,
                max_retries: 0,
                timeout_ms: 50,
            }
        );
        assert_eq!(HostCaps::parse(None).ok(), Some(HostCaps::default()));
        let e = HostCaps::parse(Some(r#"{"window":1}"#))
            .err()
            .map(|e| e.message);
        assert_eq!(
            e.as_deref(),
            Some("capabilities_json: unknown key \"window\" (known: models, context_window, max_output_tokens, vision, thinking, max_retries, timeout_ms)")
        );
        let e = HostCaps::parse(Some(r#"{"timeout_ms":0}"#))
            .err()
            .map(|e| e.message);
        assert_eq!(
            e.as_deref(),
            Some("capabilities_json: \"timeout_ms\" must be an integer from 1 to 4294967295")
        );
    }
}
