//! Subagents (children inherit permissions and hooks, never nest): the `Agent` tool runs a child
//! session assembled from the parent (exact child system prompt, tools and model on the wire), tool
//! filtering, permission inheritance, abort reaching the child, parallel children, unknown agent
//! types, `SubagentStart`/`SubagentStop` hooks and the `ROBOTA_EVENT_SUBAGENT` relay.

use robota_engine::sdk::events::{self, Payload};
use robota_engine::sdk::subagent::defs::{EXPLORE_PROMPT, GENERAL_PURPOSE_PROMPT};
use robota_engine::sdk::subagent::runner::SUBAGENT_SUFFIX;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::subagent_host::{
    call, json_of, messages, runtime, text, tool_names, tool_result, Parent, WAIT,
};

#[test]
fn parent_delegates_to_explore_with_the_exact_child_prompt_and_tools() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Read", "Write", "Edit", "Grep", "Agent"]}),
    );
    server.enqueue(call(
        "call_1",
        "Agent",
        json!({"prompt": "where is main?", "subagent_type": "Explore"}),
    ));
    server.enqueue(text("main is in /src/main.rs:1"));
    server.enqueue(text("Found it."));
    let done = p.turn("find main");
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(done["response"], "Found it.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        tool_names(&reqs[0].body),
        ["Read", "Write", "Edit", "Grep", "Agent"]
    );
    let child = &reqs[1].body;
    assert_eq!(child["model"], "test-model");
    assert_eq!(
        messages(child),
        [
            (
                "system".to_string(),
                format!("{EXPLORE_PROMPT}\n\n{SUBAGENT_SUFFIX}")
            ),
            ("user".to_string(), "where is main?".to_string()),
        ]
    );
    assert_eq!(tool_names(child), ["Read", "Grep"]);
    assert_eq!(
        tool_result(&reqs[2].body, "call_1"),
        "main is in /src/main.rs:1"
    );
    // The child's events, wrapped, from turn_started to its turn_completed.
    let sub = p.sub();
    let kinds: Vec<&str> = sub
        .iter()
        .map(|s| s["event"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"turn_started"));
    assert_eq!(kinds.last(), Some(&"turn_completed"));
    assert!(kinds.contains(&"text_delta"), "{kinds:?}");
    for s in &sub {
        assert_eq!(s["agent_type"], "Explore");
        assert_eq!(s["parent_tool_call_id"], "call_1");
        assert_eq!(s["agent_id"], sub[0]["agent_id"]);
        assert!(s["agent_id"].as_str().unwrap().starts_with("agent_"));
    }
    assert_eq!(
        sub.last().unwrap()["event"]["response"],
        "main is in /src/main.rs:1"
    );
    // All relayed before the parent's turn ended, none after.
    let last_sub = p.seen.iter().rposition(|e| e.kind == events::SUBAGENT);
    let completed = p
        .seen
        .iter()
        .position(|e| e.kind == events::TURN_COMPLETED)
        .unwrap();
    assert!(last_sub.unwrap() < completed);
}

#[test]
fn a_custom_agent_from_the_session_json_gets_its_prompt_tools_and_model() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(),
               "agents": {"reviewer": {"description": "Reviews diffs", "prompt": "You review code.",
                                       "tools": ["Read", "Glob"], "model": "haiku"}}}),
    );
    server.enqueue(call(
        "call_9",
        "Agent",
        json!({"prompt": "review it", "subagent_type": "reviewer"}),
    ));
    server.enqueue(text("LGTM"));
    server.enqueue(text("ok"));
    p.turn("review");
    let reqs = server.requests();
    // `tools` absent and `agents` given: every built-in plus Agent, which lists the types.
    let parent_tools = tool_names(&reqs[0].body);
    assert_eq!(parent_tools.last().unwrap(), "Agent");
    let agent_desc = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "Agent")
        .unwrap()["function"]["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        agent_desc.contains("\n- reviewer: Reviews diffs"),
        "{agent_desc}"
    );
    assert!(agent_desc.contains("\n- Explore: Read-only codebase exploration and analysis agent."));
    let child = &reqs[1].body;
    assert_eq!(child["model"], "claude-haiku-4-5");
    assert_eq!(
        messages(child)[0].1,
        format!("You review code.\n\n{SUBAGENT_SUFFIX}")
    );
    assert_eq!(tool_names(child), ["Read", "Glob"]);
    assert_eq!(tool_result(&reqs[2].body, "call_9"), "LGTM");
}

#[test]
fn tool_filtering_is_enforced_in_the_child() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("x.txt");
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(&rt, json!({"cwd": dir.path(), "agents": {}}));
    server.enqueue(call(
        "call_1",
        "Agent",
        json!({"prompt": "write", "subagent_type": "Plan"}),
    ));
    server.enqueue(call(
        "c_w",
        "Write",
        json!({"filePath": target, "content": "hi"}),
    ));
    server.enqueue(text("could not write"));
    server.enqueue(text("ok"));
    p.turn("go");
    let reqs = server.requests();
    assert!(!tool_names(&reqs[1].body).contains(&"Write".to_string()));
    assert!(!tool_names(&reqs[1].body).contains(&"Agent".to_string()));
    let r = tool_result(&reqs[2].body, "c_w");
    assert!(
        r.starts_with("Error: Tool \"Write\" is not registered, so the tool call was not executed. Available tools: "),
        "{r}"
    );
    assert!(!target.exists());
    assert_eq!(tool_result(&reqs[3].body, "call_1"), "could not write");
}

