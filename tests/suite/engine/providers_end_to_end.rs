//! Recorded vendor streams end to end: through a host session (`turn_completed` stop reason
//! and summed usage, `warning` for `max_tokens`, a non-recoverable `error` for a prompt blocked
//! for safety) and through the engine (history contents, server-tool blocks sent back verbatim
//! on the next request, a tool call cut at `max_tokens` never run).

use std::sync::Arc;
use std::time::Duration;

use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::execution::{RunStop, MAX_TOKENS_CUT_CALL};
use robota_engine::core::message::Role;
use robota_engine::core::tool::{ClosureTool, Tool};
use robota_engine::sdk::events::{self, Payload};
use robota_engine::sdk::interactive::TurnInput;
use serde_json::{json, Value};

use crate::support::fake_server::{without_cache_marks, FakeServer, Reply, Turn};
use crate::support::host_session::{recorded_session, runtime, Recorder};
use crate::support::provider_cases::provider;
use crate::support::vendor_streams::{fixture, kind_of};

/// Runs one session turn against `server` (a provider of `kind`); returns the events.
fn session_turn(server: &FakeServer, kind: &str) -> Arc<Recorder> {
    let rt = runtime(server.provider_config(kind));
    let (session, seen) = recorded_session(
        &rt,
        &json!({"provider":"p","model":"test-model","tools":[]}),
    )
    .unwrap();
    let turn = session
        .submit(TurnInput::from_json(r#"{"text":"hi"}"#).unwrap())
        .unwrap();
    let _ = session.wait(turn, Some(Duration::from_secs(30)));
    session.close();
    seen
}

fn texts(events: &Recorder) -> Vec<String> {
    events
        .events()
        .iter()
        .filter(|e| e.kind == events::TEXT_DELTA)
        .filter_map(|e| match &e.payload {
            Payload::Text(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

fn completed(events: &Recorder) -> Value {
    let done = events.json(events::TURN_COMPLETED);
    assert_eq!(done.len(), 1, "one turn_completed");
    done[0].clone()
}

fn serve_fixture(name: &str) -> FakeServer {
    let server = FakeServer::start();
    server.enqueue(Reply::raw_lines(&fixture(name)));
    server
}

#[test]
fn session_refusal_is_the_turns_stop_reason() {
    let name = "anthropic/refusal_response.txt";
    let server = serve_fixture(name);
    let events = session_turn(&server, kind_of(name));
    let done = completed(&events);
    assert_eq!(done["stop_reason"], "refusal");
    assert_eq!(
        done["usage"],
        json!({"input_tokens":20,"output_tokens":120,"total_tokens":140,
               "cache_read_tokens":0,"cache_creation_tokens":0})
    );
    assert_eq!(server.requests().len(), 1, "no hidden model call");
    assert!(events.json(events::ERROR).is_empty());
}

#[test]
fn session_openai_refusal_text_is_the_answer() {
    let server = serve_fixture("openai/refusal.txt");
    let events = session_turn(&server, "openai");
    let done = completed(&events);
    assert_eq!(done["stop_reason"], "refusal");
    assert_eq!(
        done["response"],
        "I'm sorry, but I can't assist with that request."
    );
    assert_eq!(
        texts(&events).concat(),
        "I'm sorry, but I can't assist with that request."
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn session_length_is_max_tokens_with_a_warning() {
    let server = serve_fixture("openai/length_max_tokens.txt");
    let events = session_turn(&server, "openai");
    let done = completed(&events);
    assert_eq!(done["stop_reason"], "max_tokens");
    assert_eq!(done["response"], "{\"");
    assert_eq!(done["usage"]["input_tokens"], 17);
    let warnings: Vec<_> = events
        .json(events::WARNING)
        .into_iter()
        .filter(|w| w["code"] != "CONTEXT_WINDOW_ASSUMED")
        .collect();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["code"], "MAX_TOKENS");
    assert!(warnings[0]["message"]
        .as_str()
        .unwrap()
        .contains("max_tokens"));
    // The warning comes before the completion.
    let order: Vec<u32> = events.events().iter().map(|e| e.kind).collect();
    let w = order.iter().position(|k| *k == events::WARNING).unwrap();
    let c = order
        .iter()
        .position(|k| *k == events::TURN_COMPLETED)
        .unwrap();
    assert!(w < c);
}

#[test]
fn session_safety_block_is_a_non_recoverable_error() {
    let server = serve_fixture("gemini/streaming-failure-prompt-blocked-safety.txt");
    let events = session_turn(&server, "gemini");
    let errors = events.json(events::ERROR);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["code"], "PROVIDER_ERROR");
    assert_eq!(errors[0]["recoverable"], false);
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .contains("blocked the prompt: SAFETY"));
    assert_eq!(completed(&events)["stop_reason"], "error");
    assert_eq!(server.requests().len(), 1, "not retried");
}

#[test]
fn session_usage_is_summed_over_the_turns_calls_with_cache_tokens() {
    let server = FakeServer::start();
    // A tool-only first round (an unknown tool), then the recorded answer.
    server.enqueue(Reply::anthropic(
        &Turn::default()
            .tool("c1", "nope", "{}")
            .usage(10, 2)
            .cached(3),
    ));
    server.enqueue(Reply::raw_lines(&fixture(
        "anthropic/message_delta_fields_response.txt",
    )));
    let events = session_turn(&server, "anthropic");
    let done = completed(&events);
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(done["response"], "Hello there!");
    assert_eq!(
        done["usage"],
        json!({"input_tokens":50,"output_tokens":10,"total_tokens":82,
               "cache_read_tokens":10,"cache_creation_tokens":12})
    );
    assert_eq!(texts(&events), vec!["Hello there!"], "no leading separator");
}

fn tool(name: &str) -> Arc<dyn Tool> {
    Arc::new(ClosureTool::new(
        name,
        "test tool",
        json!({"type":"object","properties":{}}),
        |args: Value| Ok(json!(format!("ran with {args}"))),
    ))
}

fn agent_for(server: &FakeServer, tools: Vec<Arc<dyn Tool>>) -> Agent {
    let mut cfg = AgentConfig::new(provider(server, "anthropic", json!({})), "test-model");
    cfg.tools = tools;
    Agent::new(cfg).unwrap()
}

#[tokio::test]
async fn server_tool_blocks_are_sent_back_verbatim_with_the_tool_result() {
    let server = serve_fixture("anthropic/server_tool_result_response.txt");
    server.enqueue(Reply::anthropic(&Turn::text(["done"])));
    let a = agent_for(&server, vec![tool("ask_internal_tool")]);
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(r.stop, RunStop::Complete, "{:?}", r.error);
    assert_eq!(r.response, "done");
    assert_eq!(r.tools_executed, vec!["ask_internal_tool"]);
    let msgs = a.messages();
    assert_eq!(msgs[1].role, Role::Assistant);
    assert_eq!(msgs[1].native.as_ref().unwrap().blocks.len(), 4);
    let body = &without_cache_marks(&server.requests()[1].body);
    assert_eq!(
        body["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "svu_web_001", "name": "web_search", "input": {}},
            {"type": "tool_use", "id": "tu_client_001", "name": "ask_internal_tool", "input": {"query": "test"}},
            {"type": "web_search_tool_result", "tool_use_id": "svu_web_001",
             "content": [{"type": "web_search_result", "url": "https://example.com",
                          "title": "Example Result", "encrypted_content": "enc_abc123", "page_age": null}]},
            {"type": "code_execution_tool_result", "tool_use_id": "svu_code_001",
             "content": {"type": "code_execution_result", "return_code": 0, "stdout": "hello",
                         "stderr": "", "content": []}}
        ]})
    );
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_client_001",
                                            "content": "ran with {\"query\":\"test\"}"}]})
    );
}

