//! `tool_choice`: whether the model may, must or must not call a tool, or which one
//! (`"auto"` | `"none"` | `"required"` | `{"name":"TOOL"}`). A session default and a per-turn
//! override; `required` and a named tool hold for the turn's first model call only (then
//! `auto`, so the answer after the tool can be text, as the OpenAI Agents SDK resets it),
//! `none` for every call of the turn. Its JSON form is [`ToolChoiceDocument`] (the session
//! document's `tool_choice`, schema included).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::errors::RobotaError;

/// The tool choice of a model call: `"auto"`, `"none"`, `"required"` or `{"name":"TOOL"}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "ToolChoiceDocument", into = "ToolChoiceDocument")]
pub enum ToolChoice {
    /// The model decides (vendor default).
    #[default]
    Auto,
    /// No tool call.
    None,
    /// At least one tool call.
    Required,
    /// A call to this tool.
    Tool(String),
}

/// `tool_choice` as JSON: `"auto"`, `"none"`, `"required"` or `{"name":"TOOL"}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolChoiceDocument {
    /// `auto`, `none` or `required`.
    Mode(ToolChoiceMode),
    /// A call to the named tool.
    Tool(NamedTool),
}

/// The tool-choice modes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// No tool call.
    None,
    /// Some tool call.
    Required,
}

/// `{"name":"TOOL"}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NamedTool {
    /// Tool name.
    #[schemars(length(min = 1))]
    pub name: String,
}

impl TryFrom<ToolChoiceDocument> for ToolChoice {
    type Error = &'static str;
    fn try_from(d: ToolChoiceDocument) -> Result<Self, Self::Error> {
        Ok(match d {
            ToolChoiceDocument::Mode(ToolChoiceMode::Auto) => ToolChoice::Auto,
            ToolChoiceDocument::Mode(ToolChoiceMode::None) => ToolChoice::None,
            ToolChoiceDocument::Mode(ToolChoiceMode::Required) => ToolChoice::Required,
            ToolChoiceDocument::Tool(NamedTool { name }) if name.is_empty() => {
                return Err("the tool name is empty")
            }
            ToolChoiceDocument::Tool(NamedTool { name }) => ToolChoice::Tool(name),
        })
    }
}

impl From<ToolChoice> for ToolChoiceDocument {
    fn from(c: ToolChoice) -> Self {
        match c {
            ToolChoice::Auto => ToolChoiceDocument::Mode(ToolChoiceMode::Auto),
            ToolChoice::None => ToolChoiceDocument::Mode(ToolChoiceMode::None),
            ToolChoice::Required => ToolChoiceDocument::Mode(ToolChoiceMode::Required),
            ToolChoice::Tool(name) => ToolChoiceDocument::Tool(NamedTool { name }),
        }
    }
}

impl ToolChoice {
    /// Parses the JSON form; `what` names the field in errors.
    pub fn from_json(what: &str, v: &Value) -> Result<Self, RobotaError> {
        ToolChoice::deserialize(v).map_err(|_| {
            RobotaError::Configuration(format!(
                "{what} must be \"auto\", \"none\", \"required\" or {{\"name\":\"TOOL\"}}, got {v}"
            ))
        })
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Fails when a named tool is not among `tools` (names the tool and what exists).
    pub fn check<'a>(
        &self,
        what: &str,
        mut tools: impl Iterator<Item = &'a str>,
    ) -> Result<(), RobotaError> {
        match self {
            ToolChoice::Tool(n) if !tools.any(|t| t == n) => Err(RobotaError::Configuration(
                format!("{what}: the session has no tool named \"{n}\""),
            )),
            _ => Ok(()),
        }
    }

    /// The choice for round `round` (1-based) of a turn.
    pub fn for_round(&self, round: u32) -> &ToolChoice {
        match self {
            ToolChoice::Required | ToolChoice::Tool(_) if round > 1 => &ToolChoice::Auto,
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forms() {
        for (v, c) in [
            (json!("auto"), ToolChoice::Auto),
            (json!("none"), ToolChoice::None),
            (json!("required"), ToolChoice::Required),
            (json!({"name": "Read"}), ToolChoice::Tool("Read".into())),
        ] {
            assert_eq!(ToolChoice::from_json("tool_choice", &v).unwrap(), c);
            assert_eq!(c.to_json(), v);
        }
        for v in [
            json!("any"),
            json!(3),
            json!({"name": ""}),
            json!({"type": "x"}),
            json!({"name": "Read", "type": "x"}),
        ] {
            let e = ToolChoice::from_json("tool_choice", &v).unwrap_err();
            assert!(e
                .to_string()
                .starts_with("Configuration Error: tool_choice must be"));
        }
        let named = ToolChoice::Tool("X".into());
        assert_eq!(
            named
                .check("tool_choice", ["Read"].into_iter())
                .unwrap_err()
                .to_string(),
            "Configuration Error: tool_choice: the session has no tool named \"X\""
        );
        assert_eq!(named.for_round(1), &named);
        assert_eq!(named.for_round(2), &ToolChoice::Auto);
        assert_eq!(ToolChoice::None.for_round(3), &ToolChoice::None);
    }
}
