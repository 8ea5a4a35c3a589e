//! Function tools: JSON-Schema validation before execution, error texts naming the field,
//! closure errors and panics reported as tool errors, and the whole path through the agent loop.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::message::Role;
use robota_engine::core::tool::{Tool, ToolContext};
use robota_engine::providers::scripted::ScriptedProvider;
use robota_engine::tools::FunctionTool;
use serde_json::{json, Value};

fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["city"],
        "additionalProperties": false
    })
}

fn weather(counter: Arc<AtomicUsize>) -> FunctionTool {
    FunctionTool::new_sync(
        "weather",
        "Weather forecast",
        weather_schema(),
        move |args| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(json!({"city": args["city"], "temp": 21}))
        },
    )
    .unwrap()
}

fn ctx() -> ToolContext {
    ToolContext::detached("call_1")
}

const PREFIX: &str = "Validation Error: Invalid parameters for tool \"weather\": ";

#[tokio::test]
async fn valid_input_runs_the_closure() {
    let n = Arc::new(AtomicUsize::new(0));
    let t = weather(n.clone());
    let r = t.execute(json!({"city": "Seoul", "days": 3}), &ctx()).await;
    assert_eq!(r, Ok(json!({"city": "Seoul", "temp": 21})));
    assert_eq!(n.load(Ordering::SeqCst), 1);
    assert_eq!(t.name(), "weather");
    assert_eq!(t.parameters(), &weather_schema());
}

#[tokio::test]
async fn validation_errors_name_the_field_and_skip_the_closure() {
    let n = Arc::new(AtomicUsize::new(0));
    let t = weather(n.clone());
    let cases = [
        (json!({}), "Missing required parameter: city"),
        (
            json!({"city": 42}),
            "Parameter \"city\" must be a string, got number",
        ),
        (
            json!({"city": "x", "days": "3"}),
            "Parameter \"days\" must be an integer, got string",
        ),
        (
            json!({"city": "x", "unit": "k"}),
            "Parameter \"unit\" must be one of: c, f, got k",
        ),
        (json!({"city": "x", "zip": "1"}), "Unknown parameter: zip"),
        (
            json!({"city": "x", "tags": ["a", 1]}),
            "Parameter \"tags[1]\" must be a string, got number",
        ),
        (
            json!({"city": null}),
            "Parameter \"city\" must be a string, got null",
        ),
        (json!("Seoul"), "Arguments must be an object, got string"),
    ];
    for (args, msg) in cases {
        let r = t.execute(args.clone(), &ctx()).await;
        assert_eq!(r, Err(format!("{PREFIX}{msg}")), "args {args}");
    }
    // Several problems are joined with ", ".
    let r = t.execute(json!({"days": 0, "zip": 1}), &ctx()).await;
    let err = r.unwrap_err();
    assert!(err.starts_with(PREFIX), "{err}");
    assert!(err.contains("Missing required parameter: city"), "{err}");
    assert!(err.contains("Unknown parameter: zip"), "{err}");
    assert!(err.contains("Parameter \"days\": "), "{err}");
    assert_eq!(n.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn closure_errors_and_panics_become_tool_errors() {
    let failing = FunctionTool::new_sync("f", "fails", json!({"type": "object"}), |_| {
        Err("boom".to_string())
    })
    .unwrap();
    assert_eq!(
        failing.execute(json!({}), &ctx()).await,
        Err("Tool Execution Error (f): Function tool execution failed: boom".to_string())
    );
    let panicking = FunctionTool::new_sync(
        "p",
        "panics",
        json!({"type": "object"}),
        |_| -> Result<Value, String> { panic!("kaput") },
    )
    .unwrap();
    assert_eq!(
        panicking.execute(json!({}), &ctx()).await,
        Err("Tool Execution Error (p): Function tool execution failed: kaput".to_string())
    );
}

#[tokio::test]
async fn async_handlers_get_the_context() {
    let t = FunctionTool::new_async(
        "echo_ctx",
        "echo",
        json!({"type": "object", "properties": {"x": {"type": "number"}}}),
        |args, ctx: ToolContext| async move {
            tokio::task::yield_now().await;
            Ok(json!({"x": args["x"], "call": ctx.call_id}))
        },
    )
    .unwrap()
    .with_read_only(true);
    assert!(t.read_only());
    assert_eq!(
        t.execute(json!({"x": 1.5}), &ctx()).await,
        Ok(json!({"x": 1.5, "call": "call_1"}))
    );
}

#[test]
fn bad_definitions_are_rejected_at_construction() {
    let err = FunctionTool::new_sync("", "d", json!({"type": "object"}), |_| Ok(Value::Null))
        .unwrap_err();
    assert_eq!(err, "Function tool name must not be empty");
    let err = FunctionTool::new_sync("t", "d", json!({"type": "string"}), |_| Ok(Value::Null))
        .unwrap_err();
    assert_eq!(
        err,
        "Invalid schema for tool \"t\": parameters must be a JSON Schema with \"type\": \"object\""
    );
    let err = FunctionTool::new_sync(
        "t",
        "d",
        json!({"type": "object", "properties": {"a": {"type": "nonsense"}}}),
        |_| Ok(Value::Null),
    )
    .unwrap_err();
    assert!(
        err.starts_with("Invalid schema for tool \"t\": Invalid JSON Schema: "),
        "{err}"
    );
}

#[tokio::test]
async fn validation_error_reaches_the_model_through_the_loop() {
    let n = Arc::new(AtomicUsize::new(0));
    let provider = Arc::new(
        ScriptedProvider::from_json(&json!({"turns": [
            {"tool_calls": [{"id": "call_a", "name": "weather", "arguments": {"town": "Seoul"}}]},
            {"tool_calls": [{"id": "call_b", "name": "weather", "arguments": {"city": "Seoul"}}]},
            {"text": "done"}
        ]}))
        .unwrap(),
    );
    let mut cfg = AgentConfig::new(provider, "test-model");
    cfg.tools = vec![Arc::new(weather(n.clone()))];
    let agent = Agent::new(cfg).unwrap();
    let result = agent.run("forecast?", RunOptions::default()).await.unwrap();
    assert_eq!(result.response, "done");
    let tool_msgs: Vec<String> = agent
        .messages()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(tool_msgs.len(), 2);
    assert_eq!(
        tool_msgs[0],
        format!("Error: {PREFIX}Missing required parameter: city, Unknown parameter: town")
    );
    assert_eq!(tool_msgs[1], r#"{"city":"Seoul","temp":21}"#);
    assert_eq!(n.load(Ordering::SeqCst), 1);
}
