//! Compiling tool argument schemas, lazily where that is safe.
//!
//! The validator (the `boon` crate) checks every schema against the draft 2020-12 meta-schema
//! before compiling it, and the first check in a process compiles the meta-schemas themselves
//! (docs/dev/perf.md §1: with the earlier `jsonschema` crate, ~6.7 M instructions, most of a
//! host's start-up). A schema made only of keywords
//! whose meta-schema rules [`surely_valid`] checks by hand (the common tool-schema subset:
//! `type`, `properties`, `required`, `items`, `enum`, bounds, `anyOf`, … — anything else goes
//! the eager way) cannot fail that check, so it is accepted at once and compiled on first use,
//! or earlier on a background thread ([`CompiledSchema::warm_up`]). Any other schema is
//! compiled at once, so a bad one is still refused with the validator's error text. Arguments
//! that [`FastSchema`] accepts need no validator at all; a schema with such a fast check is
//! not warmed up either (its validator is built only for arguments that do not fit).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use serde_json::{Map, Value};

use super::schema_fast::FastSchema;

/// Where a tool's argument schema sits for the compiler: relative references resolve against
/// it, and compile errors name it.
const SCHEMA_LOCATION: &str = "file:///tool-arguments.json";

/// A compiled argument schema (the compiler keeps it, and what it refers to, in its arena).
pub struct ArgsValidator {
    schemas: boon::Schemas,
    root: boon::SchemaIndex,
}

impl ArgsValidator {
    /// Checks `args`; the error is the tree of what failed, where.
    pub fn validate<'s, 'v>(
        &'s self,
        args: &'v Value,
    ) -> Result<(), Box<boon::ValidationError<'s, 'v>>> {
        self.schemas.validate(args, self.root).map_err(Box::new)
    }

    /// Whether `args` pass.
    pub fn is_valid(&self, args: &Value) -> bool {
        self.validate(args).is_ok()
    }
}

/// References to other documents are never fetched: not from the network, not from files (a
/// tool schema from an MCP server must not make the library read the host's files).
struct NoExternalDocuments;

impl boon::UrlLoader for NoExternalDocuments {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("{url} is another document; tool schemas refer only to themselves").into())
    }
}

/// A tool's argument schema and its validator (compiled now or on first use).
pub struct CompiledSchema {
    schema: Value,
    validator: OnceLock<Result<ArgsValidator, String>>,
    /// The quick check of the common subset, when the schema is in it.
    fast: Option<FastSchema>,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("compiled", &self.validator.get().is_some())
            .finish()
    }
}

/// Whether a background warm-up was started in this process (one is enough: it builds the
/// process-wide meta-schema validator, after which compiling a schema is cheap).
static WARMING: AtomicBool = AtomicBool::new(false);

/// Compiles `schema` as draft 2020-12 (unless its `$schema` names another draft); the error
/// text says what is wrong with it.
pub fn compile(schema: &Value) -> Result<ArgsValidator, String> {
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V2020_12);
    compiler.use_loader(Box::new(NoExternalDocuments));
    let mut schemas = boon::Schemas::new();
    let compiled = match compiler.add_resource(SCHEMA_LOCATION, schema.clone()) {
        Ok(()) => compiler.compile(SCHEMA_LOCATION, &mut schemas),
        Err(e) => Err(e),
    };
    match compiled {
        Ok(root) => Ok(ArgsValidator { schemas, root }),
        Err(boon::CompileError::ValidationError { src, .. }) => {
            Err(meta_schema_problems(schema, &src))
        }
        Err(other) => Err(with_causes(&other)),
    }
}

/// `err`'s text followed by its causes' (`error loading <url>: <why>`).
fn with_causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Why `schema` fails its meta-schema: each failure's place in the schema, the value there and
/// the rule it breaks (every branch of an alternative: which one was meant is not known).
fn meta_schema_problems(schema: &Value, err: &boon::ValidationError<'_, '_>) -> String {
    let mut leaves = Vec::new();
    super::validation::failures(err, true, &mut leaves);
    let parts: Vec<String> = leaves
        .iter()
        .map(|leaf| {
            let pointer = leaf.instance_location.to_string();
            let value = schema.pointer(&pointer).map(Value::to_string);
            let at = if pointer.is_empty() { "/" } else { &pointer };
            format!("at {at} ({}): {}", value.unwrap_or_default(), leaf.kind)
        })
        .collect();
    format!("not valid against its meta-schema: {}", parts.join("; "))
}

