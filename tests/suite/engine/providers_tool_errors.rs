//! Failed tool results on the wire, in each vendor's documented form: a host tool completed
//! with an error, a built-in tool's `{"success":false,…}` and a denied permission go to
//! Anthropic as `tool_result` blocks with `"is_error":true`, to Gemini as a function response
//! `{"error":…}`, and to OpenAI chat as a plain tool message (the API has no error field).
//! Error placeholders are never sent as the model's own words: a failed call's
//! `Request failed: …` and an answer aborted before any text are left out of the next request.

use std::time::Duration;

use robota_engine::sdk::events::{self, Payload};
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

use crate::support::fake_server::{without_cache_marks, FakeServer, Reply, Turn};
use crate::support::host_session::Host;

const NOT_FOUND: &str = "{\"success\":false,\"output\":\"\",\"error\":\"File not found: ";
const DENIED: &str = r#"{"success":false,"output":"","error":"Permission denied. The user did not approve this action. The deny rule"#;

/// A runtime with provider `p` of `kind` and the host tool `Lookup`.
fn runtime(server: &FakeServer, kind: &str) -> Runtime {
    let mut p = server.provider_config(kind);
    p["max_retries"] = json!(0);
    let rt = Runtime::from_json(&json!({"v":1,"providers":{"p": p}}).to_string()).unwrap();
    rt.register_tool(
        &json!({"name":"Lookup","description":"asks the host","read_only":true,
                "input_schema":{"type":"object"}})
        .to_string(),
        None,
    )
    .unwrap();
    rt
}

/// One turn in which the model calls `Lookup` (the host answers an error), `Read` of a missing
/// file and a denied `Write`, then answers; returns the follow-up request's body.
fn failed_round(server: &FakeServer, kind: &str, reply: fn(&Turn) -> Reply) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    let written = dir.path().join("out.txt");
    let rt = runtime(server, kind);
    server.enqueue(reply(
        &Turn::text(Vec::<String>::new())
            .tool("toolu_1", "Lookup", r#"{"key":"k"}"#)
            .tool("toolu_2", "Read", &json!({"filePath": missing}).to_string())
            .tool(
                "toolu_3",
                "Write",
                &json!({"filePath": written, "content": "x"}).to_string(),
            ),
    ));
    server.enqueue(reply(&Turn::text(["sorry"])));
    let host = Host::open(
        &rt,
        json!({"tools":["Lookup","Read","Write"],"cwd": dir.path(),
               "permission_mode":"bypassPermissions","permissions":{"deny":["Write"]}}),
    )
    .unwrap();
    let t = host.submit(json!({"text":"go"}));
    let call_id = host
        .seen
        .wait_until(Duration::from_secs(30), "the host tool call", |evs| {
            evs.iter().find_map(|e| match &e.payload {
                Payload::ToolCall(c) if e.kind == events::TOOL_CALL => Some(c.call_id),
                _ => None,
            })
        });
    rt.complete_tool_call(call_id, "\"no such key\"", true)
        .unwrap();
    host.wait(t).unwrap();
    assert!(!written.exists());
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    without_cache_marks(&reqs[1].body)
}

#[test]
fn anthropic_gets_is_error_on_every_failed_tool_result() {
    let server = FakeServer::start();
    let body = failed_round(&server, "anthropic", Reply::anthropic);
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 3, "{body}");
    let results = msgs[2]["content"].as_array().unwrap();
    assert_eq!(msgs[2]["role"], "user");
    assert_eq!(results.len(), 3, "{body}");
    assert_eq!(
        results[0],
        json!({"type":"tool_result","tool_use_id":"toolu_1","content":"Error: no such key",
               "is_error":true})
    );
    let read = results[1]["content"].as_str().unwrap();
    assert!(read.starts_with(NOT_FOUND), "{read}");
    assert_eq!(
        results[1],
        json!({"type":"tool_result","tool_use_id":"toolu_2","content":read,"is_error":true})
    );
    let write = results[2]["content"].as_str().unwrap();
    assert!(write.starts_with(DENIED), "{write}");
    assert_eq!(
        results[2],
        json!({"type":"tool_result","tool_use_id":"toolu_3","content":write,"is_error":true})
    );
}

#[test]
fn anthropic_successful_result_has_no_is_error() {
    let server = FakeServer::start();
    let rt = runtime(&server, "anthropic");
    server.enqueue(Reply::anthropic(
        &Turn::text(Vec::<String>::new()).tool("toolu_1", "Lookup", "{}"),
    ));
    server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
    let host = Host::open(&rt, json!({"tools":["Lookup"]})).unwrap();
    let t = host.submit(json!({"text":"go"}));
    let call_id = host
        .seen
        .wait_until(Duration::from_secs(30), "the host tool call", |evs| {
            evs.iter().find_map(|e| match &e.payload {
                Payload::ToolCall(c) if e.kind == events::TOOL_CALL => Some(c.call_id),
                _ => None,
            })
        });
    rt.complete_tool_call(call_id, "\"found\"", false).unwrap();
    host.wait(t).unwrap();
    let body = &without_cache_marks(&server.requests()[1].body);
    assert_eq!(
        body["messages"][2]["content"],
        json!([{"type":"tool_result","tool_use_id":"toolu_1","content":"found"}])
    );
}

