//! Histories and request options shared by the request-body tests of the wire formats: each
//! format checks that its body written straight to bytes equals the bytes of the `Value` tree
//! it replaced, over every history and option set here.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::core::message::{Message, MessageState, NativeContent, Part, ToolCall};
use crate::core::provider::{ChatRequest, NativeWebToolRequest, ToolSchema};
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::{HttpProviderConfig, ProviderKind};

fn assistant_calls(content: &str, calls: &[(&str, &str, &str)]) -> Message {
    let mut m = Message::assistant(content);
    m.tool_calls = calls
        .iter()
        .map(|(id, name, args)| ToolCall::new(*id, *name, *args))
        .collect();
    m
}

fn tool(id: Option<&str>, content: &str) -> Message {
    let mut m = Message::tool(content, id.unwrap_or_default(), "add");
    if id.is_none() {
        m.tool_call_id = None;
        m.name = None;
    }
    m
}

/// A failed call's result (sent in the vendor's error form).
fn failed_tool(id: &str, content: &str) -> Message {
    let mut meta = serde_json::Map::new();
    meta.insert(crate::core::message::TOOL_ERROR_KEY.into(), json!(true));
    tool(Some(id), content).with_metadata(meta)
}

fn user_parts(parts: Vec<Part>) -> Message {
    let mut m = Message::user("ignored when parts are set");
    m.parts = Some(parts);
    m
}

fn native(format: &str, m: Message, blocks: Vec<Value>) -> Message {
    let mut m = m;
    m.native = Some(Box::new(NativeContent {
        format: format.to_string(),
        blocks,
    }));
    m
}

fn image_parts() -> Vec<Part> {
    vec![
        Part::Text {
            text: "look: \"this\"".into(),
        },
        Part::Text {
            text: String::new(),
        },
        Part::ImageInline {
            mime_type: "image/png".into(),
            data: "iVBORw0KGgo=".into(),
        },
        Part::ImageUri {
            uri: "https://example.com/a b.png?x=1&y=\"2\"".into(),
            mime_type: Some("image/png".into()),
        },
        Part::ImageUri {
            uri: "gs://bucket/c.jpg".into(),
            mime_type: None,
        },
    ]
}

fn native_blocks() -> Vec<Value> {
    vec![
        json!({"type": "thinking", "thinking": "let me think", "signature": "sig=="}),
        json!({"type": "text", "text": "Searching.", "citations": [{"url": "u", "n": 1.5}]}),
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
               "input": {"query": "rust serde"}}),
        json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
               "content": [{"type": "web_search_result", "url": "https://x", "title": "X"}]}),
        json!({"type": "tool_use", "id": "toolu_2", "name": "add", "input": {}}),
        json!({"type": "tool_use", "id": "toolu_2", "name": "add", "input": {}}),
        json!({"type": "tool_use", "id": "unknown", "name": "add", "input": {}}),
        json!({"type": "redacted_thinking", "data": "xyz"}),
    ]
}

/// Histories covering every conversion rule (merges, ids, arguments, parts, native blocks).
fn histories() -> Vec<Vec<Arc<Message>>> {
    let mut interrupted = assistant_calls("partial", &[("call_9", "add", "{\"a\":1}")]);
    interrupted.state = MessageState::Interrupted;
    let mut interrupted_native = native(
        "anthropic-messages",
        Message::assistant("cut"),
        native_blocks(),
    );
    interrupted_native.state = MessageState::Interrupted;
    let calls = [
        (
            "call_0",
            "add",
            "{\"a\": 2, \"b\": 3.25, \"s\": \"\\u00e9\\n\"}",
        ),
        ("call_0", "add", "not json"),
        ("a:b/c", "add", ""),
        ("", "add", "[1,2]"),
        (
            "call_1",
            "add",
            "{\"x\":1,\"x\":2,\"y\":[1e2,-0.0,12345678901234567890]}",
        ),
        ("gcall_7", "add", "{}"),
    ];
    let mut unnamed = tool(Some("gcall_7"), "7");
    unnamed.name = None;
    let mut unnamed_known = tool(Some("call_1"), "x");
    unnamed_known.name = None;
    let raw: Vec<Vec<Message>> = vec![
        vec![],
        vec![Message::user("hi")],
        vec![Message::system("be brief"), Message::user("hi")],
        vec![
            Message::system("one"),
            Message::user("a"),
            Message::system(""),
            Message::system("two\n\"quoted\" \u{1F600}"),
            Message::assistant("b"),
        ],
        vec![
            Message::user("first"),
            Message::user("second"),
            Message::assistant(""),
            Message::user(""),
            Message::user("third \t\u{0007}"),
            Message::assistant("x"),
            Message::assistant("y"),
        ],
        vec![
            Message::user("add"),
            assistant_calls("", &calls),
            tool(Some("call_0"), "5"),
            failed_tool("call_0", "Error: not json"),
            tool(Some("a:b/c"), ""),
            tool(Some(""), "empty id"),
            tool(None, "no id"),
            tool(Some("call_1"), "{\"r\":3}"),
            unnamed,
            unnamed_known,
            Message::user("and again"),
            assistant_calls("Again:", &[("call_0", "add", "{\"a\":1}")]),
            tool(Some("call_0"), "1"),
            Message::assistant("done"),
        ],
        vec![user_parts(image_parts()), Message::assistant("an image")],
        vec![
            user_parts(vec![Part::Text {
                text: String::new(),
            }]),
            user_parts(vec![]),
            Message::user("after empty parts"),
        ],
        vec![
            Message::user("q"),
            interrupted,
            tool(Some("call_9"), "1"),
            interrupted_native,
        ],
        vec![
            Message::user("search"),
            native(
                "anthropic-messages",
                assistant_calls(
                    "Searching.",
                    &[("toolu_2", "add", "{\"a\":1}"), ("toolu_3", "add", "{}")],
                ),
                native_blocks(),
            ),
            tool(Some("toolu_2"), "2"),
            tool(Some("toolu_3"), "3"),
            native(
                "chat-completions",
                Message::assistant("other format"),
                native_blocks(),
            ),
            native("anthropic-messages", Message::assistant("empty"), vec![]),
            Message::user("thanks"),
        ],
    ];
    raw.into_iter()
        .map(|h| h.into_iter().map(Arc::new).collect())
        .collect()
}

