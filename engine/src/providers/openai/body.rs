//! The Chat Completions request body, serialised straight from the borrowed history: no
//! `serde_json::Value` tree per message or for the body (the keys and their order are those of
//! the tree this replaced, so the bytes are the same; `body_tests` compares them).
//!
//! Tool-call ids are kept as given: the server that issued them (e.g. a reused `call_0`)
//! expects them back.

use std::borrow::Cow;
use std::sync::Arc;

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::Value;

use super::reasoning_effort;
use crate::core::message::{Message, Part, Role, ToolCall};
use crate::core::output_schema::OutputSchema;
use crate::core::provider::{ChatRequest, ToolSchema};
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::{HttpProviderConfig, ProviderKind};
use crate::providers::convert::DataUrl;
use crate::providers::output_format::OpenAiResponseFormat;

/// The body of one `POST /chat/completions`, borrowing the request's history and tool
/// schemas; serialise it with `serde_json`.
pub struct RequestBody<'a> {
    model: &'a str,
    messages: &'a [Arc<Message>],
    streaming: bool,
    /// The optional fields after `stream_options`, in order.
    tail: Vec<Tail<'a>>,
}

/// An optional top-level field.
enum Tail<'a> {
    /// `max_completion_tokens` (OpenAI) or `max_tokens` (compatible servers).
    MaxTokens(&'static str, u32),
    Temperature(f64),
    ReasoningEffort(&'static str),
    Tools(&'a [Arc<ToolSchema>]),
    ToolChoice(&'a ToolChoice),
    /// Structured output (`response_format`).
    ResponseFormat(&'a OutputSchema),
    /// `prompt_cache_key`: routes the session's requests to the same prompt cache.
    PromptCacheKey(&'a str),
}

impl<'a> RequestBody<'a> {
    /// The streamed body for `request` under this provider entry.
    pub fn new(cfg: &HttpProviderConfig, request: &ChatRequest<'a>) -> Self {
        let mut tail = Vec::with_capacity(5);
        if let Some(n) = request.max_tokens.or(cfg.max_tokens) {
            let field = if matches!(cfg.kind, ProviderKind::OpenAi | ProviderKind::AzureOpenAi) {
                "max_completion_tokens"
            } else {
                "max_tokens"
            };
            tail.push(Tail::MaxTokens(field, n));
        }
        if let Some(t) = request.temperature {
            tail.push(Tail::Temperature(f64::from(t)));
        }
        if let Some(e) = request
            .thinking_budget
            .and_then(|b| reasoning_effort(request.model, b))
        {
            tail.push(Tail::ReasoningEffort(e));
        }
        if !request.tools.is_empty() {
            tail.push(Tail::Tools(request.tools));
            if !matches!(request.tool_choice, ToolChoice::Auto) {
                tail.push(Tail::ToolChoice(request.tool_choice));
            }
        }
        if let Some(schema) = request.output_schema {
            tail.push(Tail::ResponseFormat(schema));
        }
        if let Some(key) = prompt_cache_key(cfg, request) {
            tail.push(Tail::PromptCacheKey(key));
        }
        RequestBody {
            model: request.model,
            messages: request.messages,
            streaming: true,
            tail,
        }
    }

    /// The same body asked without streaming: `"stream": false` and no `stream_options`,
    /// whose place the last field takes (as removing it from the old body's ordered map did).
    pub fn without_streaming(mut self) -> Self {
        self.streaming = false;
        if let Some(last) = self.tail.pop() {
            self.tail.insert(0, last);
        }
        self
    }
}

impl Serialize for RequestBody<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("model", self.model)?;
        map.serialize_entry("messages", &Messages(self.messages))?;
        map.serialize_entry("stream", &self.streaming)?;
        if self.streaming {
            map.serialize_entry(
                "stream_options",
                &StreamOptions {
                    include_usage: true,
                },
            )?;
        }
        for t in &self.tail {
            match t {
                Tail::MaxTokens(field, n) => map.serialize_entry(field, n)?,
                Tail::Temperature(t) => map.serialize_entry("temperature", t)?,
                Tail::ReasoningEffort(e) => map.serialize_entry("reasoning_effort", e)?,
                Tail::Tools(tools) => map.serialize_entry("tools", &Tools(tools))?,
                Tail::ToolChoice(c) => map.serialize_entry("tool_choice", &Choice(c))?,
                Tail::ResponseFormat(schema) => {
                    map.serialize_entry("response_format", &OpenAiResponseFormat::of(schema))?
                }
                Tail::PromptCacheKey(k) => map.serialize_entry("prompt_cache_key", k)?,
            }
        }
        map.end()
    }
}

/// The session's cache key, sent to OpenAI itself (compatible servers may refuse unknown
/// fields) while prompt caching is on.
pub(crate) fn prompt_cache_key<'a>(
    cfg: &HttpProviderConfig,
    request: &ChatRequest<'a>,
) -> Option<&'a str> {
    let official = matches!(
        cfg.kind,
        ProviderKind::OpenAi | ProviderKind::OpenAiResponses
    );
    request
        .cache_key
        .filter(|k| official && request.prompt_cache.is_on() && !k.is_empty())
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

struct Tools<'a>(&'a [Arc<ToolSchema>]);

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

#[derive(Serialize)]
struct Function<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|t| Tool {
            kind: "function",
            function: Function {
                name: &t.name,
                description: &t.description,
                parameters: &t.parameters,
            },
        }))
    }
}

