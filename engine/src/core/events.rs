//! Replay execution events (`onExecutionEvent(name, data)`) and owner paths.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Receives replay events: `(name, data)`; `data` always carries `executionId` and `conversationId`.
pub type ExecutionEventFn = Arc<dyn Fn(&str, &Value) + Send + Sync>;

/// Receives streamed text (run-scoped `onTextDelta`).
pub type TextDeltaFn = Arc<dyn Fn(&str) + Send + Sync>;

/// A tool the provider's server ran during a model call (its name and input), e.g.
/// Anthropic's native `web_search`.
pub type ServerToolFn = Arc<dyn Fn(&str, &serde_json::Value) + Send + Sync>;

/// One segment of an execution owner path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerPathSegment {
    /// `agent`, `tool`, `execution`, …
    pub owner_type: String,
    /// Owner id.
    pub owner_id: String,
}

impl OwnerPathSegment {
    /// Builds a segment.
    pub fn new(owner_type: impl Into<String>, owner_id: impl Into<String>) -> Self {
        OwnerPathSegment {
            owner_type: owner_type.into(),
            owner_id: owner_id.into(),
        }
    }
}

/// Event names, as constants so callers and tests agree.
pub mod names {
    /// Before each provider call.
    pub const PROVIDER_REQUEST: &str = "provider_request";
    /// A provider-native payload.
    pub const PROVIDER_NATIVE_RAW_PAYLOAD: &str = "provider_native_raw_payload";
    /// Each text delta.
    pub const PROVIDER_STREAM_RAW_DELTA: &str = "provider_stream_raw_delta";
    /// Provider returned.
    pub const PROVIDER_RESPONSE_RAW: &str = "provider_response_raw";
    /// Response accepted.
    pub const PROVIDER_RESPONSE_NORMALIZED: &str = "provider_response_normalized";
    /// Assistant committed.
    pub const ASSISTANT_MESSAGE_COMMITTED: &str = "assistant_message_committed";
    /// Before a tool batch.
    pub const TOOL_BATCH_STARTED: &str = "tool_batch_started";
    /// Per tool call.
    pub const TOOL_EXECUTION_REQUEST: &str = "tool_execution_request";
    /// Per tool result.
    pub const TOOL_EXECUTION_RESULT: &str = "tool_execution_result";
    /// Per tool message.
    pub const TOOL_MESSAGE_COMMITTED: &str = "tool_message_committed";
    /// A chat message appended.
    pub const HISTORY_MUTATION: &str = "history_mutation";
}