#[tokio::test]
async fn the_model_keeps_its_own_search_on_the_next_turn() {
    let server = serve_fixture("anthropic/server_tool_use_response.txt");
    server.enqueue(Reply::anthropic(&Turn::text(["Sunny."])));
    let a = agent_for(&server, vec![]);
    let r = a.run("weather?", RunOptions::default()).await.unwrap();
    assert_eq!(r.response, "Let me search for that.");
    a.run("and?", RunOptions::default()).await.unwrap();
    let body = &without_cache_marks(&server.requests()[1].body);
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me search for that."},
                {"type": "server_tool_use", "id": "srvtoolu_01WebSearch", "name": "web_search",
                 "input": {"query": "weather in Paris"}}
            ]},
            {"role": "user", "content": [{"type": "text", "text": "and?"}]}
        ])
    );
}

#[tokio::test]
async fn a_tool_call_cut_at_max_tokens_is_reported_to_the_model_not_run() {
    let server = serve_fixture("anthropic/incomplete_partial_json_response.txt");
    server.enqueue(Reply::anthropic(&Turn::text(["Shorter then."])));
    let a = agent_for(&server, vec![tool("make_file")]);
    let r = a.run("write it", RunOptions::default()).await.unwrap();
    assert_eq!(r.stop, RunStop::MaxTokens);
    assert!(r.tools_executed.is_empty());
    assert!(r
        .response
        .starts_with("I'll create a comprehensive tax guide"));
    assert_eq!(server.requests().len(), 1, "the turn stops at the cut");
    let last = a.messages().last().unwrap().clone();
    assert_eq!(last.role, Role::Tool);
    assert_eq!(last.content, format!("Error: {MAX_TOKENS_CUT_CALL}"));
    // The next turn tells the model, in the tool result, that its output was cut.
    a.run("try again", RunOptions::default()).await.unwrap();
    let body = &without_cache_marks(&server.requests()[1].body);
    assert_eq!(
        body["messages"][2]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_01EKqbqmZrGRXy18eN7m9kvY",
               "content": format!("Error: {MAX_TOKENS_CUT_CALL}"), "is_error": true})
    );
    assert_eq!(body["messages"][1]["content"][1]["input"], json!({}));
}

#[tokio::test]
async fn an_answer_of_only_server_tool_blocks_is_kept_in_history() {
    let server = FakeServer::start();
    let turn = Turn::default().server_tool("srv_1", "web_search", r#"{"query":"q"}"#);
    server.enqueue(Reply::anthropic(&turn));
    server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
    let a = agent_for(&server, vec![]);
    a.run("search", RunOptions::default()).await.unwrap();
    assert_eq!(server.requests().len(), 1, "no hidden call");
    let kept = a.messages()[1].clone();
    assert_eq!((kept.role, kept.content.as_str()), (Role::Assistant, ""));
    a.run("next", RunOptions::default()).await.unwrap();
    let sent = &server.requests()[1].body["messages"][1];
    assert_eq!(sent["role"], "assistant");
    assert_eq!(
        sent["content"][0],
        json!({"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "q"}})
    );
    assert_eq!(sent["content"][1]["type"], "web_search_tool_result");
    assert_eq!(sent["content"][1]["tool_use_id"], "srv_1");
}
