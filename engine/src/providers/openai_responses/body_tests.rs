//! Unit tests of [`super::body`]: a history with reasoning, text and calls as input items.

use std::sync::Arc;

use serde_json::json;

use super::body::request_body;
use crate::core::message::{Message, NativeContent, Part, ToolCall};
use crate::core::provider::{ChatRequest, NativeWebToolRequest, ToolSchema};
use crate::core::tool_choice::ToolChoice;
use crate::providers::config::{HttpProviderConfig, ProviderKind};

fn cfg() -> HttpProviderConfig {
    HttpProviderConfig::parse("r", ProviderKind::OpenAiResponses, &json!({})).unwrap()
}

#[test]
fn history_tools_and_options() {
    let reasoning = json!({"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"enc"});
    let mut answer = Message::assistant("Let me look.");
    answer.tool_calls = vec![ToolCall::new("call_1", "Read", r#"{"path":"a"}"#)];
    answer.native = Some(Box::new(NativeContent {
        format: "openai-responses".into(),
        blocks: vec![
            reasoning.clone(),
            json!({"type":"message"}),
            json!({"type":"function_call","call_id":"call_1"}),
        ],
    }));
    let mut user = Message::user("");
    user.parts = Some(vec![
        Part::Text { text: "see".into() },
        Part::ImageInline {
            mime_type: "image/png".into(),
            data: "QUJD".into(),
        },
    ]);
    let messages = vec![
        Arc::new(Message::system("Be brief.")),
        Arc::new(user),
        Arc::new(answer),
        Arc::new(Message::tool("file text", "call_1", "Read")),
    ];
    let tools = vec![Arc::new(ToolSchema {
        name: "Read".into(),
        description: "Reads".into(),
        parameters: json!({"type":"object"}),
    })];
    let request = ChatRequest {
        messages: &messages,
        tools: &tools,
        model: "o4-mini",
        max_tokens: Some(100),
        temperature: None,
        native_web_tools: NativeWebToolRequest::default(),
        thinking_budget: Some(8000),
        tool_choice: &ToolChoice::Required,
        output_schema: None,
        prompt_cache: crate::core::prompt_cache::PromptCache::Off,
        cache_key: None,
    };
    assert_eq!(
        request_body(&cfg(), &request),
        json!({
            "model": "o4-mini",
            "instructions": "Be brief.",
            "input": [
                {"role":"user","content":[{"type":"input_text","text":"see"},
                    {"type":"input_image","image_url":"data:image/png;base64,QUJD","detail":"auto"}]},
                reasoning,
                {"role":"assistant","content":"Let me look."},
                {"type":"function_call","call_id":"call_1","name":"Read","arguments":"{\"path\":\"a\"}"},
                {"type":"function_call_output","call_id":"call_1","output":"file text"}
            ],
            "stream": true,
            "store": false,
            "include": ["reasoning.encrypted_content"],
            "max_output_tokens": 100,
            "reasoning": {"effort":"medium","summary":"auto"},
            "tools": [{"type":"function","name":"Read","description":"Reads","parameters":{"type":"object"},"strict":false}],
            "tool_choice": "required"
        })
    );
}

#[test]
fn output_schema_is_text_format() {
    use crate::core::output_schema::OutputSchema;
    let schema = json!({"type":"object","properties":{"city":{"type":"string"}},
                        "required":["city"],"additionalProperties":false});
    let compiled = OutputSchema::from_json("t", &schema).unwrap();
    let messages = [Arc::new(Message::user("Where?"))];
    let request = ChatRequest {
        output_schema: Some(&compiled),
        ..ChatRequest::plain(&messages, "gpt-5")
    };
    let body = request_body(&cfg(), &request);
    assert_eq!(
        body["text"],
        json!({"format":{"type":"json_schema","name":"final_answer","schema":schema,"strict":true}})
    );
    let plain = ChatRequest {
        output_schema: None,
        ..request
    };
    assert!(request_body(&cfg(), &plain).get("text").is_none());
}

#[test]
fn prompt_cache_key_while_caching_is_on() {
    use crate::core::prompt_cache::PromptCache;
    let messages = [Arc::new(Message::user("Hi"))];
    let on = ChatRequest {
        prompt_cache: PromptCache::default(),
        cache_key: Some("session-1"),
        ..ChatRequest::plain(&messages, "gpt-5")
    };
    assert_eq!(request_body(&cfg(), &on)["prompt_cache_key"], "session-1");
    let off = ChatRequest {
        prompt_cache: PromptCache::Off,
        ..on
    };
    assert!(request_body(&cfg(), &off).get("prompt_cache_key").is_none());
}
