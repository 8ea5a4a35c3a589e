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

fn properties(schema: &Value) -> Vec<&str> {
    schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
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
        "env, strict, providers, worker_threads, session_dir, request_timeout_ms, request_timeout_decision"
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
