//! Compiling a tool's JSON Schema cheaply.
//!
//! `jsonschema::validator_for` checks every schema against its draft's meta-schema, and the
//! draft 2020-12 meta-validator (the default) is built once per process at a cost of ~6.9 M
//! instructions — 69% of a C host's cold start with one host tool. The draft 7 one costs ~1.8 M.
//! For the schemas tools use (`type`/`properties`/`required`/`enum`/…), draft 7 and 2020-12
//! mean the same, so such a schema is compiled as draft 7 (formats as annotations, as 2020-12
//! treats them); any other schema, and any schema draft 7 rejects, goes the default way, so
//! behaviour and error texts stay those of draft 2020-12.

use serde_json::Value;

/// Keywords whose value is data or an annotation (never a schema), the same in both drafts.
const PLAIN: &[&str] = &[
    "type",
    "enum",
    "const",
    "required",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "title",
    "description",
    "default",
    "examples",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Keywords whose value is one schema, the same in both drafts (`items` only as one schema).
const ONE: &[&str] = &[
    "additionalProperties",
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];

/// Keywords whose value is a list of schemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf"];

/// Keywords whose value is a map of schemas.
const MAP: &[&str] = &["properties", "patternProperties"];

/// Whether `schema` uses only keywords that mean the same in draft 7 and draft 2020-12.
fn same_in_draft7(schema: &Value) -> bool {
    let map = match schema {
        Value::Bool(_) => return true,
        Value::Object(map) => map,
        _ => return false,
    };
    map.iter().all(|(key, value)| {
        let key = key.as_str();
        if PLAIN.contains(&key) {
            true
        } else if ONE.contains(&key) {
            same_in_draft7(value)
        } else if LIST.contains(&key) {
            value
                .as_array()
                .is_some_and(|list| list.iter().all(same_in_draft7))
        } else if MAP.contains(&key) {
            value
                .as_object()
                .is_some_and(|props| props.values().all(same_in_draft7))
        } else {
            false
        }
    })
}

/// Compiles `schema` as [`jsonschema::validator_for`] does (draft 2020-12 unless `$schema`
/// says otherwise), through the cheaper draft 7 meta-validator when that means the same.
pub fn compile(
    schema: &Value,
) -> Result<jsonschema::Validator, jsonschema::ValidationError<'static>> {
    if same_in_draft7(schema) {
        let draft7 = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft7)
            .should_validate_formats(false)
            .build(schema);
        if let Ok(validator) = draft7 {
            return Ok(validator);
        }
    }
    jsonschema::validator_for(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn subset() {
        assert!(same_in_draft7(&json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "t": {"type": "array", "items": {"enum": [1]}}},
            "required": ["a"],
            "additionalProperties": false,
            "anyOf": [true, {"format": "date"}]
        })));
        // Keywords that differ between the drafts (or only exist in one) take the default way.
        for other in [
            json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
            json!({"$ref": "#/$defs/a", "$defs": {"a": {}}}),
            json!({"items": [{"type": "string"}]}),
            json!({"prefixItems": [{"type": "string"}]}),
            json!({"properties": {"a": {"dependentRequired": {}}}}),
            json!({"properties": []}),
            json!(3),
        ] {
            assert!(!same_in_draft7(&other), "{other}");
        }
    }

    #[test]
    fn same_behaviour_as_2020_12() {
        let schema = json!({
            "type": "object",
            "properties": {"d": {"type": "string", "format": "date"}, "n": {"exclusiveMinimum": 0}},
            "required": ["d"]
        });
        let v = compile(&schema).unwrap();
        // Formats are annotations in 2020-12: not asserted.
        assert!(v.is_valid(&json!({"d": "not a date", "n": 1})));
        assert!(!v.is_valid(&json!({"d": "x", "n": 0})));
        assert!(!v.is_valid(&json!({"n": 1})));
        // A bad schema fails with draft 2020-12's error text.
        let bad = json!({"type": "integr"});
        assert_eq!(
            compile(&bad).err().map(|e| e.to_string()),
            jsonschema::validator_for(&bad).err().map(|e| e.to_string())
        );
        assert!(compile(&bad).is_err());
    }
}
