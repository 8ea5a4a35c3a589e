//! JSON-Schema validation of tool arguments (the `boon` crate), with error texts that name
//! the offending field in Robota's wording.

use serde_json::Value;

use boon::{ErrorKind, ValidationError};

use super::schema_compile::{ArgsValidator, CompiledSchema};
use std::sync::Arc;

/// An argument schema, compiled now or on first use ([`CompiledSchema`]).
pub struct SchemaValidator {
    compiled: Arc<CompiledSchema>,
}

impl std::fmt::Debug for SchemaValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SchemaValidator")
    }
}

/// The JSON type name of `v` (`number`, `string`, ...).
pub(crate) fn js_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `/a/0/b` → `a[0].b`.
fn field_name(pointer: &str) -> String {
    let mut out = String::new();
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(&seg);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    out
}

/// `a string`, `an object`.
pub(crate) fn with_article(word: &str) -> String {
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {word}"),
        _ => format!("a {word}"),
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The failures in `err`'s tree: its leaves, and, unless `branches`, the keywords that fail as a
/// whole (`anyOf`, `oneOf`, `not`, a `false` schema), whose branches are not listed.
pub(crate) fn failures<'e, 's, 'v>(
    err: &'e ValidationError<'s, 'v>,
    branches: bool,
    out: &mut Vec<&'e ValidationError<'s, 'v>>,
) {
    let whole = !branches
        && matches!(
            err.kind,
            ErrorKind::AnyOf | ErrorKind::OneOf(_) | ErrorKind::Not | ErrorKind::FalseSchema
        );
    if whole || err.causes.is_empty() {
        out.push(err);
    } else {
        for cause in &err.causes {
            failures(cause, branches, out);
        }
    }
}

/// The message of one failure of `args` (alternatives fail as a whole: what each branch said
/// would only confuse a model).
fn describe(err: &ValidationError<'_, '_>, args: &Value, out: &mut Vec<String>) {
    let pointer = err.instance_location.to_string();
    let instance = args.pointer(&pointer).unwrap_or(&Value::Null);
    let field = field_name(&pointer);
    let prefix = if field.is_empty() {
        String::new()
    } else {
        format!("{field}.")
    };
    match &err.kind {
        ErrorKind::Required { want } => out.extend(
            want.iter()
                .map(|p| format!("Missing required parameter: {prefix}{p}")),
        ),
        ErrorKind::AdditionalProperties { got } => out.push(
            got.iter()
                .map(|k| format!("Unknown parameter: {prefix}{k}"))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        ErrorKind::Type { want, .. } => {
            let expected = want
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" or ");
            let expected = with_article(&expected);
            let got = js_type(instance);
            out.push(if field.is_empty() {
                format!("Arguments must be {expected}, got {got}")
            } else {
                format!("Parameter \"{field}\" must be {expected}, got {got}")
            });
        }
        ErrorKind::Enum { want } => {
            let opts = want.iter().map(value_text).collect::<Vec<_>>().join(", ");
            out.push(format!(
                "Parameter \"{field}\" must be one of: {opts}, got {}",
                value_text(instance)
            ));
        }
        kind if field.is_empty() => out.push(kind.to_string()),
        kind => out.push(format!("Parameter \"{field}\": {kind}")),
    }
}

/// What is wrong with `args` (empty: nothing), one message per problem in Robota's
/// order: missing keys, then unknown keys, then per-field problems.
pub fn problems(validator: &ArgsValidator, args: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if let Err(err) = validator.validate(args) {
        let mut leaves = Vec::new();
        failures(&err, false, &mut leaves);
        for leaf in leaves {
            describe(leaf, args, &mut problems);
        }
    }
    problems.sort_by_key(|p| {
        if p.starts_with("Missing required parameter") {
            0
        } else if p.starts_with("Unknown parameter") {
            1
        } else {
            2
        }
    });
    problems
}

impl SchemaValidator {
    /// Compiles `schema`; the error names what is wrong with it.
    pub fn new(schema: &Value) -> Result<Self, String> {
        CompiledSchema::new(schema)
            .map(|compiled| SchemaValidator { compiled })
            .map_err(|e| format!("Invalid JSON Schema: {e}"))
    }

    /// Checks `args`; `Err` holds one message per problem, e.g. `Missing required parameter: city`,
    /// `Unknown parameter: x`, `Parameter "days" must be an integer, got string`,
    /// `Parameter "unit" must be one of: c, f, got k`.
    pub fn check(&self, args: &Value) -> Result<(), Vec<String>> {
        if self.compiled.accepts_fast(args) {
            return Ok(());
        }
        let validator = self
            .compiled
            .validator()
            .map_err(|e| vec![format!("Invalid JSON Schema: {e}")])?;
        let problems = problems(validator, args);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// [`check`](Self::check) as Robota's single message:
    /// `Validation Error: Invalid parameters for tool "<name>": <problems joined by ", ">`.
    pub fn check_for_tool(&self, tool: &str, args: &Value) -> Result<(), String> {
        self.check(args)
            .map_err(|problems| invalid_parameters(tool, &problems.join(", ")))
    }
}

/// `Validation Error: Invalid parameters for tool "<tool>": <problems>`.
pub(crate) fn invalid_parameters(tool: &str, problems: &str) -> String {
    format!("Validation Error: Invalid parameters for tool \"{tool}\": {problems}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_names() {
        assert_eq!(field_name(""), "");
        assert_eq!(field_name("/a"), "a");
        assert_eq!(field_name("/a/0/b"), "a[0].b");
    }

    #[test]
    fn messages() {
        let v = SchemaValidator::new(&json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"]},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["city"],
            "additionalProperties": false
        }))
        .unwrap();
        assert_eq!(v.check(&json!({"city": "x"})), Ok(()));
        assert_eq!(
            v.check(&json!({})),
            Err(vec!["Missing required parameter: city".to_string()])
        );
        assert_eq!(
            v.check(&json!({"city": 3})),
            Err(vec![
                "Parameter \"city\" must be a string, got number".to_string()
            ])
        );
        assert_eq!(
            v.check(&json!({"city": "x", "unit": "k"})),
            Err(vec![
                "Parameter \"unit\" must be one of: c, f, got k".to_string()
            ])
        );
        assert_eq!(
            v.check(&json!({"city": "x", "zip": 1})),
            Err(vec!["Unknown parameter: zip".to_string()])
        );
        assert_eq!(
            v.check(&json!({"city": "x", "tags": ["a", 2]})),
            Err(vec![
                "Parameter \"tags[1]\" must be a string, got number".to_string()
            ])
        );
        assert_eq!(
            v.check(&json!("str")),
            Err(vec!["Arguments must be an object, got string".to_string()])
        );
    }
}
