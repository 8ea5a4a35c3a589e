//! The one adapter of the built-ins: a [`Builtin`] declares its name, schema and typed
//! arguments and runs a call; [`Tool`] is implemented once for all of them (validation against
//! the schema, then parsing, the error result the model sees, the blocking pool).

use std::sync::Arc;

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::args::parse;
use super::config::ToolEnv;
use super::result::ToolOutput;
use super::validation::{invalid_parameters, SchemaValidator};
use crate::core::provider::ToolSchema;
use crate::core::tool::{SchemaCell, Tool, ToolContext, ToolResult};

/// What every built-in holds: its environment and its compiled parameter schema.
pub(crate) struct Spec {
    /// Working directory, ports and configuration.
    pub(crate) env: ToolEnv,
    parameters: Value,
    validator: Option<SchemaValidator>,
    schema: SchemaCell,
}

impl Spec {
    /// The spec of built-in `T` on `env`.
    pub(crate) fn of<T: Builtin>(env: ToolEnv) -> Self {
        let parameters = T::parameters();
        Spec {
            env,
            validator: SchemaValidator::new(&parameters).ok(),
            parameters,
            schema: SchemaCell::default(),
        }
    }
}

/// A built-in tool with typed arguments.
#[async_trait]
pub(crate) trait Builtin: Send + Sync + Sized + 'static {
    /// The arguments (serde names = the schema's property names).
    type Args: DeserializeOwned + Send + 'static;
    /// Tool name.
    const NAME: &'static str;
    /// Description shown to the model.
    const DESCRIPTION: &'static str;
    /// Whether the tool never changes anything.
    const READ_ONLY: bool = false;

    /// JSON Schema of the arguments object.
    fn parameters() -> Value;
    /// The tool's [`Spec`].
    fn spec(&self) -> &Spec;

    /// Runs a call with valid arguments. The default runs [`run_blocking`](Self::run_blocking)
    /// on the blocking pool (file-system work).
    async fn run(&self, args: Self::Args, ctx: &ToolContext) -> ToolOutput {
        let env = self.spec().env.clone();
        let cancel = ctx.cancel.clone();
        blocking(move || Self::run_blocking(&env, args, &cancel)).await
    }

    /// The blocking body the default [`run`](Self::run) calls.
    fn run_blocking(env: &ToolEnv, args: Self::Args, cancel: &CancellationToken) -> ToolOutput {
        let _ = (env, args, cancel);
        ToolOutput::fail(format!("{} has no blocking body", Self::NAME))
    }
}

/// Validates `args` against `T`'s schema, then parses them; the failure is the result document.
fn typed_args<T: Builtin>(spec: &Spec, args: Value) -> Result<T::Args, ToolOutput> {
    if let Some(v) = &spec.validator {
        v.check_for_tool(T::NAME, &args).map_err(ToolOutput::fail)?;
    }
    parse(args).map_err(|p| ToolOutput::fail(invalid_parameters(T::NAME, &p)))
}

#[async_trait]
impl<T: Builtin> Tool for T {
    fn name(&self) -> &str {
        T::NAME
    }
    fn description(&self) -> &str {
        T::DESCRIPTION
    }
    fn parameters(&self) -> &Value {
        &self.spec().parameters
    }
    fn read_only(&self) -> bool {
        T::READ_ONLY
    }
    fn schema(&self) -> Arc<ToolSchema> {
        self.spec().schema.get(self)
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let spec = self.spec();
        let out = match typed_args::<T>(spec, args) {
            Ok(args) => self.run(args, ctx).await,
            Err(fail) => fail,
        };
        out.into_result(spec.env.limits().max_output_chars)
    }
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
