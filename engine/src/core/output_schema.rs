//! Structured output: the JSON Schema a turn's final answer must match (`"output_schema"` on a
//! turn, a session or a query), checked with the tool-argument validator.

use std::sync::Arc;

use serde_json::Value;

use super::errors::RobotaError;
use crate::tools::validation::SchemaValidator;

/// The name vendors are given for the schema (OpenAI `json_schema.name`) and of the synthetic
/// tool whose input is the answer on providers without a native form.
pub const FINAL_ANSWER_TOOL: &str = "final_answer";

/// A compiled output schema.
pub struct OutputSchema {
    schema: Value,
    validator: SchemaValidator,
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("OutputSchema").field(&self.schema).finish()
    }
}

impl PartialEq for OutputSchema {
    fn eq(&self, other: &Self) -> bool {
        self.schema == other.schema
    }
}

impl OutputSchema {
    /// Compiles `v`; `what` names where it came from (e.g. `input_json: field "output_schema"`).
    /// It must be a JSON object the schema compiler accepts.
    pub fn from_json(what: &str, v: &Value) -> Result<Arc<Self>, RobotaError> {
        if !v.is_object() {
            return Err(RobotaError::Configuration(format!(
                "{what} must be a JSON Schema object, got {v}"
            )));
        }
        let validator = SchemaValidator::new(v)
            .map_err(|e| RobotaError::Configuration(format!("{what}: {e}")))?;
        Ok(Arc::new(OutputSchema {
            schema: v.clone(),
            validator,
        }))
    }

    /// The schema as given.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Whether the schema fits OpenAI's strict mode: every object lists all its properties in
    /// `required` and sets `additionalProperties: false` (else `strict` is sent as false).
    pub fn strict_compatible(&self) -> bool {
        strict_object(&self.schema)
    }

    /// Parses `answer` (a bare JSON text, or one fenced as ```json) and validates it: the
    /// value, or one message per problem.
    pub fn check_text(&self, answer: &str) -> Result<Value, Vec<String>> {
        let text = unfenced(answer.trim());
        let value: Value = serde_json::from_str(text)
            .map_err(|e| vec![format!("the answer is not valid JSON: {e}")])?;
        self.check_value(value)
    }

    /// Validates `value`: itself, or one message per problem.
    pub fn check_value(&self, value: Value) -> Result<Value, Vec<String>> {
        self.validator.check(&value).map(|()| value)
    }
}

/// `text` without a surrounding Markdown code fence (```json … ```), else `text`.
fn unfenced(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text;
    };
    let body = body.strip_prefix("json").unwrap_or(body);
    body.trim()
}

/// See [`OutputSchema::strict_compatible`].
fn strict_object(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(props)) = m.get("properties") {
                let required: Vec<&str> = m
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if m.get("additionalProperties") != Some(&Value::Bool(false))
                    || props.keys().any(|k| !required.contains(&k.as_str()))
                {
                    return false;
                }
            }
            m.values().all(strict_object)
        }
        Value::Array(a) => a.iter().all(strict_object),
        _ => true,
    }
}

/// The user message of the repair round: the problems, and the request for a corrected answer.
pub fn repair_instruction(problems: &[String]) -> String {
    format!(
        "Your answer does not match the required output schema: {}. Reply again with only the corrected JSON answer.",
        problems.join("; ")
    )
}

/// The request-only instruction of the forced `final_answer` call.
pub const FINAL_ANSWER_INSTRUCTION: &str = "Give your final answer now by calling the final_answer tool: its input is the answer, in the required format.";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn city() -> Arc<OutputSchema> {
        OutputSchema::from_json(
            "t",
            &json!({"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}),
        )
        .unwrap()
    }

    #[test]
    fn refuses_what_is_not_a_schema() {
        let e = OutputSchema::from_json("input_json: field \"output_schema\"", &json!("x"))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Configuration Error: input_json: field \"output_schema\" must be a JSON Schema object, got \"x\""
        );
        let e = OutputSchema::from_json("s: field \"output_schema\"", &json!({"type": 5}))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("Configuration Error: s: field \"output_schema\": Invalid JSON Schema"),
            "{e}"
        );
    }

    #[test]
    fn checks_answers() {
        let s = city();
        assert_eq!(
            s.check_text("{\"city\":\"Oslo\"}"),
            Ok(json!({"city":"Oslo"}))
        );
        assert_eq!(
            s.check_text("```json\n{\"city\":\"Oslo\"}\n```"),
            Ok(json!({"city":"Oslo"}))
        );
        assert_eq!(
            s.check_text("{\"town\":1}"),
            Err(vec![
                "Missing required parameter: city".to_string(),
                "Unknown parameter: town".to_string()
            ])
        );
        let e = s.check_text("Oslo").unwrap_err();
        assert!(e[0].starts_with("the answer is not valid JSON"), "{e:?}");
    }

    #[test]
    fn strictness() {
        assert!(city().strict_compatible());
        let loose = OutputSchema::from_json(
            "t",
            &json!({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}),
        )
        .unwrap();
        assert!(!loose.strict_compatible());
    }
}