#[test]
fn gemini_gets_an_error_response_for_failed_calls() {
    let server = FakeServer::start();
    let body = failed_round(&server, "gemini", Reply::gemini);
    let contents = body["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 3, "{body}");
    let parts = contents[2]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3, "{body}");
    assert_eq!(
        parts[0],
        json!({"functionResponse":{"name":"Lookup","response":{"error":"Error: no such key"},
                                   "id":"toolu_1"}})
    );
    let read = parts[1]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    assert!(read.starts_with(NOT_FOUND), "{read}");
    let write = parts[2]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    assert!(write.starts_with(DENIED), "{write}");
}

#[test]
fn openai_chat_sends_failed_results_as_plain_tool_messages() {
    let server = FakeServer::start();
    let body = failed_round(&server, "openai", Reply::openai);
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 5, "{body}");
    assert_eq!(
        msgs[2],
        json!({"role":"tool","tool_call_id":"toolu_1","content":"Error: no such key"})
    );
    assert_eq!(msgs[3]["role"], "tool");
    assert_eq!(msgs[3].as_object().unwrap().len(), 3, "{}", msgs[3]);
    assert!(msgs[3]["content"].as_str().unwrap().starts_with(NOT_FOUND));
    assert!(msgs[4]["content"].as_str().unwrap().starts_with(DENIED));
}

/// A turn that fails with HTTP 401, then one that works: returns the second request's body
/// and the session (its views checked by the caller).
fn after_a_failed_call(
    server: &FakeServer,
    kind: &str,
    reply: fn(&Turn) -> Reply,
) -> (Value, Host) {
    let rt = runtime(server, kind);
    server.enqueue(Reply::error(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    ));
    server.enqueue(reply(&Turn::text(["hello"])));
    let host = Host::open(&rt, json!({})).unwrap();
    assert!(host.turn(json!({"text":"hi"})).is_err());
    host.turn(json!({"text":"again"})).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    (without_cache_marks(&reqs[1].body), host)
}

/// The `role: content` pairs of a view of `robota_session_messages`.
fn view(host: &Host, name: &str) -> Vec<(String, String)> {
    let doc: Value = serde_json::from_str(
        &host
            .session
            .messages_json(Some(&json!({"view": name}).to_string()))
            .unwrap(),
    )
    .unwrap();
    doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(r, c)| (r.to_string(), c.to_string()))
        .collect()
}

#[test]
fn a_failed_call_is_never_sent_to_anthropic_as_assistant_text() {
    let server = FakeServer::start();
    let (body, host) = after_a_failed_call(&server, "anthropic", Reply::anthropic);
    // The two user turns are one user message (the API wants roles to alternate).
    assert_eq!(
        body["messages"],
        json!([{"role":"user","content":[{"type":"text","text":"hi"},
                                         {"type":"text","text":"again"}]}])
    );
    // The model's view leaves the placeholder out; the UI keeps its error entry.
    assert_eq!(
        view(&host, "conversation"),
        pairs(&[("user", "hi"), ("user", "again"), ("assistant", "hello")])
    );
    let ui = view(&host, "messages");
    assert_eq!(ui.len(), 4, "{ui:?}");
    assert_eq!(ui[0], ("user".into(), "hi".into()));
    assert_eq!(ui[1].0, "system");
    assert!(ui[1].1.starts_with("Error: "), "{ui:?}");
    assert!(ui[1].1.contains("invalid x-api-key"), "{ui:?}");
    assert_eq!(ui[2..], pairs(&[("user", "again"), ("assistant", "hello")]));
}

#[test]
fn a_failed_call_is_never_sent_to_openai_or_gemini() {
    let server = FakeServer::start();
    let (body, _host) = after_a_failed_call(&server, "openai", Reply::openai);
    // Chat Completions accepts consecutive user messages.
    assert_eq!(
        body["messages"],
        json!([{"role":"user","content":"hi"},{"role":"user","content":"again"}])
    );
    let server = FakeServer::start();
    let (body, _host) = after_a_failed_call(&server, "gemini", Reply::gemini);
    assert_eq!(
        body["contents"],
        json!([{"role":"user","parts":[{"text":"hi"},{"text":"again"}]}])
    );
}

#[test]
fn an_answer_aborted_before_any_text_is_not_sent_as_the_models_words() {
    let server = FakeServer::start();
    let rt = runtime(&server, "anthropic");
    server.enqueue(Reply::hang());
    server.enqueue(Reply::anthropic(&Turn::text(["hello"])));
    let host = Host::open(&rt, json!({})).unwrap();
    let t = host.submit(json!({"text":"hi"}));
    assert_eq!(
        server.wait_for_requests(1, Duration::from_secs(30)).len(),
        1
    );
    host.session.abort(t).unwrap();
    assert!(host.wait(t).is_err());
    assert_eq!(host.last_completed()["stop_reason"], "aborted");
    host.turn(json!({"text":"again"})).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    // Not "[This response was interrupted by the user]" as assistant text.
    assert_eq!(
        without_cache_marks(&reqs[1].body["messages"]),
        json!([{"role":"user","content":[{"type":"text","text":"hi"},
                                         {"type":"text","text":"again"}]}])
    );
}