#[test]
fn a_child_cannot_escape_the_parents_deny_rule() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("denied.txt");
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Write", "Agent"],
               "permissions": {"deny": ["Write"]}}),
    );
    server.enqueue(call("call_1", "Agent", json!({"prompt": "write"})));
    server.enqueue(call(
        "c_w",
        "Write",
        json!({"filePath": target, "content": "hi"}),
    ));
    server.enqueue(text("denied"));
    server.enqueue(text("ok"));
    p.turn("go");
    let reqs = server.requests();
    assert_eq!(
        messages(&reqs[1].body)[0].1,
        format!("{GENERAL_PURPOSE_PROMPT}\n\n{SUBAGENT_SUFFIX}")
    );
    assert_eq!(tool_names(&reqs[1].body), ["Write"]);
    let r = tool_result(&reqs[2].body, "c_w");
    assert_eq!(
        r,
        r#"{"success":false,"output":"","error":"Permission denied. The user did not approve this action. The deny rule \"Write\" matches this call."}"#
    );
    assert!(!target.exists());
}

#[test]
fn a_childs_permission_request_reaches_the_host_in_the_parents_mode() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("ok.txt");
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Write", "Agent"], "permission_mode": "default"}),
    );
    server.enqueue(call("call_1", "Agent", json!({"prompt": "write"})));
    server.enqueue(call(
        "c_w",
        "Write",
        json!({"filePath": target, "content": "hi"}),
    ));
    server.enqueue(text("written"));
    server.enqueue(text("ok"));
    let t = p.submit("go");
    let req = p.until(|e| e.kind == events::PERMISSION_REQUEST);
    assert_eq!(req.turn_id, t);
    let req = json_of(&req);
    assert_eq!(req["tool_name"], "Write");
    rt.respond(
        req["request_id"].as_u64().unwrap(),
        r#"{"decision":"allow","remember":false}"#,
    )
    .unwrap();
    let done = json_of(&p.until(|e| e.kind == events::TURN_COMPLETED));
    assert_eq!(done["response"], "ok");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "hi");
    assert_eq!(tool_result(&server.requests()[3].body, "call_1"), "written");
    // The request itself was not wrapped.
    assert!(p
        .sub()
        .iter()
        .all(|s| s["event"]["type"] != "permission_request"));
}

#[test]
fn an_unknown_agent_type_is_a_result_and_a_warning() {
    let server = FakeServer::start();
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(&rt, json!({"tools": ["Agent"]}));
    server.enqueue(call(
        "call_1",
        "Agent",
        json!({"prompt": "x", "subagent_type": "Nope"}),
    ));
    server.enqueue(text("ok"));
    assert_eq!(p.turn("go")["stop_reason"], "complete");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        tool_result(&reqs[1].body, "call_1"),
        "Error: Unknown agent type: Nope"
    );
    let w = p.warnings();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0]["code"], "UNKNOWN_AGENT_TYPE");
    assert_eq!(
        w[0]["message"],
        "the model asked for unknown agent type \"Nope\" (available: general-purpose, Explore, Plan)"
    );
}

#[test]
fn abort_of_the_parent_reaches_the_child() {
    let server = FakeServer::start();
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(&rt, json!({"tools": ["Agent"]}));
    server.enqueue(call("call_1", "Agent", json!({"prompt": "slow"})));
    server.enqueue(Reply::hang());
    let t = p.submit("go");
    // The child's model call is in flight.
    p.until(|e| e.kind == events::SUBAGENT && json_of(e)["event"]["type"] == "turn_started");
    assert_eq!(server.wait_for_requests(2, WAIT).len(), 2);
    p.session.abort(t).unwrap();
    let done = json_of(&p.until(|e| e.kind == events::TURN_COMPLETED));
    assert_eq!(done["stop_reason"], "aborted");
    // The child's connection was dropped, and the child reported its abort.
    assert_eq!(server.wait_for_disconnects(1, WAIT), 1);
    let last = p.sub().pop().unwrap();
    assert_eq!(last["event"]["type"], "turn_completed");
    assert_eq!(last["event"]["stop_reason"], "aborted");
}

