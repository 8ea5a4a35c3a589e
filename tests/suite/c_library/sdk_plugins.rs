//! A plugin the host registers with the runtime JSON's `plugin_dirs`, seen through the C ABI: a
//! bad manifest in the project's `.robota/plugins/` is a `PLUGIN_INVALID` warning naming the
//! file, `help` lists the plugin's command as `<plugin>:<command>`, the command runs by its
//! qualified name and by its short one typed as `/audit`, and the plugin's hook fires with
//! `${CLAUDE_PLUGIN_ROOT}` replaced and `ROBOTA_PLUGIN_ROOT` in its environment.

use std::path::Path;

use robota::ffi::{robota_runtime_free, robota_session_free};
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{command, events_until, next_event, runtime, session_new, submit};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Text of a request's last user message (string or text blocks).
fn last_user_text(body: &Value) -> String {
    let msgs = body["messages"].as_array().unwrap();
    let m = msgs.iter().rev().find(|m| m["role"] == "user").unwrap();
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        other => panic!("content {other}"),
    }
}

const AUDIT: &str =
    "---\ndescription: Audit the code\n---\nAudit $ARGUMENTS with ${CLAUDE_PLUGIN_ROOT}/rules.\n";

#[test]
fn a_host_registered_plugin_command_runs_and_its_hook_fires() {
    let root = tempfile::tempdir().unwrap();
    let kit = root.path().join("kit");
    write(
        &kit.join(".claude-plugin/plugin.json"),
        r#"{"name":"kit","version":"1.0.0"}"#,
    );
    write(&kit.join("commands/audit.md"), AUDIT);
    write(
        &kit.join("hooks/hooks.json"),
        r#"{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"printf x >> \"${CLAUDE_PLUGIN_ROOT}/fired\"; printf %s \"$ROBOTA_PLUGIN_ROOT\" > \"${CLAUDE_PLUGIN_ROOT}/env\""}]}]}}"#,
    );
    let proj = root.path().join("proj");
    let bad = proj.join(".robota/plugins/broken/.claude-plugin/plugin.json");
    write(&bad, r#"{"version":"1"}"#);

    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["a"])));
    server.enqueue(Reply::anthropic(&Turn::text(["b"])));
    let rt = runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("anthropic")},
                "env":{"ROBOTA_HOME": root.path().join("rhome"), "HOME": root.path().join("home")},
                "plugin_dirs":[kit]})
        .to_string(),
    );
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"p","model":"m","tools":[],"delivery":"pull",
                "settings":"project","cwd":proj})
        .to_string(),
    )
    .unwrap();
    let w = next_event(s);
    assert_eq!(w["type"], "warning");
    assert_eq!(w["code"], "PLUGIN_INVALID");
    assert_eq!(
        w["message"],
        format!(
            "plugin manifest {}: missing required field \"name\"; plugin skipped",
            bad.display()
        )
    );

    let help = command(s, r#"{"name":"help"}"#).unwrap();
    let cmds = help["data"]["commands"].as_array().unwrap();
    assert_eq!(
        cmds.last().unwrap(),
        &json!({"name":"kit:audit","description":"Audit the code","source":"plugin","plugin":"kit"})
    );
    assert!(help["message"]
        .as_str()
        .unwrap()
        .ends_with("\nPlugin commands:\n  /kit:audit — Audit the code"));

    let r = command(s, r#"{"name":"kit:audit","args":"src"}"#).unwrap();
    assert_eq!(r["message"], "Skill \"kit:audit\" started.");
    assert_eq!(r["data"]["skill"], "kit:audit");
    events_until(s, "turn_completed");
    // The short name stands for the one plugin command that has it.
    submit(s, "/audit lib");
    let evs = events_until(s, "turn_completed");
    assert_eq!(evs[0]["type"], "turn_started");
    assert_eq!(evs[0]["input"]["display_input"], "/audit lib");

    let reqs = server.requests();
    let prompt = |args: &str| {
        format!(
            "<skill name=\"kit:audit\">\n{}\n</skill>\n\nExecute the \"kit:audit\" skill: {args}",
            AUDIT
                .replace("$ARGUMENTS", args)
                .replace("${CLAUDE_PLUGIN_ROOT}", &kit.display().to_string())
        )
    };
    assert_eq!(last_user_text(&reqs[0].body), prompt("src"));
    assert_eq!(last_user_text(&reqs[1].body), prompt("lib"));
    // The plugin's UserPromptSubmit hook ran before each turn, in the plugin folder's path.
    assert_eq!(std::fs::read_to_string(kit.join("fired")).unwrap(), "xx");
    // ... with the plugin folder in its environment.
    assert_eq!(
        std::fs::read_to_string(kit.join("env")).unwrap(),
        kit.display().to_string()
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}
