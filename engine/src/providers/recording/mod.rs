//! The record/replay file format (`"record": "path.jsonl"` writes it, provider kind `"replay"`
//! reads it). JSON Lines:
//!
//! ```text
//! {"robota_recording":1,"library":"0.1.0"}
//! {"context_window":{"model":"m","tokens":32768}}
//! {"exchange":{"request":{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":["Read"]},
//!   "stream":[{"text":"Hel"},{"text":"lo"}],
//!   "response":{"content":"Hello","stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}}}
//! ```
//!
//! The first line is the header (format version [`FORMAT_VERSION`]); then one line per model
//! call (`exchange`: the normalized request, the stream in order, the response or the `error`)
//! and one per context window a server reported. Only what the model saw and answered is
//! written: never headers or keys (error messages as the provider reported them, keys redacted).
//!
//! This folder holds the format (here), [`recorder`] (the provider wrapper that writes a
//! recording) and [`replay`] (the `replay` provider that serves one back).

pub mod recorder;
pub mod replay;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::errors::RobotaError;
use crate::core::message::{Message, NativeContent, Part, Role, ToolCall};
use crate::core::provider::{ChatRequest, ChatResponse, StopReason};
use crate::core::tokens::TokenUsage;
use crate::core::tool_choice::ToolChoice;

/// The recording format version this build reads and writes.
pub const FORMAT_VERSION: u64 = 1;

/// The header (first line).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Format version ([`FORMAT_VERSION`]).
    pub robota_recording: u64,
    /// The library version that wrote the file (informative).
    #[serde(default)]
    pub library: String,
}

impl Header {
    /// The header this build writes.
    pub fn current() -> Self {
        Header {
            robota_recording: FORMAT_VERSION,
            library: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// One line after the header.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Line {
    /// One model call.
    Exchange(Box<Exchange>),
    /// A context window the provider's server reported for a model.
    ContextWindow(WindowRecord),
}

/// A served context window.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowRecord {
    /// Model id.
    pub model: String,
    /// Window in tokens.
    pub tokens: u64,
}

/// One model call: request, stream, outcome.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exchange {
    /// What was asked.
    pub request: RequestRecord,
    /// What streamed, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stream: Vec<StreamItem>,
    /// The answer (absent when the call failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ResponseRecord>,
    /// The failure (absent when the call answered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
}

/// One streamed item.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StreamItem {
    /// A text delta.
    Text(String),
    /// A thinking delta.
    Thinking(String),
    /// A server-side tool use.
    ServerTool {
        /// Tool name.
        name: String,
        /// Its input.
        input: Value,
    },
}

/// A request as the model saw it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestRecord {
    /// Model id.
    pub model: String,
    /// The history sent (system message first, if any).
    pub messages: Vec<MessageRecord>,
    /// Names of the tools offered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// `auto`, `none`, `required` or `tool:NAME`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<String>,
    /// Max output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Thinking budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<u32>,
}

/// One message of a request (its model-visible fields).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageRecord {
    /// Role.
    pub role: Role,
    /// Content as sent (the interrupted suffix applied).
    pub content: String,
    /// Tool calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Name (tool messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Multimodal parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<Part>>,
    /// Vendor-native content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<NativeContent>,
}

/// Usage as recorded.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageRecord {
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Total, when the provider reported one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// Cache reads.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Cache writes.
    #[serde(default)]
    pub cache_creation_tokens: u64,
}

/// The answer of a call.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResponseRecord {
    /// Full text.
    pub content: String,
    /// Tool calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageRecord>,
    /// Stop reason.
    pub stop_reason: StopReason,
    /// Vendor-native content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<NativeContent>,
}

/// A failed call.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorRecord {
    /// `provider`, `auth`, `rate_limit`, `network` or `other`.
    pub kind: String,
    /// The message (for `provider`: without the `Provider Error (name):` prefix).
    pub message: String,
    /// Provider name (`provider`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// HTTP status (`provider`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Whether retrying may help (`provider`).
    #[serde(default)]
    pub recoverable: bool,
}

