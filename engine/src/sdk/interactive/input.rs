//! A prompt as the host submits it, and how a finished turn ended.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::core::message::Part;
use crate::core::output_schema::OutputSchema;
use crate::core::tool_choice::ToolChoice;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};

/// One prompt.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TurnInput {
    /// What the model gets.
    pub text: String,
    /// What the UI shows (default: `text`).
    pub display_input: Option<String>,
    /// What hooks match on (default: `text`).
    pub raw_input: Option<String>,
    /// Tool choice of this turn only (wins over the session's `tool_choice`).
    pub tool_choice: Option<ToolChoice>,
    /// The JSON Schema this turn's answer must match (wins over the session's).
    pub output_schema: Option<Arc<OutputSchema>>,
    /// `(name, args)` of the host command this `/name args` input runs (asked at turn start).
    pub host_command: Option<(String, String)>,
    /// Images sent after `text` in the user message (see [`super::images`]).
    pub images: Vec<Part>,
    /// The skill this input invokes (see [`SkillInvocation`]).
    pub skill: Option<SkillInvocation>,
}

/// A skill the user invoked (by command or `/name args` input): its turn records a
/// `skill-invocation` history entry `{"skillName","displayInput"}`; a `context: fork` skill's
/// turn runs it in a fork worker instead of calling the model.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillInvocation {
    /// The skill.
    pub skill: crate::sdk::config::skill::Skill,
    /// Its arguments.
    pub args: String,
    /// What the user typed (`/name args`).
    pub display_input: String,
}

impl TurnInput {
    /// Parses `{"text":"…","display_input"?,"raw_input"?,"tool_choice"?,"output_schema"?,
    /// "images"?}`; an
    /// image `path` that is relative is read from the process's working directory (see
    /// [`Self::from_json_in`]).
    pub fn from_json(text: &str) -> SdkResult<Self> {
        Self::from_json_in(text, Path::new("."))
    }

    /// [`Self::from_json`] with relative image paths read from `cwd` (a session's working
    /// directory). The image files are read now: a bad image fails the parse.
    pub fn from_json_in(text: &str, cwd: &Path) -> SdkResult<Self> {
        let map = crate::sdk::config::parse_object("input_json", text)?;
        crate::sdk::config::check_strict(
            "input_json",
            &map,
            &[
                "text",
                "display_input",
                "raw_input",
                "tool_choice",
                "output_schema",
                "images",
            ],
        )?;
        let field = |k: &str| -> SdkResult<Option<String>> {
            match map.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(SdkError::config(format!(
                    "input_json: field \"{k}\" must be a string"
                ))),
            }
        };
        let text = field("text")?
            .ok_or_else(|| SdkError::config("input_json: missing required field \"text\""))?;
        Ok(TurnInput {
            text,
            display_input: field("display_input")?,
            raw_input: field("raw_input")?,
            tool_choice: match map.get("tool_choice") {
                None | Some(Value::Null) => None,
                Some(v) => Some(
                    ToolChoice::from_json("input_json: field \"tool_choice\"", v)
                        .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))?,
                ),
            },
            output_schema: crate::sdk::config::call_settings::output_schema(
                "input_json",
                map.get("output_schema"),
            )?,
            host_command: None,
            images: super::images::parse("input_json", map.get("images"), cwd)?,
            skill: None,
        })
    }

    /// The user message the model is sent: `text`, then the images as parts after it.
    pub fn user_message(&self) -> crate::core::message::Message {
        let mut m = crate::core::message::Message::user(self.text.clone());
        if !self.images.is_empty() {
            let mut parts = Vec::with_capacity(1 + self.images.len());
            parts.push(Part::Text {
                text: self.text.clone(),
            });
            parts.extend(self.images.iter().cloned());
            m.parts = Some(parts);
        }
        m
    }
}

/// How a finished turn ended (for `wait`).
#[derive(Debug, Clone, PartialEq)]
pub enum TurnOutcome {
    /// Complete, max_rounds or context_limit.
    Done,
    /// Aborted (also a queued prompt dropped by abort/cancel_queue/close).
    Aborted,
    /// Failed with this message and its taxonomy details (`{"v","code","category",
    /// "recoverable","message"}`).
    Failed(String, Value),
    /// Stopped by the session's budget (this message names the limit).
    Budget(String),
    /// Ran, but its save met a conflict in the session store (message, details
    /// `{"code":"CONFLICT",…}`): nothing was overwritten.
    Conflict(String, Value),
}
