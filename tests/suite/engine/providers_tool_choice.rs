//! `tool_choice` in the session JSON and per turn, as each vendor receives it (Anthropic
//! `tool_choice`, OpenAI `tool_choice`, Gemini `toolConfig.functionCallingConfig`); `required`
//! and a named tool hold for the turn's first call only; a named tool the session lacks is
//! `InvalidConfig` naming it.

use robota_engine::core::agent::RunOptions;
use robota_engine::core::tool_choice::ToolChoice;
use robota_engine::sdk::error::ErrorCode;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::host_session::{runtime, Host};
use crate::support::provider_cases::{agent, provider};

/// The vendor field for `choice` in a request body (`None` when absent).
fn sent(kind: &str, body: &Value) -> Option<Value> {
    match kind {
        "anthropic" => body.get("tool_choice").cloned(),
        "gemini" => body.pointer("/toolConfig/functionCallingConfig").cloned(),
        _ => body.get("tool_choice").cloned(),
    }
}

fn expected(kind: &str, choice: &str) -> Value {
    match (kind, choice) {
        ("anthropic", "none") => json!({"type": "none"}),
        ("anthropic", "required") => json!({"type": "any"}),
        ("anthropic", _) => json!({"type": "tool", "name": "Read"}),
        ("gemini", "none") => json!({"mode": "NONE"}),
        ("gemini", "required") => json!({"mode": "ANY"}),
        ("gemini", _) => json!({"mode": "ANY", "allowedFunctionNames": ["Read"]}),
        (_, "none") => json!("none"),
        (_, "required") => json!("required"),
        _ => json!({"type": "function", "function": {"name": "Read"}}),
    }
}

#[test]
fn session_and_turn_tool_choice_reach_each_vendor() {
    for kind in ["anthropic", "openai", "gemini"] {
        let server = FakeServer::start();
        let rt = runtime(server.provider_config(kind));
        let host = Host::open(&rt, json!({"tools": ["Read"], "tool_choice": "required"})).unwrap();
        for (input, choice) in [
            (json!({"text": "a"}), "required"),
            (json!({"text": "b", "tool_choice": "none"}), "none"),
            (
                json!({"text": "c", "tool_choice": {"name": "Read"}}),
                "named",
            ),
        ] {
            server.enqueue(Reply::for_kind(kind, &Turn::text(["ok"])));
            host.turn(input).unwrap();
            let body = server.requests().last().unwrap().body.clone();
            assert_eq!(
                sent(kind, &body),
                Some(expected(kind, choice)),
                "{kind} {choice}"
            );
        }
        // "auto" sends nothing (the vendor default).
        server.enqueue(Reply::for_kind(kind, &Turn::text(["ok"])));
        host.turn(json!({"text": "d", "tool_choice": "auto"}))
            .unwrap();
        let body = server.requests().last().unwrap().body.clone();
        assert_eq!(sent(kind, &body), None, "{kind} auto");
    }
}

#[tokio::test]
async fn a_forced_tool_holds_for_the_first_call_only() {
    for kind in ["anthropic", "openai", "gemini"] {
        let server = FakeServer::start();
        server.enqueue(Reply::for_kind(
            kind,
            &Turn::text(Vec::<String>::new()).tool("call_1", "echo", r#"{"text":"x"}"#),
        ));
        server.enqueue(Reply::for_kind(kind, &Turn::text(["done"])));
        let a = agent(provider(&server, kind, json!({})));
        let opts = RunOptions {
            tool_choice: Some(ToolChoice::Tool("echo".into())),
            ..Default::default()
        };
        let res = a.run("go", opts).await.unwrap();
        assert_eq!(res.response, "done", "{kind}");
        let reqs = server.requests();
        assert!(sent(kind, &reqs[0].body).is_some(), "{kind}: forced first");
        assert_eq!(sent(kind, &reqs[1].body), None, "{kind}: then auto");
    }
}

#[test]
fn a_named_tool_the_session_lacks_is_invalid_config_naming_it() {
    let server = FakeServer::start();
    let rt = runtime(server.provider_config("openai"));
    let e = Host::open(
        &rt,
        json!({"tools": ["Read"], "tool_choice": {"name": "Deploy"}}),
    )
    .err()
    .unwrap();
    assert_eq!(e.code, ErrorCode::InvalidConfig);
    assert_eq!(
        e.message,
        "Configuration Error: session config: field \"tool_choice\": the session has no tool named \"Deploy\""
    );
    let e = Host::open(&rt, json!({"tool_choice": "any"}))
        .err()
        .unwrap();
    assert_eq!(e.code, ErrorCode::InvalidConfig);
    assert!(e
        .message
        .contains("must be \"auto\", \"none\", \"required\" or {\"name\":\"TOOL\"}"));
    let host = Host::open(&rt, json!({"tools": ["Read"]})).unwrap();
    let e = host
        .turn(json!({"text": "x", "tool_choice": {"name": "Deploy"}}))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidConfig);
    assert_eq!(
        e.message,
        "Configuration Error: input_json: field \"tool_choice\": the session has no tool named \"Deploy\""
    );
    assert!(server.requests().is_empty(), "nothing sent");
}
