//! Tool batch execution (default parallel, at most 5 at a time): parallel with bounded concurrency
//! or sequential, results in call order, unknown tools never executed, queued tools skipped after
//! abort.

use std::sync::Arc;

use futures_util::stream::{self, StreamExt};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::RunCtx;
use crate::core::events::{names, OwnerPathSegment};
use crate::core::message::{Part, ToolCall};
use crate::core::tool::{Tool, ToolContext, ToolDispatcher};

/// Error text of a tool skipped because the run was aborted.
pub const INTERRUPTED_TOOL_ERROR: &str = "Execution interrupted by user";

/// Parallel or one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BatchMode {
    /// Up to `max_concurrency` at once.
    #[default]
    Parallel,
    /// One after another.
    Sequential,
}

impl BatchMode {
    fn as_str(self) -> &'static str {
        match self {
            BatchMode::Parallel => "parallel",
            BatchMode::Sequential => "sequential",
        }
    }
}

/// One parsed tool call.
#[derive(Debug, Clone)]
pub struct ToolRequest {
    /// Provider call id.
    pub call_id: String,
    /// Requested tool name.
    pub tool_name: String,
    /// Parsed arguments (`Err` = unparsable JSON, reported as a failed result).
    pub arguments: Result<Value, String>,
}

/// Terminal result of one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRunResult {
    /// Whether the tool succeeded.
    pub success: bool,
    /// Tool output on success.
    pub result: Option<Value>,
    /// Error message on failure.
    pub error: Option<String>,
    /// Extra metadata (`errorCode:"unknown_tool"`, …).
    pub metadata: Map<String, Value>,
    /// Images the tool attached to its result ([`crate::core::tool::ToolAttachments`]).
    pub parts: Vec<Part>,
}

impl ToolRunResult {
    fn failure(error: impl Into<String>) -> Self {
        ToolRunResult {
            success: false,
            result: None,
            error: Some(error.into()),
            metadata: Map::new(),
            parts: Vec::new(),
        }
    }

    /// The result of a call the model emitted when its output was cut at `max_tokens`: not
    /// run; the model learns its output was cut (and, when the arguments are not complete
    /// JSON, that this call is the one cut), never "invalid JSON".
    pub(crate) fn cut_at_max_tokens(call: &ToolCall) -> Self {
        let complete = matches!(
            serde_json::from_str::<Value>(&call.function.arguments),
            Ok(Value::Object(_))
        );
        let mut r = Self::failure(if complete {
            MAX_TOKENS_NOT_RUN
        } else {
            MAX_TOKENS_CUT_CALL
        });
        r.metadata
            .insert("errorCode".into(), Value::String("max_tokens".into()));
        r
    }

    /// True for an unknown-tool skip.
    pub fn is_unknown_tool(&self) -> bool {
        self.metadata.get("errorCode").and_then(Value::as_str) == Some("unknown_tool")
    }

    /// Whether the call failed: an error result, or an output that is a tool result document
    /// `{"success":false,…}` (how built-in tools, permission denials and hook blocks report).
    pub fn is_failed(&self) -> bool {
        !self.success || self.result.as_ref().is_some_and(is_failure_document)
    }
}

/// `{"success":false,…}`, as an object or as its JSON text.
fn is_failure_document(v: &Value) -> bool {
    let failed = |o: &Map<String, Value>| o.get("success") == Some(&Value::Bool(false));
    match v {
        Value::Object(o) => failed(o),
        // Only a text that starts like an object and names `success` is parsed.
        Value::String(s) if s.trim_start().starts_with('{') && s.contains("\"success\"") => {
            serde_json::from_str::<Map<String, Value>>(s).is_ok_and(|o| failed(&o))
        }
        _ => false,
    }
}

/// Result of a tool call cut by `max_tokens` (shown to the model as `Error: …`).
pub const MAX_TOKENS_CUT_CALL: &str = "output was cut at max_tokens before this tool call was complete; the tool was not run. Continue with a shorter output or split the work.";

/// Result of a complete tool call in an output cut by `max_tokens`.
pub const MAX_TOKENS_NOT_RUN: &str = "output was cut at max_tokens; this tool call was not run.";

fn parse_arguments(call: &ToolCall) -> ToolRequest {
    let raw = call.function.arguments.trim();
    let arguments = if raw.is_empty() {
        Ok(Value::Object(Map::new()))
    } else {
        serde_json::from_str::<Value>(raw).map_err(|_| {
            format!(
                "Validation Error: Failed to parse arguments for tool \"{}\" (call {}): invalid JSON",
                call.function.name, call.id
            )
        })
    };
    ToolRequest {
        call_id: call.id.clone(),
        tool_name: call.function.name.clone(),
        arguments,
    }
}

fn unknown_tool_result(name: &str, available: &[String]) -> ToolRunResult {
    let list = if available.is_empty() {
        "no registered tools are available".to_string()
    } else {
        available.join(", ")
    };
    let mut r = ToolRunResult::failure(format!(
        "Tool \"{name}\" is not registered, so the tool call was not executed. Available tools: {list}."
    ));
    r.metadata.insert("errorCode".into(), json!("unknown_tool"));
    r.metadata.insert("requestedTool".into(), json!(name));
    r.metadata.insert("availableTools".into(), json!(available));
    r
}

