//! Extended thinking on the wire: Anthropic thinking blocks (with their signature) go back on
//! the tool round that follows them; OpenAI reasoning models get `reasoning_effort`.

use crate::support;
use crate::support::provider_cases as cases;

use std::sync::Arc;

use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::execution::RunStop;
use robota_engine::core::message::Message;
use robota_engine::core::provider::{ChatRequest, NativeWebToolRequest};
use robota_engine::core::tool_choice::ToolChoice;
use robota_engine::providers::openai::reasoning_effort;
use serde_json::json;
use support::fake_server::{without_cache_marks, FakeServer, Reply, Turn};
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn anthropic_thinking_block_with_signature_goes_back_on_the_tool_round() {
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(
        &Turn::text(["Checking."])
            .thinking(["Let me ", "think."])
            .tool("toolu_1", "echo", r#"{"text":"a"}"#),
    ));
    server.enqueue(Reply::anthropic(&Turn::text(["Done."])));
    let p = cases::provider(&server, "anthropic", json!({}));
    let mut cfg = AgentConfig::new(p, "claude-sonnet-4-5");
    cfg.tools = vec![cases::echo_tool()];
    cfg.thinking_budget = Some(2048);
    let agent = Agent::new(cfg).unwrap();
    let res = agent.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(res.stop, RunStop::Complete, "{:?}", res.error);
    assert_eq!(res.response, "Done.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].body["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(
        without_cache_marks(&reqs[1].body["messages"]),
        json!([
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Let me think.", "signature": "c2ln"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"text": "a"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "echo:a"}
            ]}
        ])
    );
}

#[tokio::test]
async fn anthropic_redacted_thinking_block_goes_back_verbatim() {
    let server = FakeServer::start();
    let frames = vec![
        r#"event: message_start
data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}

"#.to_string(),
        r#"event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"ZW5j"}}

"#.to_string(),
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n".to_string(),
        r#"event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_9","name":"echo","input":{"text":"z"}}}

"#.to_string(),
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n".to_string(),
        r#"event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}

"#.to_string(),
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".to_string(),
    ];
    server.enqueue(Reply::sse(frames));
    server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
    let p = cases::provider(&server, "anthropic", json!({}));
    let mut cfg = AgentConfig::new(p, "claude-sonnet-4-5");
    cfg.tools = vec![cases::echo_tool()];
    cfg.thinking_budget = Some(1024);
    let agent = Agent::new(cfg).unwrap();
    let res = agent.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(res.response, "ok", "{:?}", res.error);
    let reqs = server.requests();
    assert_eq!(
        reqs[1].body["messages"][1]["content"],
        json!([
            {"type": "redacted_thinking", "data": "ZW5j"},
            {"type": "tool_use", "id": "toolu_9", "name": "echo", "input": {"text": "z"}}
        ])
    );
}

async fn openai_body(model: &str, budget: Option<u32>) -> serde_json::Value {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["hi"])));
    let p = cases::provider(&server, "openai", json!({}));
    let messages = vec![Arc::new(Message::user("q"))];
    let req = ChatRequest {
        messages: &messages,
        tools: &[],
        model,
        max_tokens: None,
        temperature: None,
        native_web_tools: NativeWebToolRequest::default(),
        thinking_budget: budget,
        tool_choice: &ToolChoice::Auto,
        output_schema: None,
        prompt_cache: robota_engine::core::prompt_cache::PromptCache::Off,
        cache_key: None,
    };
    let r = p
        .chat(req, &mut cases::Rec::default(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.content, "hi");
    server.requests()[0].body.clone()
}

#[tokio::test]
async fn openai_reasoning_effort_for_reasoning_models_only() {
    assert_eq!(
        openai_body("o3-mini", Some(8000)).await["reasoning_effort"],
        "medium"
    );
    assert_eq!(
        openai_body("gpt-5", Some(100)).await["reasoning_effort"],
        "low"
    );
    let plain = openai_body("gpt-4o", Some(8000)).await;
    assert!(plain.get("reasoning_effort").is_none(), "{plain}");
    let off = openai_body("o3-mini", None).await;
    assert!(off.get("reasoning_effort").is_none(), "{off}");
}

#[test]
fn reasoning_effort_mapping() {
    assert_eq!(reasoning_effort("o1", 4095), Some("low"));
    assert_eq!(reasoning_effort("o4-mini", 4096), Some("medium"));
    assert_eq!(reasoning_effort("openai/gpt-5.1", 16383), Some("medium"));
    assert_eq!(reasoning_effort("gpt-5-mini", 16384), Some("high"));
    assert_eq!(reasoning_effort("o10", 5000), None);
    assert_eq!(reasoning_effort("gpt-4o", 5000), None);
}
