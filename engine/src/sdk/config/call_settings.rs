//! The session JSON's model-call settings: `context_window`, `tool_choice`, `temperature`,
//! `max_tokens`.

use serde_json::{json, Map, Value};

use crate::core::tool_choice::ToolChoice;
use crate::sdk::config::fields::Fields;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};

/// Model-call settings of a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallSettings {
    /// Context window override (tokens).
    pub context_window: Option<u64>,
    /// Default tool choice of every turn.
    pub tool_choice: Option<ToolChoice>,
    /// Sampling temperature of every model call (0 to 2).
    pub temperature: Option<f32>,
    /// Output cap of every model call (tokens).
    pub max_tokens: Option<u32>,
}

fn bad(w: &str, key: &str, what: &str) -> SdkError {
    SdkError::config(format!("{w}: field \"{key}\" must be {what}"))
}

fn positive(w: &str, map: &Map<String, Value>, key: &str, max: u64) -> SdkResult<Option<u64>> {
    match map.field(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|n| (1..=max).contains(n))
            .map(Some)
            .ok_or_else(|| bad(w, key, &format!("an integer from 1 to {max}"))),
    }
}

impl CallSettings {
    /// Reads the settings from a session document (`w` names it in errors).
    pub fn parse(w: &str, map: &Map<String, Value>) -> SdkResult<Self> {
        let temperature = match map.field("temperature") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_f64()
                    .filter(|t| (0.0..=2.0).contains(t))
                    .ok_or_else(|| bad(w, "temperature", "a number from 0 to 2"))?
                    as f32,
            ),
        };
        let tool_choice = match map.field("tool_choice") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                ToolChoice::from_json(&format!("{w}: field \"tool_choice\""), v)
                    .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))?,
            ),
        };
        Ok(CallSettings {
            context_window: positive(w, map, "context_window", u64::MAX)?,
            tool_choice,
            temperature,
            max_tokens: positive(w, map, "max_tokens", u64::from(u32::MAX))?
                .and_then(|n| u32::try_from(n).ok()),
        })
    }

    /// The settings as session-document fields (those that are set).
    pub fn write(&self, m: &mut Map<String, Value>) {
        if let Some(w) = self.context_window {
            m.insert("context_window".into(), json!(w));
        }
        if let Some(t) = self.temperature {
            m.insert("temperature".into(), json!(t));
        }
        if let Some(n) = self.max_tokens {
            m.insert("max_tokens".into(), json!(n));
        }
        if let Some(t) = &self.tool_choice {
            m.insert("tool_choice".into(), t.to_json());
        }
    }
}
