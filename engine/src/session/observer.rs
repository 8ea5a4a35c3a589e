//! Callbacks a host receives while a session runs (tool progress, context, warnings).

use serde::Serialize;
use serde_json::Value;

use super::context::ContextState;

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolEndResult {
    /// The tool ran and returned a result.
    Success,
    /// The tool ran and failed (or panicked).
    Error,
    /// The call was refused (permission, approval, or a PreToolUse hook block) and did not run.
    Denied,
}

/// Session callbacks. All methods have empty defaults; they are called from the thread running
/// the turn and must not block for long.
pub trait SessionObserver: Send + Sync {
    /// A tool call begins: after its PreToolUse hooks (`args` is the input that runs, a hook's
    /// `updatedInput` included), before the permission check; always followed by `on_tool_end`
    /// with the same `args`. `schema` is the tool's JSON Schema (its `properties` in declared
    /// order).
    fn on_tool_start(&self, call_id: &str, tool: &str, args: &Value, schema: &Value) {
        let _ = (call_id, tool, args, schema);
    }
    /// A successful Edit or Write changed a file: its line diff, right before `on_tool_end`.
    fn on_tool_diff(&self, call_id: &str, tool: &str, diff: &crate::core::diff::FileDiff) {
        let _ = (call_id, tool, diff);
    }
    /// A tool call ended; `output` is the (truncated) text the model sees.
    fn on_tool_end(
        &self,
        call_id: &str,
        tool: &str,
        args: &Value,
        result: ToolEndResult,
        output: &str,
    ) {
        let _ = (call_id, tool, args, result, output);
    }
    /// The context-window estimate changed.
    fn on_context_update(&self, state: &ContextState) {
        let _ = state;
    }
    /// The history was compacted (before the `on_context_update` that follows).
    fn on_compacted(&self, compaction: &super::compaction::Compaction) {
        let _ = compaction;
    }
    /// Something went wrong but the session carries on (a hook failed or timed out, …).
    fn on_warning(&self, message: &str) {
        let _ = message;
    }
}
