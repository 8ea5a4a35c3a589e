//! Team tools (`"team": true`) against the fake server: each tool's exact
//! output, `assignTask` running a child session with the template's system message and the
//! overrides on the wire, host-registered templates, and failures as tool results.

use std::ffi::{CStr, CString};
use std::ptr::null_mut;

use robota::ffi::*;
use robota_engine::sdk::events;
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, RecordedRequest, Reply, Turn};
use crate::support::host_session::Host;

const GENERAL: &str = r#"{"id":"general","name":"General Purpose","description":"Versatile agent for broad tasks","provider":"openai","model":"gpt-4o-mini","temperature":0.5,"systemMessage":"You are a capable assistant. Solve tasks clearly and accurately."}"#;

fn runtime(profiles: Value) -> Runtime {
    Runtime::from_json(&json!({"v":1,"providers": profiles}).to_string()).unwrap()
}

/// An openai profile `p` on the fake server, without retries (a 500 fails at once).
fn openai(server: &FakeServer) -> Value {
    let mut p = server.provider_config("openai");
    p["max_retries"] = json!(0);
    p
}

fn team_session(rt: &Runtime, mode: &str) -> Host {
    Host::open(
        rt,
        json!({"tools":[],"team":true,"permission_mode":mode,"system_prompt":"parent"}),
    )
    .unwrap()
}

/// The tool messages (OpenAI wire) of a request: `(tool_call_id, content)`.
fn tool_messages(req: &RecordedRequest) -> Vec<(String, String)> {
    req.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn each_team_tool_answers_exactly_as_the_reference() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(
        &Turn::text(Vec::<String>::new())
            .tool("c1", "listTemplateCategories", "{}")
            .tool("c2", "listTemplates", r#"{"categoryId":"anything"}"#)
            .tool("c3", "getTemplateDetail", r#"{"templateId":"general"}"#)
            .tool("c4", "getTemplateDetail", r#"{"templateId":"nope"}"#)
            .tool("c5", "getTemplateDetail", r#"{"templateId":""}"#)
            .tool("c6", "getTemplateDetail", "{}"),
    ));
    server.enqueue(Reply::openai(&Turn::text(["ok"])));
    let rt = runtime(json!({"p": openai(&server)}));
    // Read-only tools: they run in the default mode without asking.
    let host = team_session(&rt, "default");
    host.turn(json!({"text":"what templates are there?"}))
        .unwrap();
    assert_eq!(host.last_completed()["stop_reason"], "complete");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let names: Vec<&str> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "listTemplateCategories",
            "listTemplates",
            "getTemplateDetail",
            "assignTask"
        ]
    );
    let results = tool_messages(&reqs[1]);
    let expected = [
        ("c1", r#"{"categories":[{"id":"default","name":"Default Templates","description":"Built-in assignTask templates"}]}"#.to_string()),
        ("c2", r#"{"templates":[{"id":"general","name":"General Purpose","description":"Versatile agent for broad tasks","categoryId":"default"},{"id":"task_coordinator","name":"Task Coordinator","description":"Break down and coordinate tasks","categoryId":"default"}]}"#.to_string()),
        ("c3", GENERAL.to_string()),
        ("c4", "Error: Tool Execution Error (getTemplateDetail): Function tool execution failed: Template not found: nope".to_string()),
        ("c5", "Error: Tool Execution Error (getTemplateDetail): Function tool execution failed: Missing required parameter: templateId".to_string()),
        ("c6", "Error: Validation Error: Invalid parameters for tool \"getTemplateDetail\": Missing required parameter: templateId".to_string()),
    ];
    let got: Vec<(&str, &str)> = results
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let want: Vec<(&str, &str)> = expected.iter().map(|(a, b)| (*a, b.as_str())).collect();
    assert_eq!(got, want);
}

#[test]
fn assign_task_runs_a_child_with_the_template_system_message_and_overrides() {
    let server = FakeServer::start();
    let args = json!({"templateId":"general","jobDescription":"Add 2 and 2",
        "model":"gpt-override","temperature":0.25,"maxTokens":64,"context":"answer with a digit"});
    server.enqueue(Reply::openai(&Turn::text(Vec::<String>::new()).tool(
        "a1",
        "assignTask",
        &args.to_string(),
    )));
    server.enqueue(Reply::openai(&Turn::text(["4"])));
    server.enqueue(Reply::openai(&Turn::text(["The child says 4."])));
    let rt = runtime(json!({"p": openai(&server)}));
    let host = team_session(&rt, "bypassPermissions");
    host.turn(json!({"text":"delegate"})).unwrap();
    assert_eq!(host.last_completed()["response"], "The child says 4.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    // The child's request: the template's system message (Robota dropped it), the job
    // plus its context, the overrides, and no tools.
    let child = &reqs[1].body;
    assert_eq!(reqs[1].path, "/v1/chat/completions");
    assert_eq!(child["model"], "gpt-override");
    assert_eq!(child["temperature"], 0.25);
    let cap = child
        .get("max_completion_tokens")
        .or_else(|| child.get("max_tokens"));
    assert_eq!(cap, Some(&json!(64)));
    assert!(child.get("tools").is_none(), "{child}");
    assert_eq!(
        child["messages"],
        json!([
            {"role":"system","content":"You are a capable assistant. Solve tasks clearly and accurately."},
            {"role":"user","content":"Add 2 and 2\n\nContext: answer with a digit"}
        ])
    );
    assert_eq!(
        tool_messages(&reqs[2]),
        vec![(
            "a1".to_string(),
            r#"{"response":"4","templateId":"general"}"#.to_string()
        )]
    );
}

#[test]
fn assign_task_without_overrides_uses_the_template_model_and_temperature() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(Vec::<String>::new()).tool(
        "a1",
        "assignTask",
        r#"{"templateId":"general","jobDescription":"hi"}"#,
    )));
    server.enqueue(Reply::openai(&Turn::text(["hello"])));
    server.enqueue(Reply::openai(&Turn::text(["done"])));
    // The template says provider "openai": no profile has that name, so the first profile of
    // that kind ("p") serves it.
    let rt = runtime(json!({"p": openai(&server)}));
    let host = team_session(&rt, "bypassPermissions");
    host.turn(json!({"text":"go"})).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs[1].body["model"], "gpt-4o-mini");
    assert_eq!(reqs[1].body["temperature"], 0.5);
    assert_eq!(reqs[1].body["messages"][1]["content"], "hi");
}

