//! The Anthropic request body, serialised straight from the borrowed history: no
//! `serde_json::Value` tree per message or for the body (the keys and their order are those of
//! the tree this replaced, so the bytes are the same; `body_tests` compares them).
//!
//! Consecutive same-role messages are merged into one message (tool results are `user`
//! blocks), tool-call ids go through one [`ToolIdMap`] over the whole history, and an assistant
//! message's kept vendor blocks are sent back block for block.

use std::borrow::Cow;
use std::sync::Arc;

use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::Value;

use super::cache::CacheControl;
use super::{API_SURFACE, WEB_SEARCH_TOOL};
use crate::core::message::{Message, MessageState, Part, Role, ToolCall};
use crate::core::provider::{ChatRequest, ToolSchema};
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::{HttpProviderConfig, DEFAULT_ANTHROPIC_MAX_TOKENS};
use crate::providers::convert::{args_object, system_text, ToolIdMap};
use crate::providers::merged::Merged;
use crate::providers::output_format::AnthropicOutputConfig;

/// The body of one `POST /v1/messages` (`stream: true`), borrowing the request's history and
/// tool schemas; serialise it with `serde_json`.
#[derive(Serialize)]
pub struct RequestBody<'a> {
    model: &'a str,
    max_tokens: u64,
    pub(super) messages: Merged<Block<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) system: Option<System>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tools: Option<Tools<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Choice<'a>>,
    /// Structured output (`output_config.format`).
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<AnthropicOutputConfig<'a>>,
}

impl<'a> RequestBody<'a> {
    /// The body for `request` under this provider entry.
    pub fn new(cfg: &HttpProviderConfig, request: &ChatRequest<'a>) -> Self {
        let mut max_tokens = u64::from(
            request
                .max_tokens
                .or(cfg.max_tokens)
                .unwrap_or(DEFAULT_ANTHROPIC_MAX_TOKENS),
        );
        let thinking = request.thinking_budget.map(|b| {
            // Extended thinking: `max_tokens` must exceed the budget.
            if max_tokens <= u64::from(b) {
                max_tokens = u64::from(b) + u64::from(DEFAULT_ANTHROPIC_MAX_TOKENS);
            }
            Thinking {
                kind: "enabled",
                budget_tokens: b,
            }
        });
        let tools = Tools {
            tools: request.tools,
            web_search: request.native_web_tools.web_search && cfg.web_search,
            cache_control: None,
        };
        let with_tools = !tools.tools.is_empty() || tools.web_search;
        let tool_choice = match request.tool_choice {
            _ if !with_tools => None,
            ToolChoice::Auto => None,
            ToolChoice::None => Some(Choice::None),
            ToolChoice::Required => Some(Choice::Any),
            ToolChoice::Tool(name) => Some(Choice::Tool { name }),
        };
        let mut body = RequestBody {
            model: request.model,
            max_tokens,
            messages: conversation(request.messages),
            stream: true,
            system: system_text(request.messages).map(System::Text),
            temperature: request.temperature.map(f64::from),
            thinking,
            tools: with_tools.then_some(tools),
            tool_choice,
            output_config: request.output_schema.map(AnthropicOutputConfig::of),
        };
        super::cache::place_breakpoints(&mut body, request.prompt_cache);
        body
    }
}

#[derive(Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Choice<'a> {
    None,
    Any,
    Tool { name: &'a str },
}

/// The system prompt: its text, or (with a cache breakpoint) one text block carrying it.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum System {
    Text(String),
    Blocks([SystemBlock; 1]),
}

/// A system text block with its cache breakpoint.
#[derive(Serialize)]
pub(super) struct SystemBlock {
    #[serde(rename = "type")]
    pub(super) kind: &'static str,
    pub(super) text: String,
    pub(super) cache_control: CacheControl,
}

/// The caller's tools, then the web search server tool when enabled; the last one carries
/// the tools' cache breakpoint, if any.
pub(super) struct Tools<'a> {
    tools: &'a [Arc<ToolSchema>],
    web_search: bool,
    pub(super) cache_control: Option<CacheControl>,
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

#[derive(Serialize)]
struct ServerTool {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.tools.len() + usize::from(self.web_search)))?;
        for (i, t) in self.tools.iter().enumerate() {
            let last = i + 1 == self.tools.len() && !self.web_search;
            seq.serialize_element(&Tool {
                name: &t.name,
                description: &t.description,
                input_schema: &t.parameters,
                cache_control: self.cache_control.filter(|_| last),
            })?;
        }
        if self.web_search {
            seq.serialize_element(&ServerTool {
                kind: WEB_SEARCH_TOOL,
                name: "web_search",
                cache_control: self.cache_control,
            })?;
        }
        seq.end()
    }
}

