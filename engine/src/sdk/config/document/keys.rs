//! What the types give the parser and the docs: their keys and their JSON Schemas.

use schemars::JsonSchema;
use serde::de::{self, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{RuntimeDocument, SessionDocument};

/// The field names of a struct's `Deserialize` derive (its JSON keys, renames applied), in
/// declaration order: what the unknown-key check of its document accepts (`"v"` aside).
pub fn keys<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Names<'a>(&'a mut &'static [&'static str]);
    impl<'de> de::Deserializer<'de> for Names<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("fields read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Names(&mut fields));
    fields
}

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