#[test]
fn a_host_registered_template_is_used_by_assign_task_with_its_provider() {
    let server = FakeServer::start();
    let rt = runtime(json!({"p": openai(&server), "claude": server.provider_config("anthropic")}));
    // A session created before the registration sees the template too.
    let host = team_session(&rt, "bypassPermissions");
    rt.register_template(
        &json!({"v":1,"id":"reviewer","name":"Reviewer","description":"Reviews text",
                "provider":"anthropic","model":"claude-review","temperature":0.25,
                "systemMessage":"You review text and list problems."})
        .to_string(),
    )
    .unwrap();
    server.enqueue(Reply::openai(
        &Turn::text(Vec::<String>::new())
            .tool("l1", "listTemplates", "{}")
            .tool(
                "a1",
                "assignTask",
                r#"{"templateId":"reviewer","jobDescription":"Review: teh cat"}"#,
            ),
    ));
    server.enqueue(Reply::anthropic(&Turn::text(["typo: teh"])));
    server.enqueue(Reply::openai(&Turn::text(["reviewed"])));
    host.turn(json!({"text":"review"})).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[1].path, "/v1/messages");
    assert_eq!(reqs[1].body["model"], "claude-review");
    assert_eq!(reqs[1].body["temperature"], 0.25);
    assert_eq!(reqs[1].system_text(), "You review text and list problems.");
    let results = tool_messages(&reqs[2]);
    assert_eq!(
        results[0].1,
        r#"{"templates":[{"id":"general","name":"General Purpose","description":"Versatile agent for broad tasks","categoryId":"default"},{"id":"task_coordinator","name":"Task Coordinator","description":"Break down and coordinate tasks","categoryId":"default"},{"id":"reviewer","name":"Reviewer","description":"Reviews text","categoryId":"default"}]}"#
    );
    assert_eq!(
        results[1].1,
        r#"{"response":"typo: teh","templateId":"reviewer"}"#
    );
}

