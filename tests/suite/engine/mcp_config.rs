//! MCP configuration that holds with and without the `mcp` cargo feature: `mcp_servers` errors
//! name the server and field, the project's `.mcp.json` under `"settings":"project"`,
//! permission patterns over `mcp__server__tool` names, and (without the feature) servers shown
//! "failed" with the reason while the session works.

use serde_json::{json, Value};

use crate::support::mcp::McpHost;

#[cfg(not(feature = "mcp"))]
#[test]
fn mcp_without_the_feature_servers_fail_with_the_reason_and_the_session_works() {
    let h = McpHost::open(
        json!([{"text": "fine"}]),
        json!({"mcp_servers": {"x": {"command": "python3"}}}),
    );
    assert_eq!(
        h.servers(),
        json!([{"name":"x","transport":"stdio","state":"failed","tools":0,
                "reason": robota_engine::sdk::mcp::NO_MCP}])
    );
    h.turn("hi");
    assert_eq!(h.last_text(), "fine");
}

#[test]
fn mcp_servers_config_errors_name_the_server_and_field() {
    let bad = |v: Value| {
        let mut cfg = json!({"v":1,"provider":"s","model":"m"});
        cfg["mcp_servers"] = v;
        robota_engine::sdk::config::parse_session_config(&cfg.to_string())
            .err()
            .map(|e| e.message)
            .unwrap_or_default()
    };
    assert_eq!(
        bad(json!({"x": {"type": "http"}})),
        "session config: MCP server \"x\": \"url\" must be an http:// or https:// URL"
    );
    assert_eq!(
        bad(json!([1])),
        "session config: field \"mcp_servers\" must be an object keyed by server name"
    );
    assert_eq!(
        bad(json!({"x": {"command": "a", "env": {"K": 1}}})),
        "session config: MCP server \"x\": \"env\".\"K\" must be a string"
    );
}

#[test]
fn mcp_project_mcp_json_is_read_under_project_settings() {
    let proj = tempfile::tempdir().unwrap();
    std::fs::write(
        proj.path().join(".mcp.json"),
        r#"{"mcpServers":{"gone":{"command":"/nonexistent/robota-mcp-server"},"bad":{"type":"sse","url":"http://x"}}}"#,
    )
    .unwrap();
    let h = McpHost::open(
        json!([]),
        json!({"settings": "project", "cwd": proj.path()}),
    );
    let s = h.servers();
    assert_eq!(s.as_array().unwrap().len(), 1, "{s}");
    assert_eq!(s[0]["name"], "gone");
    assert_eq!(s[0]["state"], "failed");
    let w = h.warnings();
    assert!(
        w.iter().any(|w| w.ends_with(".mcp.json: MCP server \"bad\": unsupported \"type\" \"sse\" (supported: \"stdio\", \"http\")")),
        "{w:?}"
    );
}

#[test]
fn mcp_permission_patterns_match_server_tools_by_prefix_or_server_name() {
    use robota_engine::core::permissions::pattern_matches;
    let args = json!({});
    assert!(pattern_matches(
        "mcp__github__*",
        "mcp__github__create_issue",
        &args
    ));
    assert!(pattern_matches(
        "mcp__github",
        "mcp__github__create_issue",
        &args
    ));
    assert!(!pattern_matches(
        "mcp__github",
        "mcp__githubx__create_issue",
        &args
    ));
    assert!(!pattern_matches(
        "mcp__github__*",
        "mcp__gitlab__create_issue",
        &args
    ));
    assert!(pattern_matches(
        "mcp__github__create_issue",
        "mcp__github__create_issue",
        &args
    ));
    assert!(!pattern_matches(
        "mcp__github__create",
        "mcp__github__create_issue",
        &args
    ));
    assert!(!pattern_matches("Bash", "mcp__github__x", &args));
}
