//! OpenAI Responses API provider (kind `openai-responses`) against the fake server: the shared
//! provider cases, the recorded streams of OpenAI's .NET SDK tests, and a two-tool-round host
//! session whose exact request bodies show the calls, their outputs and the reasoning items
//! (with their `encrypted_content`) sent back.

use robota_engine::core::errors::RobotaError;
use robota_engine::core::provider::{ChatResponse, StopReason};
use robota_engine::sdk::events::{self, Payload};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::fake_wire::responses::reasoning_ids;
use crate::support::host_session::{runtime, Host};
use crate::support::provider_cases::{self as cases, chat, provider, Rec};
use crate::support::vendor_streams::replay;

const KIND: &str = "openai-responses";

#[tokio::test]
async fn responses_shared_cases() {
    cases::streaming_text(KIND).await;
    cases::parallel_tool_calls(KIND).await;
    cases::tool_round_trip(KIND).await;
    cases::abort_keeps_partial(KIND).await;
    cases::cancel_returns_partial(KIND).await;
    cases::thinking(KIND).await;
    cases::raw_payloads(KIND).await;
}

#[tokio::test]
async fn responses_shared_failure_cases() {
    cases::rate_limit_then_success(KIND).await;
    cases::repeated_500(KIND).await;
    cases::unauthorized(KIND).await;
    cases::malformed_and_cut(KIND).await;
    cases::cut_before_content_is_retried(KIND).await;
    cases::idle_timeout(KIND).await;
    cases::env_key_never_leaks(KIND).await;
}

fn ok(r: Result<ChatResponse, RobotaError>) -> ChatResponse {
    r.unwrap_or_else(|e| panic!("the recorded stream failed: {e}"))
}

#[tokio::test]
async fn recorded_text_stream() {
    let (r, sink) = replay("openai-responses/text_hello.txt").await;
    let r = ok(r);
    assert_eq!(
        sink.text,
        ["Hello", "!", " How", " can", " I", " assist", " you", " today", "?"]
    );
    assert_eq!(r.content, "Hello! How can I assist you today?");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    let u = r.usage.unwrap();
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.total_tokens,
            u.cache_read_tokens
        ),
        (11, 10, Some(21), 0)
    );
    assert!(r.tool_calls.is_empty() && r.native.is_none());
}

#[tokio::test]
async fn recorded_function_call_stream() {
    let (r, sink) = replay("openai-responses/function_call.txt").await;
    let r = ok(r);
    assert!(sink.text.is_empty());
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    assert_eq!(r.tool_calls.len(), 1);
    let c = &r.tool_calls[0];
    assert_eq!(
        (c.id.as_str(), c.function.name.as_str()),
        ("call_0UFGPwrziw5rbinYp7rthrTb", "get_weather_at_location")
    );
    assert_eq!(
        serde_json::from_str::<Value>(&c.function.arguments).unwrap(),
        json!({"location": "San Francisco, CA"})
    );
    let u = r.usage.unwrap();
    assert_eq!((u.input_tokens, u.output_tokens), (74, 20));
}

#[tokio::test]
async fn recorded_reasoning_summary_stream() {
    let (r, sink) = replay("openai-responses/reasoning_summary.txt").await;
    let r = ok(r);
    let thinking = sink.thinking.concat();
    assert!(thinking.starts_with("**Planning a New York itinerary**\n\nThe user is visiting"));
    // Four summary parts, separated by blank lines.
    assert!(thinking.contains("\n\n**Creating a 3-day NYC itinerary**"));
    assert!(thinking.contains("\n\n**Proposing a NYC itinerary**"));
    assert!(thinking.contains("\n\n**Creating an NYC trip itinerary**"));
    assert!(r
        .content
        .starts_with("New York City offers an incredible blend of art and food"));
    assert!(
        !r.content.contains("**Planning"),
        "thinking stays out of the answer"
    );
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    let u = r.usage.unwrap();
    assert_eq!((u.input_tokens, u.output_tokens), (45, 3506));
    // The reasoning item is kept whole for the next request.
    let native = r.native.unwrap();
    assert_eq!(native.format, "openai-responses");
    assert_eq!(native.blocks.len(), 2);
    assert_eq!(
        native.blocks[0]["id"],
        "rs_0287fead24f79e6800690a92b01bf081959d0cfa3d2d08a836"
    );
    assert_eq!(native.blocks[0]["summary"].as_array().unwrap().len(), 4);
    assert_eq!(native.blocks[1], json!({"type": "message"}));
}