impl CompiledSchema {
    /// Accepts `schema`: compiled on first use when [`surely_valid`], else now (the error is
    /// the compiler's text).
    pub fn new(schema: &Value) -> Result<Arc<Self>, String> {
        let validator = OnceLock::new();
        if !surely_valid(schema) {
            let _ = validator.set(Ok(compile(schema)?));
        }
        Ok(Arc::new(CompiledSchema {
            schema: schema.clone(),
            validator,
            fast: FastSchema::build(schema),
        }))
    }

    /// True when `args` are certainly valid without asking the validator (see
    /// [`FastSchema::accepts`]); false: ask [`Self::validator`].
    pub fn accepts_fast(&self, args: &Value) -> bool {
        self.fast.as_ref().is_some_and(|f| f.accepts(args))
    }

    /// The validator, compiling it now if needed (a compile error of a schema accepted
    /// without compiling, which [`surely_valid`] rules out, comes back as its text).
    pub fn validator(&self) -> Result<&ArgsValidator, &str> {
        self.validator
            .get_or_init(|| compile(&self.schema))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Whether the validator exists already.
    pub fn is_compiled(&self) -> bool {
        self.validator.get().is_some()
    }

    /// Compiles on a background thread when not compiled yet, the schema has no fast check
    /// and no warm-up ran in this process (the first compile is the expensive one); the caller
    /// joins the thread.
    pub fn warm_up(self: &Arc<Self>) -> Option<JoinHandle<()>> {
        if self.is_compiled() || self.fast.is_some() || WARMING.swap(true, Ordering::AcqRel) {
            return None;
        }
        let me = self.clone();
        std::thread::Builder::new()
            .name("robota-schema".into())
            .spawn(move || {
                crate::sdk::runtime::thread_role::mark_library_thread();
                let _ = me.validator();
            })
            .ok()
    }
}

/// Keywords the 2020-12 meta-schema constrains that [`surely_valid`] does not check: a schema
/// using one is compiled at once.
const UNCHECKED: &[&str] = &[
    "$id",
    "$schema",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$defs",
    "$recursiveAnchor",
    "$recursiveRef",
    "definitions",
    "dependencies",
    "prefixItems",
    "contains",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "pattern",
    "maxContains",
    "minContains",
    "dependentRequired",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

const TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// True when `schema` certainly passes the draft 2020-12 meta-schema: every keyword it uses
/// that the meta-schema constrains is one checked here, with a value of the required shape
/// (keywords the meta-schema does not know are allowed there, as here). False means "not
/// known", not "invalid".
pub fn surely_valid(schema: &Value) -> bool {
    match schema {
        Value::Bool(_) => true,
        Value::Object(m) => m.iter().all(|(k, v)| keyword_ok(k, v)),
        _ => false,
    }
}

fn keyword_ok(key: &str, v: &Value) -> bool {
    let schemas = |a: &Value| {
        a.as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(surely_valid))
    };
    match key {
        "type" => match v {
            Value::String(s) => TYPES.contains(&s.as_str()),
            Value::Array(a) => {
                !a.is_empty()
                    && a.iter().enumerate().all(|(i, t)| {
                        t.as_str().is_some_and(|s| TYPES.contains(&s)) && !a[..i].contains(t)
                    })
            }
            _ => false,
        },
        "properties" => v.as_object().is_some_and(all_schemas),
        "required" => v.as_array().is_some_and(|a| {
            a.iter()
                .enumerate()
                .all(|(i, s)| s.is_string() && !a[..i].contains(s))
        }),
        "items" | "additionalProperties" | "not" => surely_valid(v),
        "allOf" | "anyOf" | "oneOf" => schemas(v),
        "enum" | "examples" => v.is_array(),
        "const" | "default" => true,
        "multipleOf" => v.as_f64().is_some_and(|n| n > 0.0),
        "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => v.is_number(),
        "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties" | "minProperties" => {
            v.is_u64()
        }
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => v.is_boolean(),
        "title" | "description" | "$comment" | "format" => v.is_string(),
        other => !UNCHECKED.contains(&other),
    }
}

fn all_schemas(m: &Map<String, Value>) -> bool {
    m.values().all(surely_valid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_common_subset_is_surely_valid() {
        for ok in [
            json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}),
            json!({"type":["string","null"],"enum":["x",null],"description":"d","x-extra":{"$ref":1}}),
            json!({"type":"array","items":{"anyOf":[{"type":"string","minLength":1},true]},"maxItems":3,"uniqueItems":true}),
            json!({"type":"object","additionalProperties":false,"properties":{"n":{"type":"number","minimum":0,"exclusiveMaximum":1.5,"multipleOf":0.5}}}),
            json!({}),
        ] {
            assert!(surely_valid(&ok), "{ok}");
            // Each of them passes the real meta-schema check too.
            assert!(compile(&ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn anything_else_is_not_known() {
        for other in [
            json!({"type":"objekt"}),
            json!({"type":[]}),
            json!({"type":["string","string"]}),
            json!({"required":["a","a"]}),
            json!({"required":"a"}),
            json!({"properties":{"a":3}}),
            json!({"minLength":-1}),
            json!({"minLength":1.5}),
            json!({"multipleOf":0}),
            json!({"anyOf":[]}),
            json!({"pattern":"^a"}),
            json!({"$ref":"#/$defs/x","$defs":{"x":{}}}),
            json!({"items":{"type":7}}),
            json!(3),
        ] {
            assert!(!surely_valid(&other), "{other}");
        }
    }

    #[test]
    fn bad_schemas_fail_at_once_and_good_ones_compile_on_first_use() {
        let e = CompiledSchema::new(&json!({"type":"objekt"})).unwrap_err();
        assert_eq!(
            e,
            "not valid against its meta-schema: at /type (\"objekt\"): value must be one of \
             'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; at /type \
             (\"objekt\"): want array, but got string"
        );
        let s = CompiledSchema::new(&json!({"type":"object","required":["a"]})).unwrap();
        assert!(!s.is_compiled());
        let v = s.validator().unwrap();
        assert!(!v.is_valid(&json!({})));
        assert!(v.is_valid(&json!({"a":1})));
        assert!(s.is_compiled());
        // Outside the subset: compiled at once.
        let p = CompiledSchema::new(&json!({"type":"string","pattern":"^a"})).unwrap();
        assert!(p.is_compiled());
    }

    #[test]
    fn references_to_other_documents_are_refused_and_never_read() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other.json");
        std::fs::write(&other, r#"{"type":"string"}"#).unwrap();
        let url = format!("file://{}", other.display());
        let e = CompiledSchema::new(&json!({"$ref": url})).unwrap_err();
        assert!(e.contains("is another document"), "{e}");
        let e = CompiledSchema::new(&json!({"$ref": "https://example.com/s.json"})).unwrap_err();
        assert!(e.contains("is another document"), "{e}");
        // References inside the schema resolve.
        let s = CompiledSchema::new(
            &json!({"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}),
        )
        .unwrap();
        let v = s.validator().unwrap();
        assert!(v.is_valid(&json!({"a":1})));
        assert!(!v.is_valid(&json!({"a":"x"})));
    }

    #[test]
    fn valid_arguments_of_a_subset_schema_need_no_validator() {
        let s = CompiledSchema::new(
            &json!({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}),
        )
        .unwrap();
        // No warm-up thread: the validator is built only for arguments that do not fit.
        assert!(s.warm_up().is_none());
        assert!(s.accepts_fast(&json!({"a":1})));
        assert!(!s.is_compiled());
        assert!(!s.accepts_fast(&json!({})));
        assert!(!s.validator().unwrap().is_valid(&json!({})));
        // Outside the fast subset: no fast answer.
        let p = CompiledSchema::new(&json!({"type":"string","format":"email"})).unwrap();
        assert!(!p.accepts_fast(&json!("a@b.c")));
    }
}
