//! Replay execution events (every payload carries `executionId` and `conversationId`): names,
//! order, required fields.

use crate::support::engine as common;

use std::sync::Arc;

use async_trait::async_trait;
use common::*;
use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::errors::RobotaError;
use robota_engine::core::events::OwnerPathSegment;
use robota_engine::core::provider::{
    ChatRequest, ChatResponse, Provider, RawPayloadEvent, RawPayloadKind, StreamSink,
};
use robota_engine::core::tool::Tool;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn simple_turn_emits_events_in_order_with_required_fields() {
    let p = scripted(json!([{"deltas":["alpha","beta"]}]));
    let cap = Capture::default();
    let a = agent(p, vec![], |c| c.conversation_id = "conv_test".into());
    let r = a.run("hi", cap.options()).await.unwrap();
    assert_eq!(
        cap.names(),
        vec![
            "history_mutation",
            "provider_request",
            "provider_stream_raw_delta",
            "provider_stream_raw_delta",
            "provider_response_raw",
            "provider_response_normalized",
            "assistant_message_committed",
            "history_mutation"
        ]
    );
    let events = cap.events.lock().unwrap().clone();
    for (name, data) in &events {
        assert_eq!(data["executionId"], json!(r.execution_id), "{name}");
        assert_eq!(data["conversationId"], "conv_test", "{name}");
    }
    let user = &events[0].1;
    assert_eq!(user["mutation"], "append_message");
    assert_eq!(user["index"], 0);
    assert!(user.get("round").is_none());
    assert_eq!(user["message"]["content"], "hi");
    let req = &events[1].1;
    assert_eq!(req["round"], 1);
    assert_eq!(req["provider"], "scripted");
    assert_eq!(req["model"], "test-model");
    assert_eq!(req["messages"].as_array().unwrap().len(), 1);
    assert_eq!(req["tools"], json!([]));
    assert_eq!(events[2].1["sequence"], 0);
    assert_eq!(events[2].1["delta"], "alpha");
    assert_eq!(events[3].1["sequence"], 1);
    assert_eq!(events[3].1["delta"], "beta");
    assert_eq!(events[4].1["responseKind"], "provider-normalized-message");
    assert_eq!(events[4].1["response"]["content"], "alphabeta");
    assert_eq!(events[5].1["toolCallsCount"], 0);
    assert_eq!(events[6].1["message"]["content"], "alphabeta");
    assert_eq!(events[7].1["index"], 1);
    assert_eq!(events[7].1["round"], 1);
}

#[tokio::test]
async fn tool_round_events() {
    let p = scripted(json!([
        {"tool_calls":[{"id":"c1","name":"t","arguments":{"x":1}},{"id":"c2","name":"t","arguments":{"x":2}}]},
        {"text":"done"}
    ]));
    let t = TestTool::new("t", Ok(json!("r")));
    let cap = Capture::default();
    let a = agent(p, vec![t as Arc<dyn Tool>], |c| {
        c.conversation_id = "conv_x".into()
    });
    let mut opts = cap.options();
    opts.owner_path = vec![OwnerPathSegment::new("agent", "agent-1")];
    a.run("go", opts).await.unwrap();
    let names = cap.names();
    let tail: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .skip_while(|n| *n != "tool_batch_started")
        .take(9)
        .collect();
    assert_eq!(
        tail,
        vec![
            "tool_batch_started",
            "tool_execution_request",
            "tool_execution_request",
            "tool_execution_result",
            "tool_execution_result",
            "tool_message_committed",
            "history_mutation",
            "tool_message_committed",
            "history_mutation"
        ]
    );
    let batch = &cap.of("tool_batch_started")[0];
    assert_eq!(batch["batchId"], "thinking_conv_x_round1");
    assert_eq!(batch["mode"], "parallel");
    assert_eq!(batch["maxConcurrency"], 5);
    assert_eq!(batch["requestCount"], 2);
    assert_eq!(batch["tools"], json!(["t", "t"]));
    let reqs = cap.of("tool_execution_request");
    assert_eq!(reqs[1]["index"], 1);
    assert_eq!(reqs[1]["toolCallId"], "c2");
    assert_eq!(reqs[1]["parameters"], json!({"x":2}));
    assert_eq!(
        reqs[1]["ownerPath"],
        json!([{"ownerType":"agent","ownerId":"agent-1"},{"ownerType":"tool","ownerId":"c2"}])
    );
    let res = cap.of("tool_execution_result");
    assert_eq!(res[0]["success"], true);
    assert_eq!(res[0]["result"], "r");
    assert_eq!(res[0]["toolName"], "t");
    let committed = cap.of("tool_message_committed");
    assert_eq!(committed[1]["index"], 1);
    assert_eq!(committed[1]["message"]["toolCallId"], "c2");
    let mutations = cap.of("history_mutation");
    // user(0), assistant(1), tool(2), tool(3), assistant(4)
    let idx: Vec<u64> = mutations
        .iter()
        .map(|m| m["index"].as_u64().unwrap())
        .collect();
    assert_eq!(idx, vec![0, 1, 2, 3, 4]);
    assert_eq!(mutations[2]["batchId"], "thinking_conv_x_round1");
}