#[tokio::test]
async fn request_goes_to_responses_with_a_bearer_key() {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(KIND, &Turn::text(["ok"])));
    let p = provider(&server, KIND, json!({}));
    ok(chat(p.as_ref(), &mut Rec::default(), CancellationToken::new()).await);
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/responses");
    assert_eq!(req.header("authorization"), Some("Bearer test-key"));
    assert_eq!(
        req.body,
        json!({"model":"test-model","instructions":"Be brief.",
               "input":[{"role":"user","content":"Hi"}],"stream":true,"store":false,
               "include":["reasoning.encrypted_content"],"max_output_tokens":100})
    );
}

#[tokio::test]
async fn incomplete_at_max_output_tokens_is_max_tokens() {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(
        KIND,
        &Turn::text(["cut"]).stop("max_tokens"),
    ));
    let p = provider(&server, KIND, json!({}));
    let r = ok(chat(p.as_ref(), &mut Rec::default(), CancellationToken::new()).await);
    assert_eq!(
        (r.content.as_str(), r.stop_reason),
        ("cut", StopReason::MaxTokens)
    );
}

#[tokio::test]
async fn refusal_text_is_the_answer() {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(
        KIND,
        &Turn::text(["I can't ", "help."]).stop("refusal"),
    ));
    let p = provider(&server, KIND, json!({}));
    let r = ok(chat(p.as_ref(), &mut Rec::default(), CancellationToken::new()).await);
    assert_eq!(
        (r.content.as_str(), r.stop_reason),
        ("I can't help.", StopReason::Refusal)
    );
}