/// `auto`, `none`, `required` or `tool:NAME`.
pub fn tool_choice_str(c: &ToolChoice) -> Option<String> {
    match c {
        ToolChoice::Auto => None,
        ToolChoice::None => Some("none".into()),
        ToolChoice::Required => Some("required".into()),
        ToolChoice::Tool(n) => Some(format!("tool:{n}")),
    }
}

impl MessageRecord {
    /// The model-visible fields of `m`.
    pub fn of(m: &Message) -> Self {
        MessageRecord {
            role: m.role,
            content: m.content_for_api().into_owned(),
            tool_calls: m.tool_calls.clone(),
            tool_call_id: m.tool_call_id.clone(),
            name: m.name.clone(),
            parts: m.parts.clone(),
            native: m.native.as_deref().cloned(),
        }
    }
}

impl RequestRecord {
    /// The normalized form of `r`.
    pub fn of(r: &ChatRequest<'_>) -> Self {
        RequestRecord {
            model: r.model.to_string(),
            messages: r.messages.iter().map(|m| MessageRecord::of(m)).collect(),
            tools: r.tools.iter().map(|t| t.name.clone()).collect(),
            tool_choice: tool_choice_str(r.tool_choice),
            max_tokens: r.max_tokens,
            temperature: r.temperature,
            thinking_budget: r.thinking_budget,
        }
    }
}

impl From<TokenUsage> for UsageRecord {
    fn from(u: TokenUsage) -> Self {
        UsageRecord {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            total_tokens: u.total_tokens,
            cache_read_tokens: u.cache_read_tokens,
            cache_creation_tokens: u.cache_creation_tokens,
        }
    }
}

impl From<UsageRecord> for TokenUsage {
    fn from(u: UsageRecord) -> Self {
        TokenUsage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            total_tokens: u.total_tokens,
            cache_read_tokens: u.cache_read_tokens,
            cache_creation_tokens: u.cache_creation_tokens,
        }
    }
}

impl ResponseRecord {
    /// The recorded form of `r`.
    pub fn of(r: &ChatResponse) -> Self {
        ResponseRecord {
            content: r.content.clone(),
            tool_calls: r.tool_calls.clone(),
            usage: r.usage.map(UsageRecord::from),
            stop_reason: r.stop_reason,
            native: r.native.clone(),
        }
    }

    /// The response it records.
    pub fn to_response(&self) -> ChatResponse {
        ChatResponse {
            content: self.content.clone(),
            tool_calls: self.tool_calls.clone(),
            usage: self.usage.map(TokenUsage::from),
            stop_reason: self.stop_reason,
            native: self.native.clone(),
        }
    }
}

impl ErrorRecord {
    /// The recorded form of `e`.
    pub fn of(e: &RobotaError) -> Self {
        let plain = |kind: &str, message: &str| ErrorRecord {
            kind: kind.into(),
            message: message.into(),
            provider: None,
            status: None,
            recoverable: false,
        };
        match e {
            RobotaError::Provider {
                provider,
                message,
                status,
                recoverable,
            } => ErrorRecord {
                kind: "provider".into(),
                message: message.clone(),
                provider: Some(provider.clone()),
                status: *status,
                recoverable: *recoverable,
            },
            RobotaError::Authentication(m) => plain("auth", m),
            RobotaError::RateLimit { message, .. } => plain("rate_limit", message),
            RobotaError::Network(m) => plain("network", m),
            other => plain("other", &other.to_string()),
        }
    }

    /// The error it records.
    pub fn to_error(&self) -> RobotaError {
        match self.kind.as_str() {
            "provider" => RobotaError::Provider {
                provider: self.provider.clone().unwrap_or_default(),
                message: self.message.clone(),
                status: self.status,
                recoverable: self.recoverable,
            },
            "auth" => RobotaError::Authentication(self.message.clone()),
            "rate_limit" => RobotaError::RateLimit {
                message: self.message.clone(),
                retry_after: None,
            },
            "network" => RobotaError::Network(self.message.clone()),
            _ => RobotaError::Provider {
                provider: "replay".into(),
                message: self.message.clone(),
                status: None,
                recoverable: false,
            },
        }
    }
}