/// Two tool schemas.
fn tools() -> Vec<Arc<ToolSchema>> {
    vec![
        Arc::new(ToolSchema {
            name: "add".into(),
            description: "Adds a and b.".into(),
            parameters: json!({"type": "object", "properties": {"a": {"type": "number"},
                "b": {"type": "number"}}, "required": ["a", "b"]}),
        }),
        Arc::new(ToolSchema {
            name: "echo".into(),
            description: String::new(),
            parameters: json!({"type": "object", "additionalProperties": false}),
        }),
    ]
}

/// One set of request options.
struct Options {
    /// Model id.
    model: &'static str,
    /// `max_tokens` of the request.
    max_tokens: Option<u32>,
    /// `max_tokens` of the provider entry.
    cfg_max_tokens: Option<u32>,
    /// Temperature.
    temperature: Option<f32>,
    /// Thinking budget.
    thinking: Option<u32>,
    /// Whether the two tools are offered.
    tools: bool,
    /// Tool choice.
    choice: ToolChoice,
    /// Web search requested (and enabled in the entry when `web_search_entry`).
    web_search: bool,
    /// Web search enabled in the entry.
    web_search_entry: bool,
}

/// Option sets covering every optional field.
fn options() -> Vec<Options> {
    let base = || Options {
        model: "claude-x",
        max_tokens: None,
        cfg_max_tokens: None,
        temperature: None,
        thinking: None,
        tools: false,
        choice: ToolChoice::Auto,
        web_search: false,
        web_search_entry: false,
    };
    let choices = [
        ToolChoice::Auto,
        ToolChoice::None,
        ToolChoice::Required,
        ToolChoice::Tool("add".into()),
    ];
    let mut out = vec![
        base(),
        Options {
            max_tokens: Some(100),
            temperature: Some(0.7),
            ..base()
        },
        Options {
            cfg_max_tokens: Some(2048),
            temperature: Some(0.0),
            thinking: Some(1024),
            model: "o3-mini",
            ..base()
        },
        Options {
            max_tokens: Some(1000),
            temperature: Some(f32::NAN),
            thinking: Some(20_000),
            model: "openai/gpt-5",
            ..base()
        },
        Options {
            thinking: Some(5000),
            temperature: Some(1.0),
            model: "o4",
            ..base()
        },
    ];
    for c in choices {
        out.push(Options {
            tools: true,
            choice: c.clone(),
            ..base()
        });
        out.push(Options {
            tools: false,
            choice: c.clone(),
            web_search: true,
            web_search_entry: true,
            ..base()
        });
        out.push(Options {
            tools: true,
            choice: c.clone(),
            web_search: true,
            web_search_entry: false,
            max_tokens: Some(7),
            temperature: Some(0.25),
            ..base()
        });
        out.push(Options {
            tools: false,
            choice: c,
            ..base()
        });
    }
    out
}

/// Calls `check` with every history under every option set, for a provider entry of `kind`;
/// returns how many cases it checked.
pub(crate) fn each_case(
    kind: ProviderKind,
    mut check: impl FnMut(&HttpProviderConfig, &ChatRequest<'_>),
) -> usize {
    let tools = tools();
    let mut checked = 0;
    for history in histories() {
        for o in options() {
            check(&config(kind, &o), &request(&o, &history, &tools));
            checked += 1;
        }
    }
    checked
}

/// A provider entry of `kind` for these options.
fn config(kind: ProviderKind, o: &Options) -> HttpProviderConfig {
    let mut cfg = HttpProviderConfig::parse("p", kind, &json!({})).unwrap();
    cfg.max_tokens = o.cfg_max_tokens;
    cfg.web_search = o.web_search_entry;
    cfg
}

/// The request for `messages` under these options.
fn request<'a>(
    o: &'a Options,
    messages: &'a [Arc<Message>],
    tools: &'a [Arc<ToolSchema>],
) -> ChatRequest<'a> {
    ChatRequest {
        messages,
        tools: if o.tools { tools } else { &[] },
        model: o.model,
        max_tokens: o.max_tokens,
        temperature: o.temperature,
        native_web_tools: NativeWebToolRequest {
            web_search: o.web_search,
            web_fetch: false,
        },
        thinking_budget: o.thinking,
        tool_choice: &o.choice,
        output_schema: None,
        prompt_cache: crate::core::prompt_cache::PromptCache::Off,
        cache_key: None,
    }
}