#[tokio::test]
async fn failed_response_is_a_classified_error() {
    let server = FakeServer::start();
    let failed = json!({"type":"response.failed","sequence_number":2,"response":{"id":"resp_1",
        "object":"response","status":"failed","error":{"code":"rate_limit_exceeded","message":"slow down"}}});
    let reply = || Reply::sse(vec![format!("event: response.failed\ndata: {failed}\n\n")]);
    server.enqueue(reply());
    server.enqueue(reply());
    let p = provider(&server, KIND, json!({"max_retries": 1}));
    let e = chat(p.as_ref(), &mut Rec::default(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(e, RobotaError::RateLimit { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "Rate Limit Error: openai-responses stream error rate_limit_exceeded: slow down"
    );
    assert_eq!(server.requests().len(), 2, "a rate limit is retried");
}

/// The text of the `THINKING_DELTA` / `TEXT_DELTA` events and the tool starts, in order.
fn host_view(host: &Host) -> Vec<String> {
    host.seen
        .events()
        .iter()
        .filter_map(|e| match (e.kind, &e.payload) {
            (events::THINKING_DELTA, Payload::Text(t)) => Some(format!("thinking:{t}")),
            (events::TEXT_DELTA, Payload::Text(t)) => Some(format!("text:{t}")),
            (events::TOOL_START, _) => Some(format!(
                "tool_start:{}",
                e.json_value().unwrap()["tool_call_id"]
            )),
            (events::TOOL_END, _) => Some(format!(
                "tool_end:{}",
                e.json_value().unwrap()["tool_call_id"]
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn two_tool_rounds_send_outputs_and_reasoning_back() {
    let dir = tempfile::tempdir().unwrap();
    for (f, text) in [("a.txt", "alpha"), ("b.txt", "beta"), ("c.txt", "gamma")] {
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    let read = |f: &str| json!({ "filePath": f }).to_string();
    let round1 = Turn::text(Vec::<String>::new())
        .thinking(["Read ", "a first."])
        .tool("call_1", "Read", &read("a.txt"));
    let round2 = Turn::text(Vec::<String>::new())
        .thinking(["Now b and c."])
        .tool("call_2", "Read", &read("b.txt"))
        .tool("call_3", "Read", &read("c.txt"));
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(KIND, &round1));
    server.enqueue(Reply::for_kind(KIND, &round2));
    server.enqueue(Reply::for_kind(KIND, &Turn::text(["All ", "read."])));
    let rt = runtime(server.provider_config(KIND));
    let host = Host::open(
        &rt,
        json!({"tools":["Read"],"cwd": dir.path(),"permission_mode":"bypassPermissions"}),
    )
    .unwrap();
    host.turn(json!({"text":"Read the files"})).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let reasoning = |thinking: &[&str]| {
        let thinking: Vec<String> = thinking.iter().map(|t| t.to_string()).collect();
        let (id, enc) = reasoning_ids(&thinking);
        json!({"id": id, "type": "reasoning",
               "summary": [{"type": "summary_text", "text": thinking.concat()}],
               "encrypted_content": enc})
    };
    let call = |id: &str, f: &str| json!({"type":"function_call","call_id":id,"name":"Read","arguments":read(f)});
    let output = |id: &str, f: &str, text: &str| {
        json!({"type":"function_call_output","call_id":id,
               "output": json!({"success":true,"output":format!("[File: {f} (1 lines)]\n1\t{text}")}).to_string()})
    };
    let prompt = json!({"role":"user","content":"Read the files"});
    let first_round = vec![
        prompt.clone(),
        reasoning(&["Read ", "a first."]),
        call("call_1", "a.txt"),
        output("call_1", "a.txt", "alpha"),
    ];
    let mut second_round = first_round.clone();
    second_round.extend([
        reasoning(&["Now b and c."]),
        call("call_2", "b.txt"),
        call("call_3", "c.txt"),
        output("call_2", "b.txt", "beta"),
        output("call_3", "c.txt", "gamma"),
    ]);
    assert_eq!(reqs[0].body["input"], json!([prompt]));
    assert_eq!(reqs[1].body["input"], Value::Array(first_round));
    assert_eq!(reqs[2].body["input"], Value::Array(second_round));
    for r in &reqs {
        assert_eq!(r.path, "/v1/responses");
        assert_eq!(r.body["store"], false);
        assert_eq!(r.body["include"], json!(["reasoning.encrypted_content"]));
        assert_eq!(
            r.body.get("instructions"),
            None,
            "no system prompt in this session"
        );
        let read_tool = r.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "Read")
            .unwrap();
        assert_eq!(
            (&read_tool["type"], &read_tool["strict"]),
            (&json!("function"), &json!(false))
        );
    }
    let view = host_view(&host);
    assert_eq!(
        view[..5],
        [
            "thinking:Read ",
            "thinking:a first.",
            "tool_start:\"call_1\"",
            "tool_end:\"call_1\"",
            "thinking:Now b and c.",
        ]
    );
    // The two parallel Read calls run at once: each starts before it ends, in either order.
    let parallel = &view[5..9];
    let at = |e: &str| parallel.iter().position(|v| v == e).unwrap();
    for call in ["call_2", "call_3"] {
        assert!(at(&format!("tool_start:\"{call}\"")) < at(&format!("tool_end:\"{call}\"")));
    }
    assert_eq!(view[9..], ["text:All ", "text:read."]);
    let done = host.last_completed();
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(done["response"], "All read.");
    assert_eq!(
        done["usage"]["input_tokens"], 30,
        "three calls of 10 input tokens"
    );
}
