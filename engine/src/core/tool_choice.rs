//! `tool_choice`: whether the model may, must or must not call a tool, or which one
//! (`"auto"` | `"none"` | `"required"` | `{"name":"TOOL"}`). A session default and a per-turn
//! override; `required` and a named tool hold for the turn's first model call only (then
//! `auto`, so the answer after the tool can be text, as the OpenAI Agents SDK resets it),
//! `none` for every call of the turn.

use serde_json::{json, Value};

use super::errors::RobotaError;

/// The tool choice of a model call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
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

impl ToolChoice {
    /// Parses the JSON form; `what` names the field in errors.
    pub fn from_json(what: &str, v: &Value) -> Result<Self, RobotaError> {
        let bad = || {
            RobotaError::Configuration(format!(
                "{what} must be \"auto\", \"none\", \"required\" or {{\"name\":\"TOOL\"}}, got {v}"
            ))
        };
        match v {
            Value::String(s) => match s.as_str() {
                "auto" => Ok(ToolChoice::Auto),
                "none" => Ok(ToolChoice::None),
                "required" => Ok(ToolChoice::Required),
                _ => Err(bad()),
            },
            Value::Object(m) => match (m.get("name"), m.len()) {
                (Some(Value::String(n)), 1) if !n.is_empty() => Ok(ToolChoice::Tool(n.clone())),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        match self {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(n) => json!({ "name": n }),
        }
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
