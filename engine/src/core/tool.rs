//! The `Tool` seam and the single dispatch point every tool call goes through.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::message::Part;
use super::provider::ToolSchema;

/// Context of one tool call.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// Fires when the turn is aborted.
    pub cancel: CancellationToken,
    /// Provider-supplied tool call id.
    pub call_id: String,
    /// Id of the running execution.
    pub execution_id: String,
    /// 1-based round.
    pub round: u32,
    /// Images the tool attaches to its result.
    pub attachments: ToolAttachments,
    /// The file diff of an Edit or Write, for the tool's state.
    pub diff: super::diff::DiffSlot,
}

/// Images a tool attaches to its result (Read on an image file): the tool message carries them
/// as parts after its text, and each provider sends them in its own form.
#[derive(Debug, Clone, Default)]
pub struct ToolAttachments(Arc<Mutex<Vec<Part>>>);

impl ToolAttachments {
    /// Attaches `part` to the call's result.
    pub fn attach(&self, part: Part) {
        if let Ok(mut parts) = self.0.lock() {
            parts.push(part);
        }
    }

    /// The parts attached so far (they are no longer held here).
    pub fn take(&self) -> Vec<Part> {
        self.0
            .lock()
            .map(|mut parts| std::mem::take(&mut *parts))
            .unwrap_or_default()
    }
}

impl ToolContext {
    /// A context for calling a tool outside the loop (tests, hosts).
    pub fn detached(call_id: impl Into<String>) -> Self {
        ToolContext {
            cancel: CancellationToken::new(),
            call_id: call_id.into(),
            execution_id: String::new(),
            round: 0,
            attachments: ToolAttachments::default(),
            diff: Default::default(),
        }
    }
}

/// Outcome of a tool: `Ok(data)` (a string is used as-is, anything else is JSON-encoded for
/// the tool message) or `Err(message)` (recorded as `Error: <message>`).
pub type ToolResult = Result<Value, String>;

/// A tool the model can call.
#[async_trait]
pub trait Tool: Send + Sync {
    /// Unique name.
    fn name(&self) -> &str;
    /// Description shown to the model.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments object.
    fn parameters(&self) -> &Value;
    /// Whether the tool never changes anything.
    fn read_only(&self) -> bool {
        false
    }
    /// Whether this call may run in `plan` mode although the tool is outside the mode table
    /// (e.g. the `Agent` tool for a read-only agent type); deny rules still win.
    fn allowed_in_plan_mode(&self, args: &Value) -> bool {
        let _ = args;
        false
    }
    /// Runs the tool. Must honour `ctx.cancel` for long work.
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult;

    /// The schema sent to providers. The default builds it anew on every call; a tool that
    /// lives across turns keeps it in a [`SchemaCell`] so a turn only clones an `Arc`.
    fn schema(&self) -> Arc<ToolSchema> {
        Arc::new(build_schema(self))
    }
}

fn build_schema<T: Tool + ?Sized>(tool: &T) -> ToolSchema {
    ToolSchema {
        name: tool.name().to_string(),
        description: tool.description().to_string(),
        parameters: tool.parameters().clone(),
    }
}

/// A tool's provider schema, built on first use and shared after (a tool's name, description
/// and parameters never change once it exists).
#[derive(Debug, Default)]
pub struct SchemaCell(std::sync::OnceLock<Arc<ToolSchema>>);

impl SchemaCell {
    /// The schema of `tool` (the tool that owns this cell).
    pub fn get<T: Tool + ?Sized>(&self, tool: &T) -> Arc<ToolSchema> {
        self.0.get_or_init(|| Arc::new(build_schema(tool))).clone()
    }
}

/// The one place tool calls pass through (permissions, hooks, timeouts, truncation live in
/// implementations above core). The default runs the tool directly.
#[async_trait]
pub trait ToolDispatcher: Send + Sync {
    /// Runs `tool` with `args` (borrowed: the caller keeps the call's arguments, and the one
    /// copy the tool takes is made where it runs, after any gate).
    async fn dispatch(&self, tool: &Arc<dyn Tool>, args: &Value, ctx: &ToolContext) -> ToolResult;
}

/// Runs tools with no gate.
#[derive(Debug, Default, Clone, Copy)]
pub struct DirectDispatcher;

#[async_trait]
impl ToolDispatcher for DirectDispatcher {
    async fn dispatch(&self, tool: &Arc<dyn Tool>, args: &Value, ctx: &ToolContext) -> ToolResult {
        tool.execute(args.clone(), ctx).await
    }
}

/// A tool made from a closure (tests, benches, simple hosts). No schema validation here:
/// validated function tools live in `crate::tools`.
pub struct ClosureTool<F> {
    name: String,
    description: String,
    parameters: Value,
    f: F,
    schema: SchemaCell,
}

impl<F> ClosureTool<F>
where
    F: Fn(Value) -> ToolResult + Send + Sync,
{
    /// Builds a closure tool.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        f: F,
    ) -> Self {
        ClosureTool {
            name: name.into(),
            description: description.into(),
            parameters,
            f,
            schema: SchemaCell::default(),
        }
    }
}

#[async_trait]
impl<F> Tool for ClosureTool<F>
where
    F: Fn(Value) -> ToolResult + Send + Sync,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn schema(&self) -> Arc<ToolSchema> {
        self.schema.get(self)
    }
    async fn execute(&self, args: Value, _ctx: &ToolContext) -> ToolResult {
        (self.f)(args)
    }
}