/// Everything a batch needs besides its requests (`IToolExecutionBatchContext`).
#[derive(Clone, Copy)]
pub struct BatchContext<'a> {
    /// Registered tools.
    pub tools: &'a [Arc<dyn Tool>],
    /// Where calls go.
    pub dispatcher: &'a Arc<dyn ToolDispatcher>,
    /// Parallel or sequential.
    pub mode: BatchMode,
    /// Parallel width (values < 1 clamp to 1).
    pub max_concurrency: usize,
    /// Abort signal: requests not yet started are skipped once it fires.
    pub cancel: &'a CancellationToken,
    /// Execution id passed to tools.
    pub execution_id: &'a str,
    /// Round passed to tools.
    pub round: u32,
}

/// Executes `requests`; results are in request order whatever finishes first.
pub async fn execute_batch(
    requests: &[ToolRequest],
    batch: &BatchContext<'_>,
) -> Vec<ToolRunResult> {
    let BatchContext {
        tools,
        dispatcher,
        mode,
        max_concurrency,
        cancel,
        execution_id,
        round,
    } = *batch;
    let mut available: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
    available.sort();
    let width = match mode {
        BatchMode::Sequential => 1,
        BatchMode::Parallel => max_concurrency.max(1),
    };
    let available = &available;
    // Indices rather than `&ToolRequest` items: a closure over a borrowed item trips rustc's
    // higher-ranked lifetime inference and makes the whole run future `!Send`.
    stream::iter(0..requests.len())
        .map(|i| async move {
            let req = &requests[i];
            if cancel.is_cancelled() {
                return ToolRunResult::failure(INTERRUPTED_TOOL_ERROR);
            }
            let Some(tool) = tools.iter().find(|t| t.name() == req.tool_name) else {
                return unknown_tool_result(&req.tool_name, available);
            };
            let args = match &req.arguments {
                Ok(a) => a,
                Err(e) => return ToolRunResult::failure(e.clone()),
            };
            let ctx = ToolContext {
                cancel: cancel.child_token(),
                call_id: req.call_id.clone(),
                execution_id: execution_id.to_string(),
                round,
                attachments: Default::default(),
                diff: Default::default(),
            };
            match dispatcher.dispatch(tool, args, &ctx).await {
                Ok(v) => ToolRunResult {
                    success: true,
                    result: Some(v),
                    error: None,
                    metadata: Map::new(),
                    parts: ctx.attachments.take(),
                },
                Err(e) => ToolRunResult::failure(e),
            }
        })
        .buffered(width)
        .collect()
        .await
}

/// Runs the tool calls of one round with events.
pub(crate) async fn run_tool_calls(
    ctx: &mut RunCtx<'_>,
    round: u32,
    calls: &[ToolCall],
) -> Vec<ToolRunResult> {
    let requests: Vec<ToolRequest> = calls.iter().map(parse_arguments).collect();
    let batch_id = super::record::batch_id(ctx, round);
    let mode = ctx.config.batch_mode;
    let width = ctx.config.max_concurrency.max(1);
    if ctx.emitter.enabled() {
        ctx.emitter
            .emit(names::TOOL_BATCH_STARTED, Some(round), |d| {
                d.insert("batchId".into(), json!(batch_id));
                d.insert("mode".into(), json!(mode.as_str()));
                d.insert("maxConcurrency".into(), json!(width));
                d.insert("requestCount".into(), json!(requests.len()));
                d.insert(
                    "tools".into(),
                    json!(requests
                        .iter()
                        .map(|r| r.tool_name.as_str())
                        .collect::<Vec<_>>()),
                );
            });
        for (index, req) in requests.iter().enumerate() {
            let mut owner_path = ctx.options.owner_path.clone();
            owner_path.push(OwnerPathSegment::new("tool", req.call_id.clone()));
            ctx.emitter
                .emit(names::TOOL_EXECUTION_REQUEST, Some(round), |d| {
                    d.insert("batchId".into(), json!(batch_id));
                    d.insert("index".into(), json!(index));
                    d.insert("toolName".into(), json!(req.tool_name));
                    d.insert("toolCallId".into(), json!(req.call_id));
                    d.insert(
                        "parameters".into(),
                        req.arguments.clone().unwrap_or(Value::Null),
                    );
                    d.insert("ownerPath".into(), json!(owner_path));
                });
        }
    }
    let batch = BatchContext {
        tools: &ctx.config.tools,
        dispatcher: &ctx.config.dispatcher,
        mode,
        max_concurrency: width,
        cancel: &ctx.cancel,
        execution_id: ctx.emitter.execution_id(),
        round,
    };
    let results = execute_batch(&requests, &batch).await;
    for (index, (req, res)) in requests.iter().zip(&results).enumerate() {
        if !res.is_unknown_tool() {
            ctx.tools_executed.push(req.tool_name.clone());
        }
        if ctx.emitter.enabled() {
            ctx.emitter
                .emit(names::TOOL_EXECUTION_RESULT, Some(round), |d| {
                    d.insert("batchId".into(), json!(batch_id));
                    d.insert("index".into(), json!(index));
                    d.insert("toolName".into(), json!(req.tool_name));
                    d.insert("toolCallId".into(), json!(req.call_id));
                    d.insert("success".into(), json!(res.success));
                    d.insert("result".into(), res.result.clone().unwrap_or(Value::Null));
                    d.insert("error".into(), json!(res.error));
                    d.insert("metadata".into(), Value::Object(res.metadata.clone()));
                });
        }
    }
    results
}
