//! Server-side tool use reaches the C host as `ROBOTA_EVENT_SERVER_TOOL`: Anthropic's recorded
//! `server_tool_use` stream (native web search) gives one event with the tool's name, status
//! and query, in stream order (after the text before it, before the turn's answer message).
//! OpenAI Chat Completions has no server-tool form, and the library does not ask Gemini for
//! grounding, so Anthropic's is the one vendor form there is.

use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply};
use crate::support::vendor_streams::fixture;
use crate::support_ffi::{events_until, runtime, session_new, submit};
use robota::ffi::*;

#[test]
fn an_anthropic_web_search_is_a_server_tool_event() {
    let server = FakeServer::start();
    server.enqueue(Reply::raw_lines(&fixture(
        "anthropic/server_tool_use_response.txt",
    )));
    let mut profile = server.provider_config("anthropic");
    profile["max_retries"] = json!(0);
    let rt = runtime(&json!({"v":1,"providers":{"a": profile}}).to_string());
    let s = session_new(
        rt,
        r#"{"v":1,"provider":"a","model":"claude-sonnet-4-20250514","delivery":"pull","tools":[]}"#,
    )
    .unwrap();
    let turn = submit(s, "weather in Paris?");
    let events = events_until(s, "turn_completed");
    let server_tools: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "server_tool")
        .collect();
    assert_eq!(
        server_tools,
        [
            &json!({"v":1,"kind":ROBOTA_EVENT_SERVER_TOOL,"type":"server_tool","turn_id":turn,
                 "tool_name":"web_search","status":"started","query":"weather in Paris",
                 "input":{"query":"weather in Paris"}})
        ]
    );
    let at = |t: &str| events.iter().position(|e| e["type"] == t).unwrap();
    let answer = events
        .iter()
        .position(|e| e["type"] == "message" && e["role"] == "assistant")
        .unwrap();
    assert!(at("text_delta") < at("server_tool"), "{events:?}");
    assert!(at("server_tool") < answer, "{events:?}");
    assert_eq!(
        events.last().unwrap()["response"],
        "Let me search for that."
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}