struct RawProvider;

#[async_trait]
impl Provider for RawProvider {
    fn name(&self) -> &str {
        "raw"
    }
    async fn chat(
        &self,
        _r: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        _c: CancellationToken,
    ) -> Result<ChatResponse, RobotaError> {
        if sink.wants_raw_payloads() {
            sink.on_raw_payload(RawPayloadEvent {
                provider: "raw".into(),
                api_surface: Some("test-surface".into()),
                payload_kind: RawPayloadKind::Response,
                sequence: None,
                payload: json!({"native": true}),
            });
        }
        sink.on_text("ok");
        Ok(ChatResponse {
            content: "ok".into(),
            ..Default::default()
        })
    }
}

#[tokio::test]
async fn native_raw_payloads_become_replay_events() {
    let cap = Capture::default();
    let a = Agent::new(AgentConfig::new(Arc::new(RawProvider), "m")).unwrap();
    a.run("x", cap.options()).await.unwrap();
    let raw = cap.of("provider_native_raw_payload");
    assert_eq!(raw.len(), 1);
    assert_eq!(raw[0]["sequence"], 0);
    assert_eq!(raw[0]["payloadKind"], "response");
    assert_eq!(raw[0]["apiSurface"], "test-surface");
    assert_eq!(raw[0]["payload"], json!({"native": true}));
    assert_eq!(raw[0]["round"], 1);
}

#[tokio::test]
async fn forced_summary_and_failures_emit_events_too() {
    let p = scripted(json!([{"tool_calls":[{"id":"a","name":"t"}]}, {"text":"summary"}]));
    let t = TestTool::new("t", Ok(json!("r")));
    let cap = Capture::default();
    let a = agent(p, vec![t as Arc<dyn Tool>], |c| {
        c.max_execution_rounds = Some(1)
    });
    a.run("go", cap.options()).await.unwrap();
    let reqs = cap.of("provider_request");
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1]["forcedSummary"], true);
    let last = cap.of("history_mutation").last().unwrap().clone();
    assert_eq!(last["message"]["content"], "summary");

    let p = scripted(json!([{"error":{"message":"nope"}}]));
    let cap = Capture::default();
    let a = agent(p, vec![], |_| {});
    a.run("go", cap.options()).await.unwrap();
    let last = cap.of("history_mutation").last().unwrap().clone();
    assert_eq!(
        last["message"]["content"],
        "Request failed: Provider Error (scripted): nope"
    );
}

#[tokio::test]
async fn no_events_are_built_without_a_listener() {
    // Behavioural check: a run without callbacks still records the full history.
    let p = scripted(json!([{"deltas":["a","b"]}]));
    let a = agent(p, vec![], |_| {});
    let r = a.run("x", RunOptions::default()).await.unwrap();
    assert_eq!(r.response, "ab");
    assert_eq!(a.messages().len(), 2);
}
