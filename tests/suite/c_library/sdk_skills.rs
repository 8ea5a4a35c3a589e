//! What the system prompt offers the model is what it can invoke: the `Skill` tool runs the
//! model-invocable skills the prompt lists (no built-in command list), the trust level follows
//! the session's mode (and the `mode` command), WebSearch is offered only with a backend
//! (the runtime's `BRAVE_API_KEY` counts). `context: fork` skills run in a fork worker, by
//! command and through the `Skill` tool; each user invocation records a `skill-invocation`
//! history entry; `help <prefix>` filters and lists `mode`'s subcommands.

use std::path::Path;

use robota::ffi::{robota_runtime_free, robota_session_free};
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{command, events_until, history_entries, runtime, session_new, submit};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const REVIEW: &str =
    "---\nname: review\ndescription: Review code\nargument-hint: <file>\n---\nReview $0 carefully.\n";
const AUDIT: &str = "---\nname: audit\ndescription: Audit a folder\ncontext: fork\nagent: Explore\nallowed-tools: Read, Grep\n---\nAudit $ARGUMENTS now.\n";

/// A project with `review` (inject), `audit` (fork) and `hidden` (user-only) skills.
fn project(root: &Path) -> std::path::PathBuf {
    let proj = root.join("proj");
    write(&proj.join(".claude/skills/review/SKILL.md"), REVIEW);
    write(&proj.join(".claude/skills/audit/SKILL.md"), AUDIT);
    write(
        &proj.join(".claude/skills/hidden/SKILL.md"),
        "---\ndisable-model-invocation: true\n---\nsecret steps\n",
    );
    proj
}

fn open(
    root: &Path,
    server: &FakeServer,
    env: Value,
    doc: Value,
) -> (
    *mut robota::ffi::robota_runtime,
    *mut robota::ffi::robota_session,
) {
    let mut env_map = json!({"ROBOTA_HOME": root.join("rhome"), "HOME": root.join("home")});
    if let (Value::Object(e), Value::Object(extra)) = (&mut env_map, env) {
        e.extend(extra);
    }
    // The provider allows native web search (used only by a session asking for it).
    let mut provider = server.provider_config("anthropic");
    provider["web_search"] = json!(true);
    let rt = runtime(&json!({"v":1,"providers":{"p": provider},"env": env_map}).to_string());
    let mut d = json!({"v":1,"provider":"p","model":"m","delivery":"pull"});
    if let (Value::Object(d), Value::Object(e)) = (&mut d, doc) {
        d.extend(e);
    }
    (rt, session_new(rt, &d.to_string()).unwrap())
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The text of the last `tool_result` block of a request.
fn last_tool_result(body: &Value) -> String {
    let msgs = body["messages"].as_array().unwrap();
    let block = msgs
        .iter()
        .rev()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .find(|b| b["type"] == "tool_result")
        .unwrap();
    match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        other => panic!("tool_result content {other}"),
    }
}

fn last_user_text(body: &Value) -> String {
    let msgs = body["messages"].as_array().unwrap();
    let m = msgs.iter().rev().find(|m| m["role"] == "user").unwrap();
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        other => panic!("content {other}"),
    }
}