#[test]
fn assign_task_failures_are_tool_results_and_the_turn_completes() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(
        &Turn::text(Vec::<String>::new())
            .tool(
                "u",
                "assignTask",
                r#"{"templateId":"nope","jobDescription":"x"}"#,
            )
            .tool("j", "assignTask", r#"{"templateId":"general"}"#)
            .tool("t", "assignTask", r#"{"jobDescription":"x"}"#)
            .tool(
                "p",
                "assignTask",
                r#"{"templateId":"general","jobDescription":"x","provider":"nowhere"}"#,
            )
            .tool(
                "f",
                "assignTask",
                r#"{"templateId":"general","jobDescription":"x"}"#,
            ),
    ));
    // The one child that reaches the server fails.
    server.enqueue(Reply::error(
        500,
        r#"{"error":{"message":"model exploded"}}"#,
    ));
    server.enqueue(Reply::openai(&Turn::text(["handled"])));
    let rt = runtime(json!({"p": openai(&server)}));
    let host = team_session(&rt, "bypassPermissions");
    host.turn(json!({"text":"go"})).unwrap();
    let done = host.last_completed();
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(done["response"], "handled");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let results = tool_messages(&reqs[2]);
    let contents: Vec<&str> = results.iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(
        contents[..4],
        [
            "Error: Template not found: nope",
            "Error: Missing required parameter: jobDescription",
            "Error: Missing required parameter: templateId",
            "Error: unknown provider \"nowhere\" (configured: p)",
        ]
    );
    assert_eq!(
        contents[4],
        "Error: Provider Error (p): p (openai) returned HTTP 500: model exploded"
    );
    // The unknown template and provider also reach the host as warnings.
    let warnings: Vec<(String, String)> = host
        .json(events::WARNING)
        .iter()
        .filter(|w| w["code"] != "CONTEXT_WINDOW_ASSUMED")
        .map(|w| {
            (
                w["code"].as_str().unwrap().to_string(),
                w["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        warnings,
        [
            (
                "UNKNOWN_TEMPLATE".to_string(),
                "assignTask asked for unknown template \"nope\" (available: general, task_coordinator)".to_string()
            ),
            (
                "UNKNOWN_PROVIDER".to_string(),
                "assignTask: unknown provider \"nowhere\" (configured: p)".to_string()
            ),
        ]
    );
}

/// `robota_runtime_register_template` through the C ABI: `(status, message)` on failure.
fn register(rt: *mut robota_runtime, doc: &str) -> Result<(), (robota_status, String)> {
    let c = CString::new(doc).unwrap();
    let mut e = null_mut();
    let st = robota_runtime_register_template(rt, c.as_ptr(), &mut e);
    if st == ROBOTA_OK {
        return Ok(());
    }
    // SAFETY: a failed call wrote an error whose message is NUL-terminated until freed.
    let msg = unsafe { CStr::from_ptr(robota_error_message(e)) }
        .to_string_lossy()
        .into_owned();
    robota_error_free(e);
    Err((st, msg))
}

#[test]
fn register_template_checks_its_document_and_refuses_duplicate_ids() {
    let rt = crate::support_ffi::runtime(r#"{"v":1,"providers":{"p":{"kind":"scripted"}}}"#);
    let ok = r#"{"id":"mine","name":"Mine","provider":"p","model":"m","systemMessage":"S"}"#;
    assert_eq!(register(rt, ok), Ok(()));
    let dup = register(rt, ok).unwrap_err();
    assert_eq!(dup.0, ROBOTA_E_INVALID_CONFIG);
    assert_eq!(dup.1, "template_json: template \"mine\" is already registered on this runtime (ids are unique; built-in templates cannot be replaced)");
    let builtin = register(
        rt,
        r#"{"id":"general","name":"G","provider":"p","model":"m","systemMessage":"S"}"#,
    )
    .unwrap_err();
    assert_eq!(builtin.0, ROBOTA_E_INVALID_CONFIG);
    assert!(
        builtin.1.contains("\"general\" is already registered"),
        "{}",
        builtin.1
    );
    let cases = [
        (
            r#"{"id":"a","name":"A","provider":"p","model":"m"}"#,
            "template_json: missing required field \"systemMessage\"",
        ),
        (
            r#"{"id":"a","name":"A","provider":"p","model":7,"systemMessage":"S"}"#,
            "template_json: field \"model\" must be a string",
        ),
        (
            r#"{"id":"","name":"A","provider":"p","model":"m","systemMessage":"S"}"#,
            "template_json: field \"id\" must be a non-empty string",
        ),
        (
            r#"{"id":"a","name":"A","provider":"p","model":"m","systemMessage":"S","temperature":3}"#,
            "template_json: field \"temperature\" must be a number from 0 to 2",
        ),
        (
            r#"{"id":"a","name":"A","provider":"p","model":"m","systemMessage":"S","system_message":"x","strict":true}"#,
            "template_json: field \"system_message\" is not a known field (known: strict, id, name, description, provider, model, temperature, systemMessage)",
        ),
        (r#"[1]"#, "template_json must be a JSON object"),
    ];
    for (doc, msg) in cases {
        assert_eq!(
            register(rt, doc),
            Err((ROBOTA_E_INVALID_CONFIG, msg.to_string())),
            "{doc}"
        );
    }
    assert_eq!(register(rt, "{nope").unwrap_err().0, ROBOTA_E_INVALID_JSON);
    let c = CString::new(ok).unwrap();
    assert_eq!(
        robota_runtime_register_template(null_mut(), c.as_ptr(), null_mut()),
        ROBOTA_E_NULL_ARG
    );
    assert_eq!(
        robota_runtime_register_template(rt, std::ptr::null(), null_mut()),
        ROBOTA_E_NULL_ARG
    );
    robota_runtime_free(rt);
}

#[test]
fn aborting_the_parent_aborts_the_assigned_child() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(Vec::<String>::new()).tool(
        "a1",
        "assignTask",
        r#"{"templateId":"general","jobDescription":"think forever"}"#,
    )));
    // The child's model call never answers.
    server.enqueue(Reply::hang());
    let rt = runtime(json!({"p": openai(&server)}));
    let host = team_session(&rt, "bypassPermissions");
    let t = host.submit(json!({"text":"delegate"}));
    server.wait_for_requests(2, std::time::Duration::from_secs(30));
    host.session.abort(t).unwrap();
    let _ = host.wait(t);
    assert_eq!(host.last_completed()["stop_reason"], "aborted");
    // The child's request was dropped: its connection closed.
    assert_eq!(
        server.wait_for_disconnects(1, std::time::Duration::from_secs(30)),
        1
    );
    assert_eq!(server.requests().len(), 2);
}
