//! The body written straight to bytes equals the bytes of the `Value` tree it replaced.

use super::body::RequestBody;
use super::tree;
use crate::providers::body_cases::each_case;
use crate::providers::config::ProviderKind;

#[test]
fn body_bytes_equal_the_tree_bytes() {
    let checked = each_case(ProviderKind::Anthropic, |cfg, req| {
        let old = serde_json::to_vec(&tree::request_body(cfg, req)).unwrap();
        let new = serde_json::to_vec(&RequestBody::new(cfg, req)).unwrap();
        assert_eq!(String::from_utf8_lossy(&new), String::from_utf8_lossy(&old));
    });
    assert!(checked > 200, "{checked}");
}

/// The request's output schema goes out as `output_config.format` (`json_schema`), after the
/// tools, on the documented shape.
#[test]
fn output_schema_is_output_config_format() {
    use crate::core::message::Message;
    use crate::core::output_schema::OutputSchema;
    use crate::core::provider::{ChatRequest, NativeWebToolRequest};
    use crate::core::tool_choice::ToolChoice;
    use serde_json::json;
    use std::sync::Arc;

    let cfg = crate::providers::config::HttpProviderConfig::parse(
        "p",
        ProviderKind::Anthropic,
        &json!({}),
    )
    .unwrap();
    let schema = OutputSchema::from_json(
        "t",
        &json!({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}),
    )
    .unwrap();
    let messages = [Arc::new(Message::user("Where?"))];
    let req = ChatRequest {
        messages: &messages,
        tools: &[],
        model: "claude-sonnet-4-5",
        max_tokens: Some(100),
        temperature: None,
        native_web_tools: NativeWebToolRequest::default(),
        thinking_budget: None,
        tool_choice: &ToolChoice::Auto,
        output_schema: Some(&schema),
        prompt_cache: crate::core::prompt_cache::PromptCache::Off,
        cache_key: None,
    };
    let body = serde_json::to_value(RequestBody::new(&cfg, &req)).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Where?"}]}],
            "stream": true,
            "output_config": {"format": {"type": "json_schema", "schema":
                {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}
        })
    );
}