#[test]
fn two_children_run_in_parallel() {
    let server = FakeServer::start();
    let rt = runtime(&server, json!({}));
    rt.register_tool(
        &json!({"name":"Gate","description":"waits for the host","read_only":true,
                "input_schema":{"type":"object"}})
        .to_string(),
        None,
    )
    .unwrap();
    let mut p = Parent::open(&rt, json!({"tools": ["Gate", "Agent"]}));
    server.enqueue(Reply::openai(
        &Turn::text(Vec::<String>::new())
            .tool("call_a", "Agent", r#"{"prompt":"one"}"#)
            .tool("call_b", "Agent", r#"{"prompt":"two"}"#),
    ));
    server.enqueue(call("g1", "Gate", json!({})));
    server.enqueue(call("g2", "Gate", json!({})));
    server.enqueue(text("child done"));
    server.enqueue(text("child done"));
    server.enqueue(text("both done"));
    let t = p.submit("go");
    // Both children wait on the host at the same time: neither call is answered yet.
    let mut calls = Vec::new();
    while calls.len() < 2 {
        let e = p.until(|e| e.kind == events::TOOL_CALL);
        assert_eq!(e.turn_id, t, "a child's request carries the parent's turn");
        match &e.payload {
            Payload::ToolCall(c) => calls.push(c.call_id),
            _ => panic!("tool call payload"),
        }
    }
    for c in calls {
        rt.complete_tool_call(c, "\"open\"", false).unwrap();
    }
    let done = json_of(&p.until(|e| e.kind == events::TURN_COMPLETED));
    assert_eq!(done["response"], "both done");
    let reqs = server.requests();
    let last = &reqs.last().unwrap().body;
    assert_eq!(tool_result(last, "call_a"), "child done");
    assert_eq!(tool_result(last, "call_b"), "child done");
    let sub = p.sub();
    let mut ids: Vec<(String, String)> = sub
        .iter()
        .map(|s| {
            (
                s["parent_tool_call_id"].as_str().unwrap().to_string(),
                s["agent_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert_eq!(ids[0].0, "call_a");
    assert_eq!(ids[1].0, "call_b");
    assert_ne!(ids[0].1, ids[1].1);
}

#[test]
fn plan_mode_delegates_to_read_only_agents_only_and_the_child_stays_in_plan_mode() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("touched");
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Read", "Bash", "Agent"], "permission_mode": "plan"}),
    );
    server.enqueue(call(
        "call_1",
        "Agent",
        json!({"prompt": "look around", "subagent_type": "Explore"}),
    ));
    server.enqueue(call(
        "c_b",
        "Bash",
        json!({"command": format!("touch {}", marker.display())}),
    ));
    server.enqueue(text("looked"));
    server.enqueue(call("call_2", "Agent", json!({"prompt": "change things"})));
    server.enqueue(text("done"));
    let done = p.turn("plan it");
    assert_eq!(done["response"], "done");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 5, "the general-purpose child never ran");
    let plan_denied = |tool: &str| {
        json!({"success": false, "output": "", "error": format!(
            "Permission denied. The user did not approve this action. Tool \"{tool}\" is not allowed in plan mode; an allow rule or another permission mode is needed to use it.")})
        .to_string()
    };
    assert_eq!(tool_result(&reqs[2].body, "c_b"), plan_denied("Bash"));
    assert!(!marker.exists());
    assert_eq!(tool_result(&reqs[3].body, "call_1"), "looked");
    assert_eq!(tool_result(&reqs[4].body, "call_2"), plan_denied("Agent"));
}

#[test]
fn explore_uses_haiku_on_anthropic_and_a_custom_explore_keeps_the_parents_model() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let rt = robota_engine::sdk::runtime::Runtime::from_json(
        &json!({"v":1,"providers":{"p": server.provider_config("anthropic")}}).to_string(),
    )
    .unwrap();
    let agent_call = |id: &str| {
        let args = json!({"prompt": "where?", "subagent_type": "Explore"}).to_string();
        Reply::anthropic(&Turn::text(Vec::<String>::new()).tool(id, "Agent", &args))
    };
    let say = |t: &str| Reply::anthropic(&Turn::text([t]));
    let mut p = Parent::open(&rt, json!({"cwd": dir.path(), "tools": ["Read", "Agent"]}));
    server.enqueue(agent_call("toolu_1"));
    server.enqueue(say("here"));
    server.enqueue(say("ok"));
    assert_eq!(p.turn("find")["response"], "ok");
    let models: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.body["model"].clone())
        .collect();
    assert_eq!(models, ["test-model", "claude-haiku-4-5", "test-model"]);
    // A session's own `Explore` definition is not the built-in: it inherits.
    let server2 = FakeServer::start();
    let rt2 = robota_engine::sdk::runtime::Runtime::from_json(
        &json!({"v":1,"providers":{"p": server2.provider_config("anthropic")}}).to_string(),
    )
    .unwrap();
    let mut p2 = Parent::open(
        &rt2,
        json!({"cwd": dir.path(), "tools": ["Read", "Agent"],
               "agents": {"Explore": {"prompt": "mine"}}}),
    );
    server2.enqueue(agent_call("toolu_1"));
    server2.enqueue(say("here"));
    server2.enqueue(say("ok"));
    assert_eq!(p2.turn("find")["response"], "ok");
    assert_eq!(server2.requests()[1].body["model"], "test-model");
}
