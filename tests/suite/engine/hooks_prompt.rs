//! `prompt` hooks (the provider answers `{ok, reason}`) in a session against the fake server: the
//! question on the wire, an answer that allows, one that blocks (fenced JSON), a garbage answer and
//! a timeout (warnings; the tool runs).

use robota_engine::sdk::events;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::host_session::{runtime, Host};

const RESPOND: &str = "Respond with JSON: { \"ok\": boolean, \"reason\"?: string }";

/// A session whose `Glob` calls are judged by a prompt hook (`extra` merged into the hook).
fn judged(
    server: &FakeServer,
    dir: &std::path::Path,
    extra: Value,
) -> (robota_engine::sdk::runtime::Runtime, Host) {
    let mut p = server.provider_config("openai");
    p["max_retries"] = json!(0);
    let rt = runtime(p);
    let mut hook = json!({"type":"prompt","prompt":"Is this tool call safe?"});
    for (k, v) in extra.as_object().unwrap() {
        hook[k] = v.clone();
    }
    let host = Host::open(
        &rt,
        json!({"tools":["Glob"],"cwd": dir, "permission_mode":"bypassPermissions","context_window":100000,
               "hooks":{"PreToolUse":[{"matcher":"Glob","hooks":[hook]}]}}),
    )
    .unwrap();
    (rt, host)
}

fn glob_call(server: &FakeServer) {
    server.enqueue(Reply::openai(&Turn::text(Vec::<String>::new()).tool(
        "g1",
        "Glob",
        r#"{"pattern":"*.txt"}"#,
    )));
}

/// The tool message content of the parent's follow-up request.
fn tool_result(req: &Value) -> String {
    let msgs = req["messages"].as_array().unwrap();
    let m = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    m["content"].as_str().unwrap().to_string()
}

fn warnings(host: &Host) -> Vec<String> {
    host.json(events::WARNING)
        .iter()
        .map(|w| w["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_ok_answer_allows_and_the_question_is_the_reference_prompt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    let server = FakeServer::start();
    glob_call(&server);
    server.enqueue(Reply::openai(&Turn::text([r#"{"ok": true}"#])));
    server.enqueue(Reply::openai(&Turn::text(["found it"])));
    let (_rt, host) = judged(&server, dir.path(), json!({"model":"judge-model"}));
    host.turn(json!({"text":"list"})).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let ask = &reqs[1].body;
    assert_eq!(ask["model"], "judge-model");
    assert!(ask.get("tools").is_none());
    let msgs = ask["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0]["role"], "user");
    let q = msgs[0]["content"].as_str().unwrap();
    let ctx = q
        .strip_prefix("Is this tool call safe?\n\nContext:\n")
        .and_then(|r| r.strip_suffix(&format!("\n\n{RESPOND}")))
        .unwrap_or_else(|| panic!("unexpected question: {q}"));
    let input: Value = serde_json::from_str(ctx).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Glob");
    assert_eq!(input["tool_input"], json!({"pattern":"*.txt"}));
    // The tool ran: its real output reached the model.
    let out = tool_result(&reqs[2].body);
    assert!(out.contains("a.txt"), "{out}");
    assert!(warnings(&host).is_empty(), "{:?}", warnings(&host));
}

#[test]
fn a_not_ok_answer_in_a_fence_blocks_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    glob_call(&server);
    server.enqueue(Reply::openai(&Turn::text([
        "Here you go:\n```json\n{\"ok\": false, \"reason\": \"not today\"}\n```",
    ])));
    server.enqueue(Reply::openai(&Turn::text(["blocked"])));
    let (_rt, host) = judged(&server, dir.path(), json!({}));
    host.turn(json!({"text":"list"})).unwrap();
    let reqs = server.requests();
    // No `model` in the hook: the session's.
    assert_eq!(reqs[1].body["model"], "test-model");
    assert_eq!(
        tool_result(&reqs[2].body),
        r#"{"success":false,"output":"","error":"Blocked by hook: not today"}"#
    );
    let ends = host.json(events::TOOL_END);
    assert_eq!(ends[0]["result"], "denied");
}

#[test]
fn an_answer_without_ok_blocks_with_the_default_reason() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    glob_call(&server);
    server.enqueue(Reply::openai(&Turn::text([r#"{"verdict":"fine"}"#])));
    server.enqueue(Reply::openai(&Turn::text(["blocked"])));
    let (_rt, host) = judged(&server, dir.path(), json!({}));
    host.turn(json!({"text":"list"})).unwrap();
    assert_eq!(
        tool_result(&server.requests()[2].body),
        r#"{"success":false,"output":"","error":"Blocked by hook: Blocked by prompt hook"}"#
    );
}

#[test]
fn a_garbage_answer_is_a_warning_and_the_tool_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    let server = FakeServer::start();
    glob_call(&server);
    server.enqueue(Reply::openai(&Turn::text(["sure, go ahead"])));
    server.enqueue(Reply::openai(&Turn::text(["ran"])));
    let (_rt, host) = judged(&server, dir.path(), json!({}));
    host.turn(json!({"text":"list"})).unwrap();
    assert_eq!(
        warnings(&host),
        vec![
            "PreToolUse hook \"prompt\" exited with code 1: Failed to parse AI response as JSON: sure, go ahead"
                .to_string()
        ]
    );
    assert!(tool_result(&server.requests()[2].body).contains("a.txt"));
    assert_eq!(host.json(events::TOOL_END)[0]["result"], "success");
}

#[test]
fn a_prompt_hook_that_does_not_answer_in_time_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    let server = FakeServer::start();
    glob_call(&server);
    server.enqueue(Reply::hang());
    server.enqueue(Reply::openai(&Turn::text(["ran"])));
    let (_rt, host) = judged(&server, dir.path(), json!({"timeout": 0.3}));
    host.turn(json!({"text":"list"})).unwrap();
    assert_eq!(
        warnings(&host),
        vec!["PreToolUse hook \"prompt\" exited with code 1: Prompt hook timed out".to_string()]
    );
    assert!(tool_result(&server.requests()[2].body).contains("a.txt"));
}

#[test]
fn a_provider_failure_is_a_warning_and_the_tool_runs() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    glob_call(&server);
    server.enqueue(Reply::error(500, r#"{"error":{"message":"judge down"}}"#));
    server.enqueue(Reply::openai(&Turn::text(["ran"])));
    let (_rt, host) = judged(&server, dir.path(), json!({}));
    host.turn(json!({"text":"list"})).unwrap();
    let w = warnings(&host);
    assert_eq!(
        w,
        vec![
            "PreToolUse hook \"prompt\" exited with code 1: Provider Error (p): p (openai) returned HTTP 500: judge down"
                .to_string()
        ]
    );
    assert_eq!(host.json(events::TOOL_END)[0]["result"], "success");
}