struct Choice<'a>(&'a ToolChoice);

#[derive(Serialize)]
struct Named<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Name<'a>,
}

#[derive(Serialize)]
struct Name<'a> {
    name: &'a str,
}

impl Serialize for Choice<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ToolChoice::Auto => s.serialize_str("auto"), // never sent: `auto` is the default
            ToolChoice::None => s.serialize_str("none"),
            ToolChoice::Required => s.serialize_str("required"),
            ToolChoice::Tool(name) => Named {
                kind: "function",
                function: Name { name },
            }
            .serialize(s),
        }
    }
}

struct Messages<'a>(&'a [Arc<Message>]);

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        // Tool messages of one round whose tool attached images (Read on an image file): a
        // `tool` message holds text only, so the images follow the round's last tool message
        // in one user message.
        let mut with_images: Vec<&Message> = Vec::new();
        for (i, m) in self.0.iter().enumerate() {
            seq.serialize_element(&WireMessage::of(m))?;
            if m.role == Role::Tool && m.parts.iter().flatten().any(is_image) {
                with_images.push(m);
            }
            let round_ends = self.0.get(i + 1).is_none_or(|n| n.role != Role::Tool);
            if round_ends && !with_images.is_empty() {
                seq.serialize_element(&WireMessage::User {
                    content: UserContent::ToolImages(ToolImages(std::mem::take(&mut with_images))),
                })?;
            }
        }
        seq.end()
    }
}

fn is_image(p: &Part) -> bool {
    !matches!(p, Part::Text { .. })
}

/// The images of tool results, each tool message's introduced by a text part naming its call.
struct ToolImages<'a>(Vec<&'a Message>);

impl Serialize for ToolImages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for m in &self.0 {
            let intro = format!(
                "Images returned by the {} tool call {}:",
                m.name.as_deref().unwrap_or("tool"),
                m.tool_call_id.as_deref().unwrap_or_default()
            );
            seq.serialize_element(&WirePart::Text { text: &intro })?;
            for p in m.parts.iter().flatten().filter(|p| is_image(p)) {
                seq.serialize_element(&wire_part(p))?;
            }
        }
        seq.end()
    }
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum WireMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: UserContent<'a>,
    },
    Assistant {
        // Tool calls without text: `"content": ""`. OpenAI, vLLM, llama.cpp and Ollama accept
        // it; llama-cpp-python rejects `null` (a validation error) and its chat templates fail
        // on a missing key ("'dict object' has no attribute 'content'").
        content: Cow<'a, str>,
        #[serde(skip_serializing_if = "Calls::is_empty")]
        tool_calls: Calls<'a>,
    },
    Tool {
        tool_call_id: &'a str,
        content: &'a str,
    },
}

impl<'a> WireMessage<'a> {
    fn of(m: &'a Message) -> Self {
        match m.role {
            Role::System => WireMessage::System {
                content: &m.content,
            },
            Role::User => WireMessage::User {
                content: match &m.parts {
                    Some(parts) => UserContent::Parts(Parts(parts)),
                    None => UserContent::Text(&m.content),
                },
            },
            Role::Assistant => WireMessage::Assistant {
                content: m.content_for_api(),
                tool_calls: Calls(&m.tool_calls),
            },
            Role::Tool => WireMessage::Tool {
                tool_call_id: m.tool_call_id.as_deref().unwrap_or_default(),
                content: &m.content,
            },
        }
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum UserContent<'a> {
    Text(&'a str),
    Parts(Parts<'a>),
    ToolImages(ToolImages<'a>),
}

struct Parts<'a>(&'a [Part]);

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WirePart<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: ImageUrl<'a> },
}

#[derive(Serialize)]
struct ImageUrl<'a> {
    url: Url<'a>,
}

enum Url<'a> {
    Plain(&'a str),
    Data(DataUrl<'a>),
}

impl Serialize for Url<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Url::Plain(u) => s.serialize_str(u),
            // Written as it is formatted: a large image is not copied into a `String` first.
            Url::Data(d) => s.collect_str(d),
        }
    }
}

impl Serialize for Parts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(wire_part))
    }
}

fn wire_part(p: &Part) -> WirePart<'_> {
    match p {
        Part::Text { text } => WirePart::Text { text },
        Part::ImageInline { mime_type, data } => WirePart::ImageUrl {
            image_url: ImageUrl {
                url: Url::Data(DataUrl { mime_type, data }),
            },
        },
        Part::ImageUri { uri, .. } => WirePart::ImageUrl {
            image_url: ImageUrl {
                url: Url::Plain(uri),
            },
        },
    }
}

struct Calls<'a>(&'a [ToolCall]);

impl Calls<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(Serialize)]
struct WireCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CallFunction<'a>,
}

#[derive(Serialize)]
struct CallFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

impl Serialize for Calls<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|c| WireCall {
            id: &c.id,
            kind: "function",
            function: CallFunction {
                name: &c.function.name,
                arguments: &c.function.arguments,
            },
        }))
    }
}
