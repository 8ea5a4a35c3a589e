//! The universal message (`TUniversalMessage`): one shape for every role, serialized with the
//! Robota field names (`toolCalls`, `toolCallId`, `state`, …) so it is the JSON that crosses the C ABI.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::util::{new_uuid, now_iso};

/// Suffix the provider view appends to interrupted assistant messages.
pub const INTERRUPTED_SUFFIX: &str = "\n\n[This response was interrupted by the user]";

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human (or host) side.
    User,
    /// The model.
    Assistant,
    /// The system prompt.
    System,
    /// A tool result.
    Tool,
}

impl Role {
    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Tool => "tool",
        }
    }
}

/// Whether a message finished normally or was cut short by an abort (assistant only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum MessageState {
    /// Finished normally.
    #[default]
    Complete,
    /// Aborted while streaming.
    Interrupted,
}

/// The function part of a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// Tool name as the model requested it.
    pub name: String,
    /// Arguments as a JSON string (exactly as the provider produced them).
    pub arguments: String,
}

/// One tool call requested by the assistant. The `id` is provider transcript data: kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider-supplied id (may repeat across rounds, e.g. `call_0`).
    pub id: String,
    /// Always `"function"`.
    #[serde(rename = "type", default = "function_kind")]
    pub kind: String,
    /// Name and arguments.
    pub function: FunctionCall,
}

fn function_kind() -> String {
    "function".to_string()
}

impl ToolCall {
    /// Builds a function tool call.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            kind: function_kind(),
            function: FunctionCall {
                name: name.into(),
                arguments: arguments.into(),
            },
        }
    }
}

/// A content part of a user or assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An inline (base64) image.
    ImageInline {
        /// MIME type, e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Base64 data.
        data: String,
    },
    /// An image by URI.
    ImageUri {
        /// The URI.
        uri: String,
        /// Optional MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none", default)]
        mime_type: Option<String>,
    },
}

/// An assistant message's content in a vendor's own format, for what the universal fields cannot
/// hold (e.g. Anthropic server-tool use and result blocks). The provider of that format sends
/// it back verbatim in later requests; other providers ignore it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NativeContent {
    /// The wire format, e.g. `anthropic-messages`.
    pub format: String,
    /// The content blocks in the vendor's order (text and tool-use blocks included, so the
    /// order survives; their text and arguments also live in `content` and `toolCalls`).
    pub blocks: Vec<Value>,
}

/// Metadata key set to `true` on a tool message whose call failed (the host tool completed
/// with an error, a built-in tool reported `{"success":false,…}`, the permission was denied or
/// the call was not run). Providers send it in the vendor's error form (Anthropic `is_error`).
pub const TOOL_ERROR_KEY: &str = "isError";

/// Metadata key set to `true` on the assistant placeholder of a failed model call
/// (`Request failed: …`): shown to the user, never sent to a model.
pub const PROVIDER_ERROR_KEY: &str = "providerError";

/// Flat metadata map (values: strings, numbers, booleans, arrays, maps of numbers).
pub type Metadata = Map<String, Value>;

/// The universal message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// UUID.
    pub id: String,
    /// Author role.
    pub role: Role,
    /// Text content (`null` is read as empty for assistant messages with only tool calls).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub content: String,
    /// `complete` or `interrupted` (assistant only).
    #[serde(default)]
    pub state: MessageState,
    /// Assistant tool calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For tool messages: the call this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Optional name (tool name for tool messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Optional multimodal parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<Part>>,
    /// Optional metadata (boxed: a map is 72 bytes inline, and a history holds many messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Box<Metadata>>,
    /// Assistant content in a vendor's own format, when the universal fields cannot hold all
    /// of it (see [`NativeContent`]; boxed: rare).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<Box<NativeContent>>,
    /// ISO-8601 creation time.
    #[serde(default = "now_iso")]
    pub timestamp: String,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

impl Message {
    fn base(role: Role, content: String) -> Self {
        Message {
            id: new_uuid(),
            role,
            content,
            state: MessageState::Complete,
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            parts: None,
            metadata: None,
            native: None,
            timestamp: now_iso(),
        }
    }

    /// `createUserMessage`.
    pub fn user(content: impl Into<String>) -> Self {
        Self::base(Role::User, content.into())
    }

    /// `createSystemMessage`.
    pub fn system(content: impl Into<String>) -> Self {
        Self::base(Role::System, content.into())
    }

    /// `createAssistantMessage` (state defaults to complete).
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::base(Role::Assistant, content.into())
    }

    /// `createToolMessage`.
    pub fn tool(
        content: impl Into<String>,
        tool_call_id: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        let mut m = Self::base(Role::Tool, content.into());
        m.tool_call_id = Some(tool_call_id.into());
        m.name = Some(name.into());
        m
    }

    /// Sets metadata (builder style).
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = Some(Box::new(metadata));
        self
    }

    /// The content as providers must see it: interrupted assistant text gets [`INTERRUPTED_SUFFIX`].
    pub fn content_for_api(&self) -> std::borrow::Cow<'_, str> {
        if self.role == Role::Assistant && self.state == MessageState::Interrupted {
            std::borrow::Cow::Owned(format!("{}{}", self.content, INTERRUPTED_SUFFIX))
        } else {
            std::borrow::Cow::Borrowed(&self.content)
        }
    }

    /// Reads a metadata value.
    pub fn meta(&self, key: &str) -> Option<&Value> {
        self.metadata.as_ref().and_then(|m| m.get(key))
    }

    /// A tool result whose call failed ([`TOOL_ERROR_KEY`]).
    pub fn is_tool_error(&self) -> bool {
        self.role == Role::Tool && self.meta(TOOL_ERROR_KEY) == Some(&Value::Bool(true))
    }

    /// An entry for the user only, never sent to a model: the `Request failed: …` placeholder
    /// of a failed model call ([`PROVIDER_ERROR_KEY`]).
    pub fn is_ui_only(&self) -> bool {
        self.role == Role::Assistant && self.meta(PROVIDER_ERROR_KEY) == Some(&Value::Bool(true))
    }

    /// Whether a model is sent this message: not an entry for the user only, and not an
    /// assistant message aborted before it said anything (its provider text would be the
    /// interruption note alone, an error placeholder in the model's mouth).
    pub fn is_sent_to_model(&self) -> bool {
        let said_nothing = self.role == Role::Assistant
            && self.state == MessageState::Interrupted
            && self.content.is_empty()
            && self.tool_calls.is_empty()
            && self.native.is_none();
        !self.is_ui_only() && !said_nothing
    }

    /// True for "assistant, non-empty content, no tool calls" (a final answer).
    pub fn is_final_answer(&self) -> bool {
        self.role == Role::Assistant && !self.content.is_empty() && self.tool_calls.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_uses_robota_names() {
        let mut m = Message::assistant("hi");
        m.tool_calls.push(ToolCall::new("call_0", "Read", "{}"));
        let v = serde_json::to_value(&m).unwrap_or_default();
        assert_eq!(v["toolCalls"][0]["type"], "function");
        assert_eq!(v["state"], "complete");
        assert_eq!(v["role"], "assistant");
        let t = Message::tool("x", "call_0", "Read");
        let v = serde_json::to_value(&t).unwrap_or_default();
        assert_eq!(v["toolCallId"], "call_0");
    }

    #[test]
    fn null_content_reads_as_empty() {
        let m: Message = serde_json::from_str(r#"{"id":"a","role":"assistant","content":null}"#)
            .unwrap_or_else(|_| Message::user("bad"));
        assert_eq!(m.content, "");
        assert_eq!(m.role, Role::Assistant);
    }
}
