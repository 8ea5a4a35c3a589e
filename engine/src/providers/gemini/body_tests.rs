//! The body written straight to bytes equals the bytes of the `Value` tree it replaced.

use super::body::RequestBody;
use super::tree;
use crate::providers::body_cases::each_case;
use crate::providers::config::ProviderKind;

#[test]
fn body_bytes_equal_the_tree_bytes() {
    // Signatures for some calls (ids of the shared histories), none for the others.
    let signature = |id: &str| (id == "call_0" || id == "toolu_2").then(|| format!("sig-{id}"));
    let checked = each_case(ProviderKind::Gemini, |cfg, req| {
        let old = serde_json::to_vec(&tree::request_body(cfg, req, &signature)).unwrap();
        let new = serde_json::to_vec(&RequestBody::new(cfg, req, &signature)).unwrap();
        assert_eq!(String::from_utf8_lossy(&new), String::from_utf8_lossy(&old));
    });
    assert!(checked > 200, "{checked}");
}

/// The request's output schema goes out as `generationConfig.responseMimeType` +
/// `responseJsonSchema`, next to the other generation settings.
#[test]
fn output_schema_is_response_json_schema() {
    use crate::core::message::Message;
    use crate::core::output_schema::OutputSchema;
    use crate::core::provider::{ChatRequest, NativeWebToolRequest};
    use crate::core::tool_choice::ToolChoice;
    use serde_json::json;
    use std::sync::Arc;

    let cfg =
        crate::providers::config::HttpProviderConfig::parse("p", ProviderKind::Gemini, &json!({}))
            .unwrap();
    let schema = json!({"type":"array","items":{"type":"integer"}});
    let compiled = OutputSchema::from_json("t", &schema).unwrap();
    let messages = [Arc::new(Message::user("Primes?"))];
    let req = ChatRequest {
        messages: &messages,
        tools: &[],
        model: "gemini-2.5-flash",
        max_tokens: Some(50),
        temperature: None,
        native_web_tools: NativeWebToolRequest::default(),
        thinking_budget: None,
        tool_choice: &ToolChoice::Auto,
        output_schema: Some(&compiled),
        prompt_cache: crate::core::prompt_cache::PromptCache::Off,
        cache_key: None,
    };
    let body = serde_json::to_value(RequestBody::new(&cfg, &req, &|_| None)).unwrap();
    assert_eq!(
        body,
        json!({
            "contents": [{"role": "user", "parts": [{"text": "Primes?"}]}],
            "generationConfig": {"maxOutputTokens": 50, "responseMimeType": "application/json",
                                 "responseJsonSchema": schema}
        })
    );
}
