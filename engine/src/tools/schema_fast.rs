//! A quick acceptance check of tool arguments for the common tool-schema subset, so a valid
//! call never needs the compiled validator ([`super::schema_compile`]).
//!
//! Building the first validator of a process compiles the draft 2020-12 meta-schema too
//! (with the earlier `jsonschema` crate ~7 M instructions and ~1 MB of heap, docs/dev/perf.md §1); for a
//! host whose tools all use the subset below, that cost is now paid only when a model sends
//! arguments that do not fit. [`FastSchema::accepts`] answers only "certainly valid": `false`
//! means "not known" and the caller asks the full validator, which also writes the error
//! texts, so what a model reads about bad arguments is unchanged.
//!
//! The subset: `type`, `properties`, `required`, `additionalProperties` (boolean or schema),
//! `items` (one schema), `enum`, `const`, numeric bounds, string and array lengths, `anyOf`,
//! `allOf`, boolean schemas, and the annotations `title`, `description`, `default`,
//! `examples`, `$comment`, `deprecated`, `readOnly`, `writeOnly`. A schema using any other
//! keyword (`pattern`, `format`, `$ref`, `oneOf`, …) has no fast check.

use serde_json::{Map, Number, Value};

/// Integers are compared exactly only within ±2^53, where `f64` holds every integer.
const EXACT_F64: f64 = 9_007_199_254_740_992.0;

/// The type names of `type`, as bits.
const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const INTEGER: u8 = 4;
const NUMBER: u8 = 8;
const STRING: u8 = 16;
const ARRAY: u8 = 32;
const OBJECT: u8 = 64;

/// A schema of the subset, ready to check instances.
#[derive(Debug, Default)]
pub struct FastSchema {
    /// `false` schema: nothing is valid.
    never: bool,
    /// Allowed types (0: any).
    types: u8,
    properties: Vec<(String, FastSchema)>,
    required: Vec<String>,
    /// `additionalProperties`: `None` allows any; `Some(schema)` checks each extra member.
    additional: Option<Box<FastSchema>>,
    items: Option<Box<FastSchema>>,
    one_of_values: Option<Vec<Value>>,
    bounds: Vec<(Bound, f64)>,
    lengths: Vec<(Count, u64)>,
    any_of: Vec<FastSchema>,
    all_of: Vec<FastSchema>,
}

#[derive(Debug, Clone, Copy)]
enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

#[derive(Debug, Clone, Copy)]
enum Count {
    MinLength,
    MaxLength,
    MinItems,
    MaxItems,
}

impl FastSchema {
    /// The fast form of `schema`, or `None` when it uses anything outside the subset (or a
    /// keyword value of an unexpected shape).
    pub fn build(schema: &Value) -> Option<FastSchema> {
        match schema {
            Value::Bool(true) => Some(FastSchema::default()),
            Value::Bool(false) => Some(FastSchema {
                never: true,
                ..Default::default()
            }),
            Value::Object(m) => Self::build_object(m),
            _ => None,
        }
    }

    fn build_object(m: &Map<String, Value>) -> Option<FastSchema> {
        let mut s = FastSchema::default();
        for (key, v) in m {
            match key.as_str() {
                "type" => s.types = types(v)?,
                "properties" => {
                    for (name, sub) in v.as_object()? {
                        s.properties.push((name.clone(), FastSchema::build(sub)?));
                    }
                }
                "required" => {
                    for name in v.as_array()? {
                        s.required.push(name.as_str()?.to_string());
                    }
                }
                "additionalProperties" => s.additional = Some(Box::new(FastSchema::build(v)?)),
                "items" => s.items = Some(Box::new(FastSchema::build(v)?)),
                "enum" => s.one_of_values = Some(v.as_array()?.clone()),
                "const" => s.one_of_values = Some(vec![v.clone()]),
                "minimum" => s.bounds.push((Bound::Minimum, exact(v.as_number()?)?)),
                "maximum" => s.bounds.push((Bound::Maximum, exact(v.as_number()?)?)),
                "exclusiveMinimum" => s
                    .bounds
                    .push((Bound::ExclusiveMinimum, exact(v.as_number()?)?)),
                "exclusiveMaximum" => s
                    .bounds
                    .push((Bound::ExclusiveMaximum, exact(v.as_number()?)?)),
                "minLength" => s.lengths.push((Count::MinLength, v.as_u64()?)),
                "maxLength" => s.lengths.push((Count::MaxLength, v.as_u64()?)),
                "minItems" => s.lengths.push((Count::MinItems, v.as_u64()?)),
                "maxItems" => s.lengths.push((Count::MaxItems, v.as_u64()?)),
                "anyOf" => s.any_of = schemas(v)?,
                "allOf" => s.all_of = schemas(v)?,
                "title" | "description" | "default" | "examples" | "$comment" | "deprecated"
                | "readOnly" | "writeOnly" => {}
                _ => return None,
            }
        }
        // `enum`/`const` together: keep it simple, ask the full validator.
        if m.contains_key("enum") && m.contains_key("const") {
            return None;
        }
        Some(s)
    }

