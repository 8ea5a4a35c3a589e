//! `agent` hooks (a truthy `ok` allows, anything else blocks or warns) run a short subagent and map
//! its `{ok, reason}` answer (allow, block, garbage); `SubagentStart`/`SubagentStop` hooks fire
//! around each child.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply};
use crate::support::subagent_host::{
    call, messages, runtime, text, tool_names, tool_result, Parent,
};
use robota_engine::core::hooks::verdict::RESPOND_WITH_JSON;
use robota_engine::sdk::subagent::defs::GENERAL_PURPOSE_PROMPT;
use robota_engine::sdk::subagent::runner::SUBAGENT_SUFFIX;

/// Runs a parent whose `Write` is guarded by an agent hook (`timeout` seconds) whose child's
/// model replies `answer`; returns the parent, the server and whether the file was written.
fn guarded_write_with(timeout: u64, answer: Reply) -> (Parent, FakeServer, bool) {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("w.txt");
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Write"],
               "hooks": {"PreToolUse": [{"matcher": "Write",
                                         "hooks": [{"type": "agent", "timeout": timeout}]}]}}),
    );
    server.enqueue(call(
        "c_w",
        "Write",
        json!({"filePath": target, "content": "hi"}),
    ));
    server.enqueue(answer);
    server.enqueue(text("ok"));
    assert_eq!(p.turn("go")["stop_reason"], "complete");
    let written = target.exists();
    (p, server, written)
}

/// [`guarded_write_with`] a 30 s hook whose child answers `answer`.
fn guarded_write(answer: &str) -> (Parent, FakeServer, bool) {
    guarded_write_with(30, text(answer))
}

#[test]
fn an_agent_hook_that_answers_not_ok_blocks_the_tool() {
    let (p, server, written) =
        guarded_write("```json\n{\"ok\": false, \"reason\": \"no writes here\"}\n```");
    assert!(!written);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let child = messages(&reqs[1].body);
    assert_eq!(
        child[0].1,
        format!("{GENERAL_PURPOSE_PROMPT}\n\n{SUBAGENT_SUFFIX}")
    );
    let prompt = &child[1].1;
    let input = prompt
        .strip_prefix("Hook input:\n")
        .and_then(|r| r.strip_suffix(&format!("\n\n{RESPOND_WITH_JSON}")))
        .unwrap_or_else(|| panic!("{prompt}"));
    let input: Value = serde_json::from_str(input).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Write");
    assert_eq!(tool_names(&reqs[1].body), ["Write"]);
    assert_eq!(
        tool_result(&reqs[2].body, "c_w"),
        r#"{"success":false,"output":"","error":"Blocked by hook: no writes here"}"#
    );
    let sub = p.sub();
    assert!(!sub.is_empty());
    assert!(sub
        .iter()
        .all(|s| s["parent_tool_call_id"].is_null() && s["agent_type"] == "general-purpose"));
}

#[test]
fn an_agent_hook_that_answers_ok_allows_the_tool() {
    let (_p, server, written) = guarded_write("{\"ok\": true}");
    assert!(written);
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn a_garbage_agent_hook_answer_is_a_warning_and_the_tool_runs() {
    let (p, _server, written) = guarded_write("I think it is fine");
    assert!(written);
    let w = p.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["message"], "PreToolUse hook \"agent\" exited with code 1: Failed to parse agent response as JSON: I think it is fine");
}

/// A hook command that appends its input to `log`, one line per call.
fn appending_command(log: &Path) -> String {
    format!("cat >> '{}'; echo >> '{}'", log.display(), log.display())
}

