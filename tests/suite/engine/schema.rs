//! The JSON Schemas of the runtime and session documents (`docs/schema/*.schema.json`) are
//! generated from the document types (`robota_engine::sdk::config::document`): this test
//! regenerates them and fails when the checked-in files differ (the CI drift check). After
//! changing a document type: `ROBOTA_BLESS=1 cargo test --test engine schema`.

use std::path::{Path, PathBuf};

use robota_engine::sdk::config::document::{runtime_schema, session_schema};
use robota_engine::sdk::config::{
    parse_runtime_config, parse_session_config, runtime_keys, session_keys,
};
use serde_json::Value;

fn schema_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/schema")
        .join(format!("{name}.schema.json"))
}

fn pretty(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap();
    text.push('\n');
    text
}

fn check(name: &str, schema: &Value) {
    let path = schema_path(name);
    let want = pretty(schema);
    if std::env::var_os("ROBOTA_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is out of date with the document types (engine/src/sdk/config/document.rs): \
         regenerate it with `ROBOTA_BLESS=1 cargo test --test engine schema` and commit it",
        path.display()
    );
}

#[test]
fn schema_files_match_the_document_types() {
    check("runtime", &runtime_schema());
    check("session", &session_schema());
}

fn keys_of(object: &Value) -> Vec<&str> {
    object
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

fn properties(schema: &Value) -> Vec<&str> {
    keys_of(&schema["properties"])
}

#[test]
fn schema_keys_are_the_keys_the_parsers_accept() {
    let mut want = vec!["v"];
    want.extend(runtime_keys());
    assert_eq!(properties(&runtime_schema()), want);
    let mut want = vec!["v"];
    want.extend(session_keys());
    assert_eq!(properties(&session_schema()), want);
    assert_eq!(runtime_schema()["additionalProperties"], false);
    assert_eq!(session_schema()["additionalProperties"], false);

    // The unknown-key message lists the type's keys in declaration order.
    let e = parse_runtime_config(r#"{"v":1,"providers":{},"worker_thread":2}"#).unwrap_err();
    assert_eq!(
        e.message,
        format!(
            "runtime config: field \"worker_thread\" is not a known field (known: {})",
            runtime_keys().join(", ")
        )
    );
    assert_eq!(
        runtime_keys().join(", "),
        "env, strict, providers, worker_threads, session_dir, request_timeout_ms, request_timeout_decision, plugin_dirs"
    );
    let e =
        parse_session_config(r#"{"v":1,"provider":"p","model":"m","delivry":"pull"}"#).unwrap_err();
    assert_eq!(
        e.message,
        format!(
            "session config: field \"delivry\" is not a known field (known: {})",
            session_keys().join(", ")
        )
    );
}

/// Every nested object of the schemas that has fixed keys refuses others, as the parser does.
#[test]
fn nested_objects_of_the_session_schema_are_closed() {
    let s = session_schema();
    let defs = s["$defs"].as_object().unwrap();
    for name in [
        "PermissionsDocument",
        "HookGroupDocument",
        "ThinkingDocument",
        "ToolConfigDocument",
        "ToolLimits",
        "WebSearchConfig",
        "NamedTool",
        "BudgetDocument",
        "McpServerDocument",
        "AgentDocument",
        "CommandDocument",
    ] {
        assert_eq!(defs[name]["additionalProperties"], false, "{name}");
    }
    let r = runtime_schema();
    let profile = &r["$defs"]["ProviderProfile"];
    for key in [
        "kind",
        "base_url",
        "api_key",
        "headers",
        "timeout_ms",
        "max_retries",
    ] {
        assert!(profile["properties"].get(key).is_some(), "{key}");
    }
}

/// The nested parts of the session schema come from the types the parser reads them into, so
/// they say what the parser takes.
#[test]
fn nested_parts_of_the_session_schema_are_the_parsed_types() {
    let s = session_schema();
    let defs = &s["$defs"];
    // Agents: `description` may be left out (it defaults to ""); `strict` is a boolean.
    assert_eq!(
        defs["AgentDocument"]["required"],
        serde_json::json!(["prompt"])
    );
    assert_eq!(
        defs["AgentDocument"]["properties"]["strict"]["type"],
        serde_json::json!(["boolean", "null"])
    );
    // `tool_config`'s limits and web-search backend list their keys, as its parser does.
    let limits = serde_json::to_value(robota_engine::tools::ToolLimits::default()).unwrap();
    assert_eq!(keys_of(&defs["ToolLimits"]["properties"]), keys_of(&limits));
    assert_eq!(
        keys_of(&defs["WebSearchConfig"]["properties"]),
        ["provider", "baseUrl", "apiKey"]
    );
    assert_eq!(
        keys_of(&defs["ToolConfigDocument"]["properties"]),
        ["limits", "env", "webSearch"]
    );
    // `hooks` takes the events' names as keys, and no other.
    let events: Vec<&str> = robota_engine::core::hooks::HookEvent::ALL
        .iter()
        .map(|e| e.as_str())
        .collect();
    assert_eq!(keys_of(&defs["HooksConfig"]["properties"]), events);
    assert_eq!(defs["HooksConfig"]["additionalProperties"], false);
    // A hook definition lists the keys its types' executors read.
    assert_eq!(
        keys_of(&defs["HookDefinition"]["properties"]),
        ["type", "command", "url", "headers", "prompt", "model", "agent", "maxTurns", "timeout"]
    );
    assert_eq!(
        defs["HookDefinition"]["required"],
        serde_json::json!(["type"])
    );
    // An MCP server's `type` takes the aliases the parser takes.
    assert_eq!(
        defs["McpServerDocument"]["properties"]["type"]["enum"],
        serde_json::json!(["stdio", "http", "streamable-http", "streamable_http"])
    );
    // A named tool choice has a non-empty name and nothing else.
    assert_eq!(defs["NamedTool"]["properties"]["name"]["minLength"], 1);
    assert_eq!(defs["NamedTool"]["required"], serde_json::json!(["name"]));
}
