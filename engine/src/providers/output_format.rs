//! The structured-output field of each vendor's request body (the request's `output_schema`):
//! Anthropic `output_config.format`, OpenAI Chat `response_format` (also what llama.cpp-style
//! compatible servers read), OpenAI Responses `text.format` and Gemini `generationConfig.responseMimeType` +
//! `responseJsonSchema`.

use serde::Serialize;
use serde_json::Value;

use crate::core::output_schema::{OutputSchema, FINAL_ANSWER_TOOL};

/// Anthropic `"output_config": {"format": {"type": "json_schema", "schema": …}}`.
#[derive(Serialize)]
pub struct AnthropicOutputConfig<'a> {
    format: JsonSchemaFormat<'a>,
}

#[derive(Serialize)]
struct JsonSchemaFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    schema: &'a Value,
}

impl<'a> AnthropicOutputConfig<'a> {
    /// The field for `schema`.
    pub fn of(schema: &'a OutputSchema) -> Self {
        AnthropicOutputConfig {
            format: JsonSchemaFormat {
                kind: "json_schema",
                schema: schema.schema(),
            },
        }
    }
}

/// OpenAI Chat `"response_format": {"type": "json_schema", "json_schema": {"name", "schema",
/// "strict"}}`; `strict` only when the schema fits strict mode (else the API refuses it).
#[derive(Serialize)]
pub struct OpenAiResponseFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    json_schema: NamedSchema<'a>,
}

#[derive(Serialize)]
struct NamedSchema<'a> {
    name: &'static str,
    schema: &'a Value,
    strict: bool,
}

impl<'a> OpenAiResponseFormat<'a> {
    /// The field for `schema`.
    pub fn of(schema: &'a OutputSchema) -> Self {
        OpenAiResponseFormat {
            kind: "json_schema",
            json_schema: NamedSchema {
                name: FINAL_ANSWER_TOOL,
                schema: schema.schema(),
                strict: schema.strict_compatible(),
            },
        }
    }
}

/// OpenAI Responses `"text": {"format": {"type": "json_schema", "name", "schema", "strict"}}`
/// (the Chat form's members, flattened into `format`).
#[derive(Serialize)]
pub struct ResponsesTextFormat<'a> {
    format: ResponsesJsonSchema<'a>,
}

#[derive(Serialize)]
struct ResponsesJsonSchema<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    named: NamedSchema<'a>,
}

impl<'a> ResponsesTextFormat<'a> {
    /// The field for `schema`.
    pub fn of(schema: &'a OutputSchema) -> Self {
        ResponsesTextFormat {
            format: ResponsesJsonSchema {
                kind: "json_schema",
                named: NamedSchema {
                    name: FINAL_ANSWER_TOOL,
                    schema: schema.schema(),
                    strict: schema.strict_compatible(),
                },
            },
        }
    }
}

/// Gemini's `generationConfig` members: `"responseMimeType": "application/json"` and
/// `"responseJsonSchema"` (the JSON Schema as given; `responseSchema` takes only an OpenAPI
/// subset).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GeminiResponseFormat<'a> {
    response_mime_type: &'static str,
    response_json_schema: &'a Value,
}

impl<'a> GeminiResponseFormat<'a> {
    /// The members for `schema`.
    pub fn of(schema: &'a OutputSchema) -> Self {
        GeminiResponseFormat {
            response_mime_type: "application/json",
            response_json_schema: schema.schema(),
        }
    }
}