#[test]
fn subagent_start_and_stop_hooks_fire_around_the_child() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let cmd = appending_command(&log);
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Agent"],
               "hooks": {"SubagentStart": [{"matcher": "Explore", "hooks": [{"type": "command", "command": cmd}]}],
                         "SubagentStop": [{"matcher": "", "hooks": [{"type": "command", "command": cmd}]}]}}),
    );
    server.enqueue(call(
        "call_1",
        "Agent",
        json!({"prompt": "look", "subagent_type": "Explore"}),
    ));
    server.enqueue(text("seen"));
    server.enqueue(text("ok"));
    p.turn("go");
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    let agent_id = p.sub()[0]["agent_id"].clone();
    let sid = p.session.session_id().to_string();
    for (l, name) in lines.iter().zip(["SubagentStart", "SubagentStop"]) {
        assert_eq!(l["hook_event_name"], name);
        assert_eq!(l["session_id"], sid.as_str());
        assert_eq!(l["agent_id"], agent_id);
        assert_eq!(l["agent_type"], "Explore");
        assert_eq!(l["env"]["ROBOTA_AGENT_ID"], agent_id);
        assert_eq!(l["env"]["ROBOTA_AGENT_TYPE"], "Explore");
        assert_eq!(l["env"]["CLAUDE_SESSION_ID"], sid.as_str());
    }
    assert_eq!(lines[1]["last_assistant_message"], "seen");
    assert_eq!(lines[1]["stop_hook_active"], false);
    assert!(lines[0].get("last_assistant_message").is_none());
}

#[test]
fn a_failed_child_is_a_sub_agent_error_and_its_hooks_get_the_transcript_and_reason() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let cmd = appending_command(&log);
    let hook = json!([{"matcher": "", "hooks": [{"type": "command", "command": cmd}]}]);
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Agent"], "transcript": "logs",
               "hooks": {"SubagentStart": hook, "SubagentStop": hook}}),
    );
    server.enqueue(call("call_1", "Agent", json!({"prompt": "look"})));
    server.enqueue(Reply::error(
        400,
        r#"{"error":{"message":"bad child request"}}"#,
    ));
    server.enqueue(text("ok"));
    p.turn("go");
    let reqs = server.requests();
    let reason = "Provider Error (p): p (openai) returned HTTP 400: bad child request";
    assert_eq!(
        tool_result(&reqs.last().unwrap().body, "call_1"),
        format!("Error: Sub-agent error: {reason}")
    );
    let agent_id = p.sub()[0]["agent_id"].as_str().unwrap().to_string();
    let sid = p.session.session_id().to_string();
    let cwd = dir.path().to_str().unwrap();
    let transcript = format!("{cwd}/logs/{sid}/subagents/{agent_id}.jsonl");
    let env = json!({"CLAUDE_PROJECT_DIR": cwd, "CLAUDE_SESSION_ID": sid,
                     "ROBOTA_AGENT_ID": agent_id, "ROBOTA_AGENT_TYPE": "general-purpose"});
    let start = json!({"session_id": sid, "cwd": cwd, "hook_event_name": "SubagentStart",
                       "permission_mode": "bypassPermissions", "agent_id": agent_id,
                       "agent_type": "general-purpose", "env": env,
                       "agent_transcript_path": transcript});
    let stop = json!({"session_id": sid, "cwd": cwd, "hook_event_name": "SubagentStop",
                      "permission_mode": "bypassPermissions", "agent_id": agent_id,
                      "agent_type": "general-purpose", "stop_hook_active": false,
                      "last_assistant_message": "", "env": env,
                      "agent_transcript_path": transcript, "reason": reason});
    // The exact text: the fields in this order.
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("{start}\n{stop}\n")
    );
}

#[test]
fn an_agent_hook_past_its_timeout_is_a_warning_and_its_child_is_stopped() {
    let (p, server, written) = guarded_write_with(1, Reply::hang());
    assert!(written);
    assert_eq!(
        server.wait_for_disconnects(1, std::time::Duration::from_secs(30)),
        1
    );
    let w = p.warnings();
    assert_eq!(
        w[0]["message"],
        "PreToolUse hook \"agent\" exited with code 1: Agent hook timed out after 1 s"
    );
}

#[test]
fn a_child_writes_its_own_transcript_under_the_parents() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Agent"], "transcript": "logs"}),
    );
    server.enqueue(call("call_1", "Agent", json!({"prompt": "x"})));
    server.enqueue(text("child"));
    server.enqueue(text("ok"));
    p.turn("go");
    let agent_id = p.sub()[0]["agent_id"].as_str().unwrap().to_string();
    let sid = p.session.session_id().to_string();
    let file = dir
        .path()
        .join("logs")
        .join(&sid)
        .join("subagents")
        .join(format!("{agent_id}.jsonl"));
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let text = serde_json::to_string(&lines).unwrap();
    assert!(text.contains("\"turn_completed\""), "{text}");
    assert!(text.contains("\"child\""), "{text}");
    assert!(dir
        .path()
        .join("logs")
        .join(format!("{sid}.jsonl"))
        .exists());
}
