//! The body written straight to bytes equals the bytes of the `Value` tree it replaced, for
//! the streamed request and for the one asked again without streaming.

use serde_json::Value;

use super::body::RequestBody;
use super::tree;
use crate::providers::body_cases::each_case;
use crate::providers::config::ProviderKind;

#[test]
fn body_bytes_equal_the_tree_bytes() {
    for kind in [ProviderKind::OpenAi, ProviderKind::OpenAiCompatible] {
        let checked = each_case(kind, |cfg, req| {
            let mut old_tree = tree::request_body(cfg, req);
            let old = serde_json::to_vec(&old_tree).unwrap();
            let body = RequestBody::new(cfg, req);
            let new = serde_json::to_vec(&body).unwrap();
            assert_eq!(String::from_utf8_lossy(&new), String::from_utf8_lossy(&old));
            // The fallback without streaming, as the provider built it from the tree.
            let o = old_tree.as_object_mut().unwrap();
            o.insert("stream".into(), Value::Bool(false));
            o.remove("stream_options");
            let old = serde_json::to_vec(&old_tree).unwrap();
            let new = serde_json::to_vec(&body.without_streaming()).unwrap();
            assert_eq!(String::from_utf8_lossy(&new), String::from_utf8_lossy(&old));
        });
        assert!(checked > 200, "{checked}");
    }
}

/// The request's output schema goes out as `response_format` (`json_schema` with a name, the
/// schema and `strict` when the schema fits strict mode), for OpenAI and compatible servers.
#[test]
fn output_schema_is_response_format() {
    use crate::core::message::Message;
    use crate::core::output_schema::OutputSchema;
    use crate::core::provider::{ChatRequest, NativeWebToolRequest};
    use crate::core::tool_choice::ToolChoice;
    use crate::providers::config::HttpProviderConfig;
    use serde_json::json;
    use std::sync::Arc;

    let strict = json!({"type":"object","properties":{"city":{"type":"string"}},
                        "required":["city"],"additionalProperties":false});
    let loose = json!({"type":"object","properties":{"city":{"type":"string"}}});
    for (kind, schema, is_strict) in [
        (ProviderKind::OpenAi, strict.clone(), true),
        (ProviderKind::OpenAiCompatible, strict, true),
        (ProviderKind::OpenAi, loose, false),
    ] {
        let cfg = HttpProviderConfig::parse("p", kind, &json!({})).unwrap();
        let compiled = OutputSchema::from_json("t", &schema).unwrap();
        let messages = [Arc::new(Message::user("Where?"))];
        let req = ChatRequest {
            messages: &messages,
            tools: &[],
            model: "gpt-4o",
            max_tokens: None,
            temperature: None,
            native_web_tools: NativeWebToolRequest::default(),
            thinking_budget: None,
            tool_choice: &ToolChoice::Auto,
            output_schema: Some(&compiled),
            prompt_cache: crate::core::prompt_cache::PromptCache::Off,
            cache_key: None,
        };
        let body = serde_json::to_value(RequestBody::new(&cfg, &req)).unwrap();
        assert_eq!(
            body,
            json!({
                "model": "gpt-4o",
                "messages": [{"role": "user", "content": "Where?"}],
                "stream": true,
                "stream_options": {"include_usage": true},
                "response_format": {"type": "json_schema", "json_schema":
                    {"name": "final_answer", "schema": schema, "strict": is_strict}}
            }),
            "{kind:?}"
        );
    }
}
