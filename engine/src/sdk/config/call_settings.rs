//! The session JSON's model-call settings: `context_window`, `tool_choice`, `temperature`,
//! `max_tokens`, `output_schema`.

use serde_json::{json, Map, Value};

use std::sync::Arc;

use crate::core::output_schema::OutputSchema;
use crate::core::tool_choice::ToolChoice;
use crate::sdk::config::document::SessionDocument;
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
    /// JSON Schema every turn's answer must match (structured output).
    pub output_schema: Option<Arc<OutputSchema>>,
}

impl CallSettings {
    /// The settings of a session document.
    pub fn of(doc: &SessionDocument) -> Self {
        CallSettings {
            context_window: doc.context_window,
            tool_choice: doc.tool_choice.clone(),
            temperature: doc.temperature.map(|t| t as f32),
            max_tokens: doc.max_tokens.and_then(|n| u32::try_from(n).ok()),
            // Checked when the document was read.
            output_schema: doc.output_schema.as_ref().and_then(|m| {
                OutputSchema::from_json("output_schema", &Value::Object(m.clone())).ok()
            }),
        }
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
        if let Some(s) = &self.output_schema {
            m.insert("output_schema".into(), s.schema().clone());
        }
    }
}

/// The `output_schema` field of `what` (absent or null: none), compiled.
pub fn output_schema(what: &str, v: Option<&Value>) -> SdkResult<Option<Arc<OutputSchema>>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => OutputSchema::from_json(&format!("{what}: field \"output_schema\""), v)
            .map(Some)
            .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e)),
    }
}
