//! Typed arguments of the built-ins: serde parsing whose failures read like the schema
//! validator's (`Missing required parameter: x`, `Parameter "x" must be a string, got number`).

use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor,
};
use serde::Deserialize;
use serde_json::{map, Map, Value};

use super::validation::{js_type, with_article};

/// `args` as `A`; `Err` is one problem in the validator's wording.
pub(crate) fn parse<A: DeserializeOwned>(args: Value) -> Result<A, String> {
    let Value::Object(fields) = args else {
        return Err(format!(
            "Arguments must be an object, got {}",
            js_type(&args)
        ));
    };
    let mut at = None;
    A::deserialize(Tracked {
        fields,
        at: &mut at,
    })
    .map_err(|e| problem(&e.to_string(), at))
}

/// The field being parsed: its name and JSON type.
type At = Option<(String, &'static str)>;

/// An arguments object that records which field is being parsed.
struct Tracked<'a> {
    fields: Map<String, Value>,
    at: &'a mut At,
}

impl<'de> Deserializer<'de> for Tracked<'_> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(Fields {
            iter: self.fields.into_iter(),
            value: None,
            at: self.at,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

struct Fields<'a> {
    iter: map::IntoIter,
    value: Option<Value>,
    at: &'a mut At,
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        *self.at = Some((key.clone(), js_type(&value)));
        self.value = Some(value);
        seed.deserialize(IntoDeserializer::<Self::Error>::into_deserializer(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        seed.deserialize(self.value.take().unwrap_or(Value::Null))
    }
}

/// The text between `start` and the next backtick in `msg`.
fn quoted<'m>(msg: &'m str, start: &str) -> Option<&'m str> {
    msg.strip_prefix(start)?.split('`').next()
}

/// A serde type expectation (`a string`, `i64`, `a sequence`) as a JSON Schema type word.
fn schema_type(expected: &str) -> &str {
    const NUMBERS: [&str; 14] = [
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        "f32", "f64",
    ];
    match expected {
        e if e.contains("string") => "string",
        e if e.contains("boolean") => "boolean",
        e if e.contains("number") || NUMBERS.contains(&e) => "number",
        e if e.contains("sequence") || e.contains("tuple") => "array",
        e if e.contains("map") || e.starts_with("struct ") => "object",
        e => e,
    }
}

/// serde's message `msg` (failing at field `at`) in the validator's wording.
fn problem(msg: &str, at: At) -> String {
    if let Some(name) = quoted(msg, "missing field `") {
        return format!("Missing required parameter: {name}");
    }
    if let Some(name) = quoted(msg, "unknown field `") {
        return format!("Unknown parameter: {name}");
    }
    let Some((field, got)) = at else {
        return msg.to_string();
    };
    if let Some(value) = quoted(msg, "unknown variant `") {
        let options = msg
            .split_once(", expected ")
            .map(|(_, o)| o.trim_start_matches("one of ").replace(" or ", ", "))
            .unwrap_or_default()
            .replace('`', "");
        return format!("Parameter \"{field}\" must be one of: {options}, got {value}");
    }
    match msg.split_once(", expected ") {
        Some((_, expected)) => format!(
            "Parameter \"{field}\" must be {}, got {got}",
            with_article(schema_type(expected))
        ),
        None => format!("Parameter \"{field}\": {msg}"),
    }
}

/// `deserialize_with` for a JSON number read as an integer (fractions truncated toward zero).
pub(crate) fn int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let n = serde_json::Number::deserialize(d)?;
    Ok(n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)))
}

/// `deserialize_with` for a string map kept as pairs in the order the model wrote them.
pub(crate) fn pairs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
    struct Pairs;
    impl<'de> Visitor<'de> for Pairs {
        type Value = Vec<(String, String)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
            let mut out = Vec::new();
            while let Some(pair) = m.next_entry()? {
                out.push(pair);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Pairs)
}