#[test]
fn the_prompt_lists_only_what_the_model_can_invoke_and_the_skill_tool_runs_it() {
    let root = tempfile::tempdir().unwrap();
    let proj = project(root.path());
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["x"]).tool(
        "t1",
        "Skill",
        r#"{"skill":"review","args":"main.rs"}"#,
    )));
    server.enqueue(Reply::anthropic(&Turn::text(["y"]).tool(
        "t2",
        "Skill",
        r#"{"skill":"hidden"}"#,
    )));
    server.enqueue(Reply::anthropic(&Turn::text(["done"])));
    let (rt, s) = open(
        root.path(),
        &server,
        json!({}),
        json!({"settings":"project","cwd":proj}),
    );
    submit(s, "go");
    let done = events_until(s, "turn_completed");
    assert_eq!(done.last().unwrap()["response"], "done");
    let reqs = server.requests();
    assert_eq!(
        tool_names(&reqs[0].body),
        ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "WebFetch", "Skill"],
        "no WebSearch without a backend"
    );
    let system = reqs[0].system_text();
    assert!(!system.contains("Built-in Commands"), "{system}");
    assert!(!system.contains("WebSearch"), "{system}");
    assert!(
        system.contains("- WebFetch — fetch URL content as text\n- Skill — run one of the skills listed under Skills\n\n"),
        "{system}"
    );
    assert!(
        system.ends_with("## Skills\n- audit: Audit a folder\n- review <file>: Review code"),
        "{system}"
    );
    assert_eq!(
        last_tool_result(&reqs[1].body),
        format!(
            "<skill name=\"review\">\n{}\n</skill>\n\nExecute the \"review\" skill: main.rs",
            REVIEW.replace("$0", "main.rs")
        )
    );
    assert_eq!(
        last_tool_result(&reqs[2].body),
        "Error: Unknown skill: hidden (available: audit, review)"
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn a_fork_skill_runs_in_a_fork_worker_and_records_its_invocation() {
    let root = tempfile::tempdir().unwrap();
    let proj = project(root.path());
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["report"])));
    let (rt, s) = open(
        root.path(),
        &server,
        json!({}),
        json!({"settings":"project","cwd":proj,"tools":["Read","Write","Grep","Bash"]}),
    );
    let r = command(s, r#"{"name":"audit","args":"src"}"#).unwrap();
    assert_eq!(r["message"], "Skill \"audit\" started.");
    assert_eq!(r["data"]["context"], "fork");
    let evs = events_until(s, "turn_completed");
    assert!(
        evs.iter()
            .any(|e| e["type"] == "subagent" && e["agent_type"] == "Explore"),
        "{evs:?}"
    );
    let done = evs.last().unwrap();
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(done["response"], "report");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1, "the parent makes no model call of its own");
    assert_eq!(tool_names(&reqs[0].body), ["Read", "Grep"]);
    assert_eq!(
        last_user_text(&reqs[0].body),
        AUDIT.replace("$ARGUMENTS", "src")
    );
    let system = reqs[0].system_text();
    assert!(
        system.ends_with(robota_engine::sdk::subagent::runner::FORK_WORKER_SUFFIX),
        "{system}"
    );
    let entries = history_entries(s);
    let kinds: Vec<&str> = entries
        .iter()
        .map(|e| e["type"].as_str().or(e["role"].as_str()).unwrap_or(""))
        .collect();
    assert_eq!(
        kinds,
        ["user", "skill-invocation", "assistant"],
        "{entries:?}"
    );
    assert_eq!(
        entries[1]["data"],
        json!({"skillName": "audit", "displayInput": "/audit src"})
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn the_model_runs_a_fork_skill_through_the_skill_tool() {
    let root = tempfile::tempdir().unwrap();
    let proj = project(root.path());
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["x"]).tool(
        "t1",
        "Skill",
        r#"{"skill":"audit","args":"lib"}"#,
    )));
    server.enqueue(Reply::anthropic(&Turn::text(["child report"])));
    server.enqueue(Reply::anthropic(&Turn::text(["done"])));
    let (rt, s) = open(
        root.path(),
        &server,
        json!({}),
        json!({"settings":"project","cwd":proj,"tools":["Read","Skill"]}),
    );
    submit(s, "audit lib please");
    events_until(s, "turn_completed");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        last_user_text(&reqs[1].body),
        AUDIT.replace("$ARGUMENTS", "lib")
    );
    assert_eq!(tool_names(&reqs[1].body), ["Read"]);
    assert_eq!(last_tool_result(&reqs[2].body), "child report");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn the_trust_level_follows_the_mode_and_the_mode_command() {
    let root = tempfile::tempdir().unwrap();
    let proj = project(root.path());
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["a"])));
    server.enqueue(Reply::anthropic(&Turn::text(["b"])));
    let (rt, s) = open(
        root.path(),
        &server,
        json!({}),
        json!({"settings":"project","cwd":proj,"tools":[]}),
    );
    submit(s, "one");
    events_until(s, "turn_completed");
    command(s, r#"{"name":"mode","args":"bypassPermissions"}"#).unwrap();
    submit(s, "two");
    events_until(s, "turn_completed");
    let reqs = server.requests();
    let section = |i: usize| {
        let sys = reqs[i].system_text().to_string();
        let start = sys.find("## Permission Mode\n").unwrap();
        sys[start..].split("\n\n").next().unwrap().to_string()
    };
    assert_eq!(
        section(0),
        "## Permission Mode\n- **Trust level:** moderate\n- **Mode:** default"
    );
    assert_eq!(
        section(1),
        "## Permission Mode\n- **Trust level:** full\n- **Mode:** bypassPermissions"
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn web_search_is_offered_only_with_a_backend_and_uses_the_runtime_key() {
    let root = tempfile::tempdir().unwrap();
    let proj = project(root.path());
    let server = FakeServer::start();
    server.route(
        "/brave?q=rust&count=10",
        Reply::body(
            200,
            "application/json",
            r#"{"web":{"results":[{"title":"Rust","url":"https://rust-lang.org","description":"A language"}]}}"#,
        ),
    );
    // Native search only: the prompt names the provider's search, not the local tool.
    server.enqueue(Reply::anthropic(&Turn::text(["a"])));
    // With the runtime's key: the tool is offered and searches with that key.
    server.enqueue(Reply::anthropic(&Turn::text(["x"]).tool(
        "t1",
        "WebSearch",
        r#"{"query":"rust"}"#,
    )));
    server.enqueue(Reply::anthropic(&Turn::text(["done"])));
    let (rt, s) = open(
        root.path(),
        &server,
        json!({}),
        json!({"settings":"project","cwd":proj,"native_web_search":true}),
    );
    submit(s, "one");
    events_until(s, "turn_completed");
    let system = server.requests()[0].system_text().to_string();
    assert!(!tool_names(&server.requests()[0].body).contains(&"WebSearch".to_string()));
    assert!(
        system.contains(
            "- web_search — search the internet through the provider's native web search"
        ),
        "{system}"
    );
    assert!(!system.contains("- WebSearch"), "{system}");
    robota_session_free(s);
    robota_runtime_free(rt);

    let (rt, s) = open(
        root.path(),
        &server,
        json!({"BRAVE_API_KEY": "runtime-key"}),
        json!({"settings":"project","cwd":proj,
               "tool_config":{"webSearch":{"provider":"brave","baseUrl": format!("{}/brave", server.base_url())}}}),
    );
    submit(s, "search");
    events_until(s, "turn_completed");
    let reqs = server.requests();
    assert!(tool_names(&reqs[1].body).contains(&"WebSearch".to_string()));
    let system = reqs[1].system_text();
    assert!(
        system.contains("- WebSearch — search the internet"),
        "{system}"
    );
    let probes = server.probes();
    assert_eq!(probes.len(), 1, "{probes:?}");
    assert_eq!(
        probes[0].header("x-subscription-token"),
        Some("runtime-key")
    );
    let result = last_tool_result(&reqs[2].body);
    let result: Value = serde_json::from_str(&result).unwrap();
    let hits: Value = serde_json::from_str(result["output"].as_str().unwrap()).unwrap();
    assert_eq!(
        hits,
        json!([{"title":"Rust","url":"https://rust-lang.org","snippet":"A language"}])
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn help_filters_by_prefix_and_lists_subcommands() {
    let root = tempfile::tempdir().unwrap();
    let proj = project(root.path());
    let server = FakeServer::start();
    let (rt, s) = open(
        root.path(),
        &server,
        json!({}),
        json!({"settings":"project","cwd":proj,"tools":[]}),
    );
    let r = command(s, r#"{"name":"help","args":"mo"}"#).unwrap();
    assert_eq!(
        r["message"],
        "Available commands:\n  mode [m] — Show or change permission mode\n  model <id> — Change AI model"
    );
    let cmds = r["data"]["commands"].as_array().unwrap();
    let names: Vec<&str> = cmds.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["mode", "model"]);
    let subs: Vec<&str> = cmds[0]["subcommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        subs,
        ["plan", "default", "acceptEdits", "bypassPermissions"]
    );
    assert!(cmds[1].get("subcommands").is_none());
    let r = command(s, r#"{"name":"help","args":"au"}"#).unwrap();
    assert_eq!(
        r["data"]["commands"],
        json!([{"name":"audit","description":"Audit a folder","source":"skill"}])
    );
    assert!(r["message"]
        .as_str()
        .unwrap()
        .ends_with("Skills:\n  /audit — Audit a folder"));
    robota_session_free(s);
    robota_runtime_free(rt);
}

/// A fork worker may run a fork skill of its own, down to the subagent depth limit (2), where
/// the `Skill` tool refuses it like the `Agent` tool stops nesting.
#[test]
fn fork_skills_nest_only_down_to_the_depth_limit() {
    let root = tempfile::tempdir().unwrap();
    let proj = project(root.path());
    write(
        &proj.join(".claude/skills/nest/SKILL.md"),
        "---\ncontext: fork\n---\nNest.\n",
    );
    let server = FakeServer::start();
    for _ in 0..3 {
        server.enqueue(Reply::anthropic(&Turn::text(["x"]).tool(
            "t",
            "Skill",
            r#"{"skill":"nest"}"#,
        )));
    }
    server.enqueue(Reply::anthropic(&Turn::text(["depth 2"])));
    server.enqueue(Reply::anthropic(&Turn::text(["depth 1"])));
    server.enqueue(Reply::anthropic(&Turn::text(["done"])));
    let (rt, s) = open(
        root.path(),
        &server,
        json!({}),
        json!({"settings":"project","cwd":proj,"tools":["Skill"]}),
    );
    submit(s, "nest");
    let done = events_until(s, "turn_completed");
    assert_eq!(done.last().unwrap()["response"], "done");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 6);
    assert_eq!(
        last_tool_result(&reqs[3].body),
        "Error: Sub-agent error: a fork skill cannot run at subagent depth 2"
    );
    assert_eq!(last_tool_result(&reqs[4].body), "depth 2");
    assert_eq!(last_tool_result(&reqs[5].body), "depth 1");
    robota_session_free(s);
    robota_runtime_free(rt);
}
