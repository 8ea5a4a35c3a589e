//! The `generateContent` request body, serialised straight from the borrowed history: no
//! `serde_json::Value` tree per message or for the body (the keys and their order are those of
//! the tree this replaced, so the bytes are the same; `body_tests` compares them).
//!
//! Consecutive same-role messages are merged into one content (roles `user` / `model`; tool
//! results are `user` parts), system messages go to `systemInstruction`, and a tool result
//! without a name takes the name of the call it answers.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde::ser::Serializer;
use serde::Serialize;
use serde_json::Value;

use super::GENERATED_ID_PREFIX;
use crate::core::message::{Message, Part, Role};
use crate::core::provider::{ChatRequest, ToolSchema};
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::HttpProviderConfig;
use crate::providers::convert::{args_object, system_text};
use crate::providers::merged::Merged;
use crate::providers::output_format::GeminiResponseFormat;

/// The body of one `streamGenerateContent`, borrowing the request's history and tool schemas;
/// serialise it with `serde_json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestBody<'a> {
    contents: Merged<WirePart<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<SystemInstruction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<[Declarations<'a>; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_config: Option<ToolConfig<'a>>,
    #[serde(skip_serializing_if = "GenerationConfig::is_empty")]
    generation_config: GenerationConfig<'a>,
}

impl<'a> RequestBody<'a> {
    /// The body for `request` under this provider entry; `signature` looks up a saved
    /// `thoughtSignature` by call id.
    pub fn new(
        cfg: &HttpProviderConfig,
        request: &ChatRequest<'a>,
        signature: &dyn Fn(&str) -> Option<String>,
    ) -> Self {
        let with_tools = !request.tools.is_empty();
        let mode = match request.tool_choice {
            _ if !with_tools => None,
            ToolChoice::Auto => None,
            ToolChoice::None => Some(("NONE", None)),
            ToolChoice::Required => Some(("ANY", None)),
            ToolChoice::Tool(n) => Some(("ANY", Some([n.as_str()]))),
        };
        RequestBody {
            contents: contents(request.messages, signature),
            system_instruction: system_text(request.messages).map(|text| SystemInstruction {
                parts: [Text { text }],
            }),
            tools: with_tools.then_some([Declarations {
                function_declarations: Tools(request.tools),
            }]),
            tool_config: mode.map(|(mode, allowed_function_names)| ToolConfig {
                function_calling_config: CallingConfig {
                    mode,
                    allowed_function_names,
                },
            }),
            generation_config: GenerationConfig {
                max_output_tokens: request.max_tokens.or(cfg.max_tokens),
                temperature: request.temperature.map(f64::from),
                thinking_config: request.thinking_budget.map(|b| ThinkingConfig {
                    thinking_budget: b,
                    include_thoughts: true,
                }),
                response_format: request.output_schema.map(GeminiResponseFormat::of),
            },
        }
    }
}

#[derive(Serialize)]
struct SystemInstruction {
    parts: [Text<String>; 1],
}

#[derive(Serialize)]
struct Text<T> {
    text: T,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Declarations<'a> {
    function_declarations: Tools<'a>,
}

struct Tools<'a>(&'a [Arc<ToolSchema>]);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Declaration<'a> {
    name: &'a str,
    description: &'a str,
    parameters_json_schema: &'a Value,
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|t| Declaration {
            name: &t.name,
            description: &t.description,
            parameters_json_schema: &t.parameters,
        }))
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolConfig<'a> {
    function_calling_config: CallingConfig<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallingConfig<'a> {
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_function_names: Option<[&'a str; 1]>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GenerationConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_config: Option<ThinkingConfig>,
    /// Structured output (`responseMimeType` + `responseJsonSchema`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    response_format: Option<GeminiResponseFormat<'a>>,
}

