//! Shared plumbing of the built-ins: schema + validation, argument access, blocking work.

use serde_json::Value;

use super::result::ToolOutput;
use super::validation::SchemaValidator;

/// A built-in's parameter schema with its compiled validator.
pub(crate) struct Spec {
    pub(crate) parameters: Value,
    validator: Option<SchemaValidator>,
    /// The provider schema of the tool owning this spec.
    pub(crate) schema: crate::core::tool::SchemaCell,
}

impl Spec {
    pub(crate) fn new(parameters: Value) -> Self {
        let validator = SchemaValidator::new(&parameters).ok();
        Spec {
            parameters,
            validator,
            schema: Default::default(),
        }
    }

    /// Validates `args`; the failure is the result document the model sees.
    pub(crate) fn validate(&self, tool: &str, args: &Value) -> Result<(), ToolOutput> {
        match &self.validator {
            Some(v) => v.check_for_tool(tool, args).map_err(ToolOutput::fail),
            None => Ok(()),
        }
    }
}

/// A string argument.
pub(crate) fn arg_str<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// A numeric argument as `i64` (fractions truncated toward zero).
pub(crate) fn arg_i64(args: &Value, key: &str) -> Option<i64> {
    let v = args.get(key)?;
    v.as_i64().or_else(|| v.as_f64().map(|f| f as i64))
}

/// A boolean argument.
pub(crate) fn arg_bool(args: &Value, key: &str) -> Option<bool> {
    args.get(key).and_then(Value::as_bool)
}

/// Runs blocking file-system work off the async workers.
pub(crate) async fn blocking<F>(f: F) -> ToolOutput
where
    F: FnOnce() -> ToolOutput + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(out) => out,
        Err(e) => ToolOutput::fail(format!("Tool task failed: {e}")),
    }
}