/// One content block.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum Block<'a> {
    Wire(WireBlock<'a>),
    /// A kept vendor block, sent back as it is.
    Native(&'a Value),
    /// A block carrying a cache breakpoint (`cache_control` after its own keys).
    Cached(Cached<'a>),
}

/// A block and its cache breakpoint.
#[derive(Serialize)]
pub(super) struct Cached<'a> {
    #[serde(flatten)]
    pub(super) block: WireBlock<'a>,
    pub(super) cache_control: CacheControl,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum WireBlock<'a> {
    Text {
        text: Cow<'a, str>,
    },
    Image {
        source: Source<'a>,
    },
    ToolUse {
        id: Cow<'a, str>,
        name: &'a str,
        input: Value,
    },
    ToolResult {
        tool_use_id: Cow<'a, str>,
        content: ResultContent<'a>,
        /// Sent only for a failed call (the API's default is `false`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

/// A tool result's content: its text, or its text then the images the tool attached.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum ResultContent<'a> {
    Text(&'a str),
    Blocks(Vec<WireBlock<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Source<'a> {
    Base64 { media_type: &'a str, data: &'a str },
    Url { url: &'a str },
}

/// Converts the universal history to Anthropic messages (system messages are left out: they
/// go to `system`).
fn conversation(messages: &[Arc<Message>]) -> Merged<Block<'_>> {
    let mut ids = ToolIdMap::default();
    let mut c = Merged::new("content", messages.len());
    for m in messages {
        let start = c.items.len();
        let role = match m.role {
            Role::System => continue,
            Role::User => {
                user_blocks(m, &mut c.items);
                "user"
            }
            Role::Assistant => {
                assistant_blocks(m, &mut ids, &mut c.items);
                "assistant"
            }
            Role::Tool => {
                let id = ids.result(m.tool_call_id.as_deref().unwrap_or_default());
                c.items.push(Block::Wire(WireBlock::ToolResult {
                    tool_use_id: id,
                    content: result_content(m),
                    is_error: m.is_tool_error(),
                }));
                "user"
            }
        };
        c.close(role, start);
    }
    c
}

fn text<'a>(text: impl Into<Cow<'a, str>>) -> Block<'a> {
    Block::Wire(WireBlock::Text { text: text.into() })
}

fn user_blocks<'a>(m: &'a Message, out: &mut Vec<Block<'a>>) {
    match &m.parts {
        Some(parts) => out.extend(parts.iter().filter_map(|p| match p {
            Part::Text { text: t } if t.is_empty() => None,
            Part::Text { text: t } => Some(text(t.as_str())),
            image => image_block(image).map(Block::Wire),
        })),
        None if m.content.is_empty() => {}
        None => out.push(text(m.content.as_str())),
    }
}

fn image_block(p: &Part) -> Option<WireBlock<'_>> {
    match p {
        Part::Text { .. } => None,
        Part::ImageInline { mime_type, data } => Some(WireBlock::Image {
            source: Source::Base64 {
                media_type: mime_type,
                data,
            },
        }),
        Part::ImageUri { uri, .. } => Some(WireBlock::Image {
            source: Source::Url { url: uri },
        }),
    }
}

/// A tool message's `tool_result` content: its text, or (when the tool attached images, e.g.
/// Read on an image file) a text block then the image blocks.
fn result_content(m: &Message) -> ResultContent<'_> {
    let images: Vec<WireBlock<'_>> = m.parts.iter().flatten().filter_map(image_block).collect();
    if images.is_empty() {
        return ResultContent::Text(&m.content);
    }
    let mut blocks = Vec::with_capacity(1 + images.len());
    if !m.content.is_empty() {
        blocks.push(WireBlock::Text {
            text: Cow::Borrowed(&m.content),
        });
    }
    blocks.extend(images);
    ResultContent::Blocks(blocks)
}

fn tool_use<'a>(c: &'a ToolCall, ids: &mut ToolIdMap) -> Block<'a> {
    Block::Wire(WireBlock::ToolUse {
        id: ids.call(&c.id),
        name: &c.function.name,
        input: args_object(&c.function.arguments),
    })
}

/// An assistant message's blocks: its kept vendor blocks in their order (tool-use blocks
/// rendered from `toolCalls`, so ids and arguments stay consistent with the results), else
/// its text and tool calls.
fn assistant_blocks<'a>(m: &'a Message, ids: &mut ToolIdMap, out: &mut Vec<Block<'a>>) {
    let native = m
        .native
        .as_ref()
        .filter(|n| n.format == API_SURFACE && m.state == MessageState::Complete);
    let Some(native) = native else {
        let content = m.content_for_api();
        if !content.is_empty() {
            out.push(text(content));
        }
        out.extend(m.tool_calls.iter().map(|c| tool_use(c, ids)));
        return;
    };
    let mut sent = vec![false; m.tool_calls.len()];
    for b in &native.blocks {
        if b.get("type").and_then(Value::as_str) != Some("tool_use") {
            out.push(Block::Native(b));
            continue;
        }
        let id = b.get("id").and_then(Value::as_str);
        if let Some(i) = m.tool_calls.iter().position(|c| Some(c.id.as_str()) == id) {
            if !sent[i] {
                sent[i] = true;
                out.push(tool_use(&m.tool_calls[i], ids));
            }
        }
    }
    for (c, done) in m.tool_calls.iter().zip(sent) {
        if !done {
            out.push(tool_use(c, ids));
        }
    }
}
