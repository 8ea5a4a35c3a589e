//! What the types give the parser and the docs: their keys and their JSON Schemas.

use schemars::JsonSchema;
use serde_json::{Map, Value};

pub use crate::core::known_keys::keys;

use super::{RuntimeDocument, SessionDocument};

/// The keys of the runtime document.
pub fn runtime_keys() -> &'static [&'static str] {
    static K: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
    K.get_or_init(keys::<RuntimeDocument>)
}

/// The keys of the session document.
pub fn session_keys() -> &'static [&'static str] {
    static K: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
    K.get_or_init(keys::<SessionDocument>)
}

fn schema_of<T: JsonSchema>() -> Value {
    let mut schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    // `"v"`, accepted by every document, is not a field of the types (the parser reads it first).
    if let Some(props) = schema
        .as_object_mut()
        .and_then(|o| o.get_mut("properties"))
        .and_then(Value::as_object_mut)
    {
        props.shift_insert(
            0,
            "v".into(),
            serde_json::json!({"description": "Document version: 1 (the default).", "const": 1}),
        );
    }
    // `$schema` and `title` first, then the rest as generated.
    let Value::Object(mut generated) = schema.to_value() else {
        return Value::Null;
    };
    let mut out = Map::new();
    for key in ["$schema", "title", "description"] {
        if let Some(v) = generated.shift_remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.extend(generated);
    Value::Object(out)
}

/// The JSON Schema of the runtime document (`docs/schema/runtime.schema.json`).
pub fn runtime_schema() -> Value {
    schema_of::<RuntimeDocument>()
}

/// The JSON Schema of the session document (`docs/schema/session.schema.json`).
pub fn session_schema() -> Value {
    schema_of::<SessionDocument>()
}
