//! Model and tool parameters from the session JSON (added in ABI 1.1) reaching each vendor's
//! request body: `temperature`, `max_tokens`, `thinking`, `context_window` (context events and
//! the `context` command), `native_web_search`, `prompt_cache`, `tool_config` (Bash env) and the tool list.

use robota::ffi::{robota_runtime_free, robota_session_free, ROBOTA_E_INVALID_CONFIG};
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, RecordedRequest, Reply, Turn};
use crate::support_ffi::{command, events_until, runtime, session_new, submit};

/// One turn through a pull session on `kind`; returns the requests and the events.
fn one_turn(
    kind: &str,
    profile_extra: Value,
    session: Value,
    replies: Vec<Reply>,
) -> (Vec<RecordedRequest>, Vec<Value>, Value) {
    let server = FakeServer::start();
    for r in replies {
        server.enqueue(r);
    }
    let mut profile = server.provider_config(kind);
    if let (Value::Object(p), Value::Object(extra)) = (&mut profile, profile_extra) {
        p.extend(extra);
    }
    let rt = runtime(&json!({"v":1,"providers":{"p": profile}}).to_string());
    let mut doc = json!({"v":1,"provider":"p","model":"test-model","delivery":"pull","tools":[]});
    if let (Value::Object(d), Value::Object(extra)) = (&mut doc, session) {
        d.extend(extra);
    }
    let s = session_new(rt, &doc.to_string()).unwrap();
    submit(s, "hi");
    let evs = events_until(s, "turn_completed");
    let ctx = command(s, r#"{"name":"context"}"#).unwrap();
    robota_session_free(s);
    robota_runtime_free(rt);
    (server.requests(), evs, ctx)
}

#[test]
fn temperature_max_tokens_and_thinking_reach_anthropic() {
    let (reqs, evs, _) = one_turn(
        "anthropic",
        json!({}),
        json!({"temperature": 0.5, "max_tokens": 9000, "thinking": {"budget_tokens": 2048}}),
        vec![Reply::anthropic(&Turn::text(["ok"]).thinking(["hm", "m"]))],
    );
    let b = &reqs[0].body;
    assert_eq!(b["temperature"], json!(0.5));
    assert_eq!(b["max_tokens"], json!(9000));
    assert_eq!(
        b["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    let thinking: Vec<&Value> = evs
        .iter()
        .filter(|e| e["type"] == "thinking_delta")
        .collect();
    assert_eq!(thinking.len(), 2, "{evs:?}");
    // A budget above max_tokens raises max_tokens past it.
    let (reqs, _, _) = one_turn(
        "anthropic",
        json!({}),
        json!({"max_tokens": 1000, "thinking": {"budget_tokens": 2048}}),
        vec![Reply::anthropic(&Turn::text(["ok"]))],
    );
    assert_eq!(reqs[0].body["max_tokens"], json!(2048 + 4096));
}

#[test]
fn temperature_max_tokens_and_thinking_reach_gemini() {
    let (reqs, evs, _) = one_turn(
        "gemini",
        json!({}),
        json!({"temperature": 0.25, "max_tokens": 777, "thinking": {"budget_tokens": 512}}),
        vec![Reply::gemini(&Turn::text(["ok"]).thinking(["t"]))],
    );
    assert_eq!(
        reqs[0].body["generationConfig"],
        json!({"maxOutputTokens": 777, "temperature": 0.25,
               "thinkingConfig": {"thinkingBudget": 512, "includeThoughts": true}})
    );
    assert!(evs.iter().any(|e| e["type"] == "thinking_delta"), "{evs:?}");
}

#[test]
fn temperature_and_max_tokens_reach_openai() {
    let (reqs, _, _) = one_turn(
        "openai",
        json!({}),
        json!({"temperature": 1.5, "max_tokens": 55}),
        vec![Reply::openai(&Turn::text(["ok"]))],
    );
    let b = &reqs[0].body;
    assert_eq!(b["temperature"], json!(1.5));
    let n = b
        .get("max_completion_tokens")
        .or(b.get("max_tokens"))
        .cloned();
    assert_eq!(n, Some(json!(55)), "{b}");
}

#[test]
fn context_window_overrides_the_model_table() {
    let (_, evs, ctx) = one_turn(
        "anthropic",
        json!({}),
        json!({"context_window": 5000}),
        vec![Reply::anthropic(&Turn::text(["ok"]))],
    );
    let updates: Vec<&Value> = evs
        .iter()
        .filter(|e| e["type"] == "context_update")
        .collect();
    assert!(!updates.is_empty());
    assert!(
        updates.iter().all(|u| u["max_tokens"] == 5000),
        "{updates:?}"
    );
    assert_eq!(ctx["data"]["maxTokens"], 5000);
    assert!(
        ctx["message"]
            .as_str()
            .unwrap()
            .contains(" / 5,000 tokens ("),
        "{ctx}"
    );
}

#[test]
fn native_web_search_is_requested_when_the_profile_allows_it() {
    let (reqs, _, _) = one_turn(
        "anthropic",
        json!({"web_search": true}),
        json!({"native_web_search": true}),
        vec![Reply::anthropic(&Turn::text(["ok"]))],
    );
    assert_eq!(
        reqs[0].body["tools"],
        // The last tool carries the tools' prompt-cache breakpoint.
        json!([{"type": "web_search_20250305", "name": "web_search",
                "cache_control": {"type": "ephemeral"}}])
    );
}

#[test]
fn tool_config_env_reaches_bash_and_the_tool_list_can_drop_it() {
    let (reqs, _, _) = one_turn(
        "anthropic",
        json!({}),
        json!({"tools": ["Bash"], "permission_mode": "bypassPermissions",
               "tool_config": {"env": {"ROBOTA_PARAM_TEST": "value-from-tool-config"}}}),
        vec![
            Reply::anthropic(&Turn::default().tool(
                "c1",
                "Bash",
                r#"{"command":"printf %s \"$ROBOTA_PARAM_TEST\""}"#,
            )),
            Reply::anthropic(&Turn::text(["done"])),
        ],
    );
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs[1].raw_body.contains("value-from-tool-config"),
        "{}",
        reqs[1].raw_body
    );
    let (reqs, _, _) = one_turn(
        "anthropic",
        json!({}),
        json!({"tools": ["Read", "Glob"]}),
        vec![Reply::anthropic(&Turn::text(["ok"]))],
    );
    let names: Vec<&str> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["Read", "Glob"]);
}

#[test]
fn bad_parameters_name_the_field() {
    let rt = runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#);
    for (doc, msg) in [
        (
            json!({"thinking": 5}),
            "session config: field \"thinking\" must be {\"budget_tokens\": N}",
        ),
        (
            json!({"thinking": {"budget_tokens": -1}}),
            "session config: field \"thinking.budget_tokens\" must be a positive integer",
        ),
        (
            json!({"system_prompt_mode": "prepend"}),
            "session config: field \"system_prompt_mode\" must be \"append\" or \"replace\"",
        ),
        (
            json!({"language": 1}),
            "session config: field \"language\" must be a string",
        ),
        (
            json!({"prompt_cache": "10m"}),
            "session config: field \"prompt_cache\" must be \"5m\", \"1h\" or \"off\", got \"10m\"",
        ),
    ] {
        let mut d = json!({"v":1,"provider":"s","model":"m"});
        if let (Value::Object(a), Value::Object(b)) = (&mut d, doc) {
            a.extend(b);
        }
        let e = session_new(rt, &d.to_string()).unwrap_err();
        assert_eq!(e.status, ROBOTA_E_INVALID_CONFIG);
        assert_eq!(e.message, msg);
    }
    let e = session_new(
        rt,
        r#"{"v":1,"provider":"s","model":"m","tool_config":{"env":5}}"#,
    )
    .unwrap_err();
    assert!(
        e.message
            .starts_with("session config: field \"tool_config\": Invalid tools config:"),
        "{}",
        e.message
    );
    robota_runtime_free(rt);
}

#[test]
fn prompt_cache_sets_the_anthropic_breakpoints_ttl_or_turns_them_off() {
    let (reqs, _, _) = one_turn(
        "anthropic",
        json!({}),
        json!({"system_prompt": "S", "prompt_cache": "1h"}),
        vec![Reply::anthropic(&Turn::text(["ok"]))],
    );
    let one_hour = json!({"type": "ephemeral", "ttl": "1h"});
    assert_eq!(reqs[0].body["system"][0]["cache_control"], one_hour);
    assert_eq!(
        reqs[0].body["messages"][0]["content"][0]["cache_control"],
        one_hour
    );
    let (reqs, _, _) = one_turn(
        "anthropic",
        json!({}),
        json!({"system_prompt": "S", "prompt_cache": "off"}),
        vec![Reply::anthropic(&Turn::text(["ok"]))],
    );
    assert!(
        !reqs[0].raw_body.contains("cache_control"),
        "{}",
        reqs[0].raw_body
    );
}
