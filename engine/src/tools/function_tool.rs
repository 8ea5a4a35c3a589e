//! Function tools: a tool made of a name, a description, a JSON Schema and a closure, whose
//! input is validated against the schema (`boon`, [`super::schema_compile`]) before the closure
//! runs.
//!
//! * A validation failure is returned as the tool error
//!   `Validation Error: Invalid parameters for tool "<name>": <problems>` naming each field
//!   (the closure does not run).
//! * A closure error becomes `Tool Execution Error (<name>): Function tool execution failed: <msg>`.
//! * A panicking closure is caught and reported the same way; it never unwinds into the loop.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;
use futures_util::FutureExt;
use serde_json::Value;

use super::validation::SchemaValidator;
use crate::core::tool::{Tool, ToolContext, ToolResult};

/// The boxed future an async handler returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = ToolResult> + Send>>;

type Handler = Arc<dyn Fn(Value, ToolContext) -> HandlerFuture + Send + Sync>;

/// A validated closure tool.
pub struct FunctionTool {
    name: String,
    description: String,
    parameters: Value,
    validator: SchemaValidator,
    read_only: bool,
    handler: Handler,
    schema: crate::core::tool::SchemaCell,
}

impl std::fmt::Debug for FunctionTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionTool")
            .field("name", &self.name)
            .field("read_only", &self.read_only)
            .finish()
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "the tool panicked".to_string()
    }
}

impl FunctionTool {
    /// A tool with an async handler `f(args, ctx)`. Errors when the name is empty, the schema
    /// is not a valid JSON Schema, or it does not describe an object.
    pub fn new_async<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        f: F,
    ) -> Result<Self, String>
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResult> + Send + 'static,
    {
        let name = name.into();
        if name.trim().is_empty() {
            return Err("Function tool name must not be empty".to_string());
        }
        if parameters.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!(
                "Invalid schema for tool \"{name}\": parameters must be a JSON Schema with \"type\": \"object\""
            ));
        }
        let validator = SchemaValidator::new(&parameters)
            .map_err(|e| format!("Invalid schema for tool \"{name}\": {e}"))?;
        Ok(FunctionTool {
            name,
            description: description.into(),
            parameters,
            validator,
            read_only: false,
            handler: Arc::new(move |args, ctx| Box::pin(f(args, ctx))),
            schema: Default::default(),
        })
    }

    /// A tool with a synchronous handler `f(args)`.
    pub fn new_sync<F>(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        f: F,
    ) -> Result<Self, String>
    where
        F: Fn(Value) -> ToolResult + Send + Sync + 'static,
    {
        let f = Arc::new(f);
        Self::new_async(name, description, parameters, move |args, _ctx| {
            let f = f.clone();
            async move { f(args) }
        })
    }

    /// Marks the tool read-only (it never changes anything).
    pub fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Validates `args` against the schema (the message the model would see on failure).
    pub fn validate(&self, args: &Value) -> Result<(), String> {
        self.validator.check_for_tool(&self.name, args)
    }
}

#[async_trait]
impl Tool for FunctionTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn schema(&self) -> std::sync::Arc<crate::core::provider::ToolSchema> {
        self.schema.get(self)
    }
    fn read_only(&self) -> bool {
        self.read_only
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.validate(&args)?;
        let fut = match std::panic::catch_unwind(AssertUnwindSafe(|| {
            (self.handler)(args, ctx.clone())
        })) {
            Ok(fut) => fut,
            Err(p) => return Err(self.failure(&panic_text(p.as_ref()))),
        };
        match AssertUnwindSafe(fut).catch_unwind().await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(msg)) => Err(self.failure(&msg)),
            Err(p) => Err(self.failure(&panic_text(p.as_ref()))),
        }
    }
}

impl FunctionTool {
    fn failure(&self, msg: &str) -> String {
        format!(
            "Tool Execution Error ({}): Function tool execution failed: {msg}",
            self.name
        )
    }
}