    /// True when `v` is certainly valid against the schema; false when it is not, or when
    /// this check cannot tell (the full validator decides then).
    pub fn accepts(&self, v: &Value) -> bool {
        if self.never {
            return false;
        }
        if self.types != 0 && self.types & type_bits(v) == 0 {
            return false;
        }
        if let Some(values) = &self.one_of_values {
            if !values.iter().any(|x| x == v) {
                return false;
            }
        }
        let shape_ok = match v {
            Value::Object(m) => self.accepts_object(m),
            Value::Array(a) => {
                self.lengths_ok(a.len())
                    && self
                        .items
                        .as_ref()
                        .is_none_or(|s| a.iter().all(|x| s.accepts(x)))
            }
            Value::String(text) => self.lengths_ok(text.chars().count()),
            Value::Number(n) => self.bounds_ok(n),
            Value::Null | Value::Bool(_) => true,
        };
        shape_ok
            && self.all_of.iter().all(|s| s.accepts(v))
            && (self.any_of.is_empty() || self.any_of.iter().any(|s| s.accepts(v)))
    }

    fn accepts_object(&self, m: &Map<String, Value>) -> bool {
        if !self.required.iter().all(|k| m.contains_key(k)) {
            return false;
        }
        for (k, x) in m {
            match self.properties.iter().find(|(name, _)| name == k) {
                Some((_, s)) => {
                    if !s.accepts(x) {
                        return false;
                    }
                }
                None => {
                    if let Some(extra) = &self.additional {
                        if !extra.accepts(x) {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }

    fn lengths_ok(&self, len: usize) -> bool {
        let len = len as u64;
        self.lengths.iter().all(|(kind, n)| match kind {
            Count::MinLength | Count::MinItems => len >= *n,
            Count::MaxLength | Count::MaxItems => len <= *n,
        })
    }

    fn bounds_ok(&self, n: &Number) -> bool {
        if self.bounds.is_empty() {
            return true;
        }
        let Some(x) = exact(n) else { return false };
        self.bounds.iter().all(|(kind, b)| match kind {
            Bound::Minimum => x >= *b,
            Bound::Maximum => x <= *b,
            Bound::ExclusiveMinimum => x > *b,
            Bound::ExclusiveMaximum => x < *b,
        })
    }
}

/// The number as `f64` when that is exact enough to compare (integers within ±2^53, any
/// finite float).
fn exact(n: &Number) -> Option<f64> {
    if let Some(i) = n.as_i64() {
        return ((i as f64).abs() <= EXACT_F64).then_some(i as f64);
    }
    if n.is_u64() {
        return None;
    }
    n.as_f64().filter(|f| f.is_finite())
}

fn types(v: &Value) -> Option<u8> {
    match v {
        Value::String(s) => type_bit(s),
        Value::Array(a) if !a.is_empty() => a
            .iter()
            .try_fold(0u8, |acc, t| Some(acc | type_bit(t.as_str()?)?)),
        _ => None,
    }
}

fn type_bit(name: &str) -> Option<u8> {
    Some(match name {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "integer" => INTEGER,
        "number" => NUMBER,
        "string" => STRING,
        "array" => ARRAY,
        "object" => OBJECT,
        _ => return None,
    })
}

/// The `type` bits `v` satisfies. A float is "integer" only for the full validator (it may
/// count `1.0` as one): here it is a number.
fn type_bits(v: &Value) -> u8 {
    match v {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Number(n) if n.is_i64() || n.is_u64() => INTEGER | NUMBER,
        Value::Number(_) => NUMBER,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
    }
}

fn schemas(v: &Value) -> Option<Vec<FastSchema>> {
    let a = v.as_array()?;
    if a.is_empty() {
        return None;
    }
    a.iter().map(FastSchema::build).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every instance the fast check accepts, the full validator accepts too, and every
    /// valid instance of these cases is accepted by the fast check (but a float for
    /// "integer", which it leaves to the full validator).
    #[test]
    fn agrees_with_the_full_validator() {
        let cases = [
            (
                json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}),
                vec![
                    json!({"a":1,"b":2}),
                    json!({"a":1}),
                    json!({"a":1.0,"b":2}),
                    json!({"a":"1","b":2}),
                    json!({"a":1,"b":2,"c":3}),
                    json!([1, 2]),
                    json!(18446744073709551615u64),
                ],
            ),
            (
                json!({"type":"object","additionalProperties":false,"description":"d",
                       "properties":{"unit":{"enum":["c","f"]},"n":{"type":"number","minimum":0,"exclusiveMaximum":10},
                                     "tags":{"type":"array","items":{"type":"string","minLength":1,"maxLength":3},"maxItems":2},
                                     "v":{"anyOf":[{"type":"string"},{"type":"null"}]},
                                     "w":{"allOf":[{"type":"number"},{"maximum":5}]},
                                     "k":{"const":{"x":[1]}}}}),
                vec![
                    json!({}),
                    json!({"unit":"c","n":9.5,"tags":["a","ééé"],"v":null,"w":5,"k":{"x":[1]}}),
                    json!({"unit":"k"}),
                    json!({"n":10}),
                    json!({"n":-1}),
                    json!({"tags":["a","b","c"]}),
                    json!({"tags":["abcd"]}),
                    json!({"tags":[""]}),
                    json!({"v":3}),
                    json!({"w":6}),
                    json!({"k":{"x":[2]}}),
                    json!({"zzz":1}),
                ],
            ),
            (
                json!({"type":["string","null"],"additionalProperties":{"type":"integer"}}),
                vec![json!("x"), json!(null), json!(1), json!({"a":1})],
            ),
            (json!(true), vec![json!(1), json!({"a":[]})]),
            (json!(false), vec![json!(1)]),
        ];
        for (schema, instances) in cases {
            let fast = FastSchema::build(&schema).expect("in the subset");
            let full = super::super::schema_compile::compile(&schema).expect("valid schema");
            for i in instances {
                let (fast_ok, full_ok) = (fast.accepts(&i), full.is_valid(&i));
                if fast_ok {
                    assert!(full_ok, "fast accepted {i} against {schema}");
                } else if full_ok {
                    // The only valid instance left to the full validator here: a float for
                    // "integer" (the fast check answers "certainly valid" only).
                    assert_eq!(
                        i,
                        json!({"a":1.0,"b":2}),
                        "fast refused valid {i} against {schema}"
                    );
                }
            }
        }
        let add = FastSchema::build(&json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]})).unwrap();
        assert!(add.accepts(&json!({"a":1,"b":2})));
        assert!(!add.accepts(&json!({"a":1})));
        assert!(!add.accepts(&json!({"a":"1","b":2})));
    }

    #[test]
    fn other_keywords_have_no_fast_check() {
        for s in [
            json!({"type":"string","pattern":"^a"}),
            json!({"type":"string","format":"email"}),
            json!({"$ref":"#/$defs/x","$defs":{"x":{}}}),
            json!({"oneOf":[{"type":"string"}]}),
            json!({"properties":{"a":{"not":{}}}}),
            json!({"type":"objekt"}),
            json!({"anyOf":[]}),
            json!({"minimum":"3"}),
            json!({"maximum":18446744073709551615u64}),
            json!(3),
        ] {
            assert!(FastSchema::build(&s).is_none(), "{s}");
        }
    }
}