impl GenerationConfig<'_> {
    fn is_empty(&self) -> bool {
        self.max_output_tokens.is_none()
            && self.temperature.is_none()
            && self.thinking_config.is_none()
            && self.response_format.is_none()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThinkingConfig {
    thinking_budget: u32,
    include_thoughts: bool,
}

/// One content part.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum WirePart<'a> {
    #[serde(rename = "text")]
    Text(Cow<'a, str>),
    InlineData {
        #[serde(rename = "mimeType")]
        mime_type: &'a str,
        data: &'a str,
    },
    FileData {
        #[serde(rename = "fileUri")]
        file_uri: &'a str,
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<&'a str>,
    },
    FunctionResponse {
        name: &'a str,
        response: Response<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<&'a str>,
    },
    /// A call, with its saved signature.
    #[serde(untagged)]
    Call {
        #[serde(rename = "functionCall")]
        function_call: Call<'a>,
        #[serde(rename = "thoughtSignature", skip_serializing_if = "Option::is_none")]
        thought_signature: Option<String>,
    },
}

/// A function response: `{"content": …}`, or `{"error": …}` for a failed call (the API reads
/// an `error` key as the call's error details).
#[derive(Serialize)]
enum Response<'a> {
    #[serde(rename = "content")]
    Content(&'a str),
    #[serde(rename = "error")]
    Error(&'a str),
}

#[derive(Serialize)]
struct Call<'a> {
    name: &'a str,
    args: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
}

/// Converts the universal history to Gemini contents (system messages are left out: they go
/// to `systemInstruction`).
fn contents<'a>(
    messages: &'a [Arc<Message>],
    signature: &dyn Fn(&str) -> Option<String>,
) -> Merged<WirePart<'a>> {
    let mut c = Merged::new("parts", messages.len());
    // call id → tool name, for results whose message lacks a name.
    let mut names: HashMap<&str, &str> = HashMap::new();
    for m in messages {
        let start = c.items.len();
        let role = match m.role {
            Role::System => continue,
            Role::User => {
                user_parts(m, &mut c.items);
                "user"
            }
            Role::Assistant => {
                let text = m.content_for_api();
                if !text.is_empty() {
                    c.items.push(WirePart::Text(text));
                }
                for call in &m.tool_calls {
                    names.insert(call.id.as_str(), call.function.name.as_str());
                    c.items.push(WirePart::Call {
                        function_call: Call {
                            name: &call.function.name,
                            args: args_object(&call.function.arguments),
                            id: (!call.id.starts_with(GENERATED_ID_PREFIX))
                                .then_some(call.id.as_str()),
                        },
                        thought_signature: signature(&call.id),
                    });
                }
                "model"
            }
            Role::Tool => {
                let id = m.tool_call_id.as_deref().unwrap_or_default();
                let name = m
                    .name
                    .as_deref()
                    .or_else(|| names.get(id).copied())
                    .unwrap_or_default();
                c.items.push(WirePart::FunctionResponse {
                    name,
                    response: if m.is_tool_error() {
                        Response::Error(&m.content)
                    } else {
                        Response::Content(&m.content)
                    },
                    id: (!id.is_empty() && !id.starts_with(GENERATED_ID_PREFIX)).then_some(id),
                });
                // Images the tool attached (Read on an image file) follow its response.
                c.items
                    .extend(m.parts.iter().flatten().filter_map(image_part));
                "user"
            }
        };
        c.close(role, start);
    }
    c
}

fn image_part(p: &Part) -> Option<WirePart<'_>> {
    match p {
        Part::Text { .. } => None,
        Part::ImageInline { mime_type, data } => Some(WirePart::InlineData { mime_type, data }),
        Part::ImageUri { uri, mime_type } => Some(WirePart::FileData {
            file_uri: uri,
            mime_type: mime_type.as_deref(),
        }),
    }
}

fn user_parts<'a>(m: &'a Message, out: &mut Vec<WirePart<'a>>) {
    match &m.parts {
        Some(parts) => out.extend(parts.iter().filter_map(|p| match p {
            Part::Text { text } => Some(WirePart::Text(Cow::Borrowed(text))),
            image => image_part(image),
        })),
        None if m.content.is_empty() => {}
        None => out.push(WirePart::Text(Cow::Borrowed(&m.content))),
    }
}
