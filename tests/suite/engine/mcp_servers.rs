//! MCP tool servers against REAL servers nobody here wrote, installed by `.ci/mcp.sh` from the
//! registries (npm `@modelcontextprotocol/server-everything` and `server-filesystem` over
//! stdio; a streamable-HTTP server built with the official Python `mcp` package's FastMCP,
//! started on 127.0.0.1 by the test), called by a scripted model. The tests needing them are `#[ignore]`d: `bash .ci/mcp.sh`
//! installs the servers and runs them with `--include-ignored` (without `ROBOTA_MCP_DIR` they
//! fail naming what is missing). The failure cases that need no installed server (a server that
//! fails to start, invalid JSON-RPC from a plain Python script) always run.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use robota_engine::sdk::events;
use serde_json::{json, Value};

use crate::support::mcp::{
    call, everything, filesystem, mcp_dir, python, runtime, script, tool_results, McpHost,
};

/// The first text block of a mapped result (plain text results are their own text).
fn first_text(result: &str) -> String {
    match serde_json::from_str::<Value>(result) {
        Ok(v) if v.is_object() => v["content"][0]["text"].as_str().unwrap().to_string(),
        _ => result.to_string(),
    }
}

#[test]
#[ignore = "needs the MCP servers: bash .ci/mcp.sh"]
fn mcp_everything_server_tools_are_called_by_the_model_with_results_mapped() {
    let Some(dir) = mcp_dir("mcp_everything") else {
        return;
    };
    let h = McpHost::open(
        json!([
            call("mcp__everything__echo", json!({"message": "hi"})),
            call("mcp__everything__get-sum", json!({"a": 2, "b": 3})),
            call("mcp__everything__get-tiny-image", json!({})),
            call("mcp__everything__get-structured-content", json!({"location": "New York"})),
            {"text": "done"}
        ]),
        json!({"mcp_servers": {"everything": everything(&dir)}}),
    );
    let servers = h.servers();
    assert_eq!(servers[0]["name"], "everything");
    assert_eq!(servers[0]["state"], "connected", "{servers}");
    assert!(servers[0]["tools"].as_u64().unwrap() >= 12, "{servers}");
    // The server's own schema, under the prefixed name.
    let tools = h.session.agent_tools();
    let sum = tools
        .iter()
        .find(|t| t.name() == "mcp__everything__get-sum")
        .unwrap();
    assert_eq!(sum.parameters()["properties"]["a"]["type"], "number");
    assert_eq!(sum.parameters()["required"], json!(["a", "b"]));
    assert_eq!(sum.description(), "Returns the sum of two numbers");
    h.turn("use the tools");
    let r = h.tool_results();
    assert_eq!(r[0], "Echo: hi");
    assert_eq!(r[1], "The sum of 2 and 3 is 5.");
    let image: Value = serde_json::from_str(&r[2]).unwrap();
    assert_eq!(
        image["content"][0],
        json!({"type":"text","text":"Here's the image you requested:"})
    );
    assert_eq!(image["content"][1]["type"], "image");
    assert_eq!(image["content"][1]["mimeType"], "image/png");
    assert!(image["content"][1]["data"].as_str().unwrap().len() > 100);
    let structured: Value = serde_json::from_str(&r[3]).unwrap();
    assert_eq!(
        structured["structuredContent"]["temperature"],
        json!(33),
        "{structured}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(structured["content"][0]["text"].as_str().unwrap()).unwrap(),
        structured["structuredContent"]
    );
    let cmd = robota_engine::sdk::commands::builtin::execute_json(&h.session, r#"{"name":"mcp"}"#)
        .unwrap();
    assert_eq!(cmd["data"]["servers"], h.servers());
    let n = servers[0]["tools"].as_u64().unwrap();
    assert_eq!(
        cmd["message"],
        format!("MCP servers:\n  everything (stdio) — connected, {n} tools")
    );
}

#[test]
#[ignore = "needs the MCP servers: bash .ci/mcp.sh"]
fn mcp_filesystem_server_reads_and_writes_real_files() {
    let Some(dir) = mcp_dir("mcp_filesystem") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let root_path = root.path().canonicalize().unwrap();
    std::fs::write(root_path.join("a.txt"), "hello mcp\n").unwrap();
    let a = root_path.join("a.txt");
    let b = root_path.join("b.txt");
    let h = McpHost::open(
        json!([
            call("mcp__fs__read_text_file", json!({"path": a})),
            call("mcp__fs__write_file", json!({"path": b, "content": "written by the model"})),
            {"text": "done"}
        ]),
        json!({"mcp_servers": {"fs": filesystem(&dir, &root_path)}}),
    );
    assert_eq!(h.servers()[0]["state"], "connected", "{}", h.servers());
    h.turn("files");
    let r = h.tool_results();
    assert_eq!(
        serde_json::from_str::<Value>(&r[0]).unwrap(),
        json!({"content":[{"type":"text","text":"hello mcp\n"}],
               "structuredContent":{"content":"hello mcp\n"}})
    );
    let wrote: Value = serde_json::from_str(&r[1]).unwrap();
    let text = format!("Successfully wrote to {}", b.display());
    assert_eq!(wrote["content"][0]["text"], text, "{wrote}");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "written by the model");
}

#[test]
#[ignore = "needs the MCP servers: bash .ci/mcp.sh"]
fn mcp_permission_deny_pattern_blocks_a_server_tool_before_it_runs() {
    let Some(dir) = mcp_dir("mcp_permission_deny") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let root_path = root.path().canonicalize().unwrap();
    let target = root_path.join("denied.txt");
    let h = McpHost::open(
        json!([
            call("mcp__fs__write_file", json!({"path": target, "content": "x"})),
            {"text": "done"}
        ]),
        json!({"mcp_servers": {"fs": filesystem(&dir, &root_path)},
               "permissions": {"deny": ["mcp__fs__*"]}}),
    );
    h.turn("write");
    let r = h.tool_results();
    assert_eq!(r.len(), 1);
    assert_eq!(
        r[0],
        r#"{"success":false,"output":"","error":"Permission denied. The user did not approve this action. The deny rule \"mcp__fs__*\" matches this call."}"#
    );
    assert!(!target.exists(), "a denied MCP tool must not run");
    let ends = h.json(events::TOOL_END);
    assert_eq!(ends[0]["tool_name"], "mcp__fs__write_file", "{}", ends[0]);
}

/// FastMCP's streamable HTTP server on 127.0.0.1, stopped on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(dir: &std::path::Path) -> HttpServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(dir.join("venv/bin/python"))
            .arg(script("http_server.py"))
            .arg(port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Up when uvicorn says so (its startup line on stderr).
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        for line in lines.by_ref() {
            if line.unwrap().contains("Uvicorn running on") {
                break;
            }
        }
        std::thread::spawn(move || for _ in lines {});
        HttpServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs the MCP servers: bash .ci/mcp.sh"]
fn mcp_streamable_http_fastmcp_server_with_env_header_structured_and_error_results() {
    let Some(dir) = mcp_dir("mcp_streamable_http") else {
        return;
    };
    let server = HttpServer::start(&dir);
    let rt = runtime(
        json!([
            call("mcp__py__add", json!({"a": 2, "b": 40})),
            call("mcp__py__auth_header", json!({})),
            call("mcp__py__fail", json!({})),
            {"text": "done"}
        ]),
        json!({"MCP_TEST_AUTH": "Bearer s3cret"}),
    );
    let h = McpHost::open_in(
        rt,
        json!({"mcp_servers": {"py": {"type": "http", "url": server.url,
               "headers": {"Authorization": "$ENV:MCP_TEST_AUTH"}}}}),
    );
    let servers = h.servers();
    assert_eq!(
        servers,
        json!([{"name":"py","transport":"http","state":"connected","tools":4}])
    );
    h.turn("http");
    let r = h.tool_results();
    assert_eq!(
        serde_json::from_str::<Value>(&r[0]).unwrap(),
        json!({"content":[{"type":"text","text":"42"}],"structuredContent":{"result":42}})
    );
    assert_eq!(
        serde_json::from_str::<Value>(&r[1]).unwrap()["structuredContent"],
        json!({"result": "Bearer s3cret"})
    );
    assert_eq!(
        r[2],
        "Error: Error executing tool fail: the tool failed on purpose"
    );
}

#[test]
#[ignore = "needs the MCP servers: bash .ci/mcp.sh"]
fn mcp_http_server_that_never_answers_times_out_and_the_session_goes_on() {
    let Some(dir) = mcp_dir("mcp_http_timeout") else {
        return;
    };
    let server = HttpServer::start(&dir);
    let h = McpHost::open(
        json!([call("mcp__py__hang", json!({})), {"text": "after the timeout"}]),
        json!({"mcp_servers": {"py": {"type": "http", "url": server.url, "timeout_ms": 300}}}),
    );
    h.turn("hang");
    assert_eq!(
        h.tool_results(),
        vec!["Error: MCP server \"py\" did not answer within 300 ms (timeout_ms)".to_string()]
    );
    assert_eq!(h.last_text(), "after the timeout");
    assert_eq!(h.servers()[0]["state"], "connected");
}

#[test]
#[ignore = "needs the MCP servers: bash .ci/mcp.sh"]
fn mcp_stdio_failures_crash_oversized_result_invalid_schema_and_list_changed() {
    let Some(dir) = mcp_dir("mcp_stdio_failures") else {
        return;
    };
    let h = McpHost::open(
        json!([
            call("mcp__py__big", json!({"n": 100000})),
            call("mcp__py__add_tool", json!({})),
            {"text": "first"},
            call("mcp__py__late", json!({})),
            call("mcp__py__crash", json!({})),
            {"text": "second"},
            {"text": "third"}
        ]),
        json!({"mcp_servers": {"py": python(&dir, "stdio_server.py")}}),
    );
    let warnings = h.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .starts_with("MCP server \"py\": tool \"bad_schema\" skipped: Invalid JSON Schema:"),
        "{}",
        warnings[0]
    );
    assert_eq!(h.json(events::WARNING)[0]["code"], "MCP_SERVER");
    assert_eq!(h.servers()[0]["tools"], 6);
    h.turn("one");
    let r = h.tool_results();
    assert!(r[0].len() < 40_000, "{}", r[0].len());
    // Text and structured copy, 100,000 "y" each: cut like built-in tool output, still JSON.
    let cut: Value = serde_json::from_str(&r[0]).unwrap();
    assert!(
        cut["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("[... output truncated: "),
        "{}",
        &r[0][..300]
    );
    assert_eq!(first_text(&r[1]), "added");
    // The refresh after tools/list_changed is asynchronous: wait for the new count.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while h.servers()[0]["tools"] != 7 {
        assert!(std::time::Instant::now() < deadline, "{}", h.servers());
        std::thread::yield_now();
    }
    h.turn("two");
    let r = h.tool_results();
    assert_eq!(first_text(&r[2]), "late tool answered");
    assert!(r[3].starts_with("Error: MCP server \"py\": "), "{}", r[3]);
    assert_eq!(h.last_text(), "second");
    let s = &h.servers()[0];
    assert_eq!(s["state"], "failed");
    assert_eq!(s["reason"], "the server closed the connection");
    h.turn("three");
    assert_eq!(h.last_text(), "third");
}

#[test]
#[ignore = "needs the MCP servers: bash .ci/mcp.sh"]
fn mcp_stdio_call_honours_abort() {
    let Some(dir) = mcp_dir("mcp_abort") else {
        return;
    };
    let h = McpHost::open(
        json!([call("mcp__py__hang", json!({})), {"text": "next"}]),
        json!({"mcp_servers": {"py": python(&dir, "stdio_server.py")}}),
    );
    let t = h.submit("hang");
    h.wait_for(events::TOOL_START);
    h.session.abort(t).unwrap();
    h.session
        .wait(t, Some(std::time::Duration::from_secs(30)))
        .ok();
    assert_eq!(h.json(events::TURN_COMPLETED)[0]["stop_reason"], "aborted");
    h.turn("again");
    assert_eq!(h.last_text(), "next");
    assert_eq!(h.servers()[0]["state"], "connected");
}

#[test]
#[ignore = "needs the MCP servers: bash .ci/mcp.sh"]
fn mcp_sessions_of_one_runtime_share_one_server_process_killed_when_the_last_closes() {
    let Some(dir) = mcp_dir("mcp_shared") else {
        return;
    };
    let rt = runtime(
        json!([call("mcp__py__pid", json!({})), {"text": "a"}, call("mcp__py__pid", json!({})), {"text": "b"}]),
        json!({}),
    );
    let extra = json!({"mcp_servers": {"py": python(&dir, "stdio_server.py")}});
    let one = McpHost::open_in(rt, extra.clone());
    let (two, seen_two) = McpHost::session(&one.rt, extra);
    assert_eq!(one.rt.shared().mcp_registry().live(), 1);
    one.turn("pid");
    let t = two
        .submit(robota_engine::sdk::interactive::TurnInput {
            text: "pid".into(),
            display_input: None,
            raw_input: None,
            tool_choice: None,
            output_schema: None,
            host_command: None,
            images: Vec::new(),
            skill: None,
        })
        .unwrap();
    two.wait(t, Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let pid_one: Value = serde_json::from_str(&one.tool_results()[0]).unwrap();
    let pid_two: Value = serde_json::from_str(&tool_results(&seen_two)[0]).unwrap();
    let pid = pid_one["structuredContent"]["result"].as_u64().unwrap();
    assert_eq!(pid_two["structuredContent"]["result"].as_u64(), Some(pid));
    let alive = || crate::support::process::alive(pid);
    assert!(alive());
    one.session.close();
    assert!(alive(), "the other session still uses the server");
    assert_eq!(one.servers()[0]["reason"], "the session was closed");
    two.close();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while alive() {
        assert!(
            std::time::Instant::now() < deadline,
            "server {pid} still runs"
        );
        std::thread::yield_now();
    }
}

#[test]
fn mcp_server_that_fails_to_start_is_reported_and_the_session_is_usable() {
    let h = McpHost::open(
        json!([{"text": "still here"}]),
        json!({"mcp_servers": {"gone": {"command": "/nonexistent/robota-mcp-server"}}}),
    );
    assert_eq!(
        h.servers(),
        json!([{"name":"gone","transport":"stdio","state":"failed","tools":0,
                "reason":"cannot start \"/nonexistent/robota-mcp-server\": No such file or directory (os error 2)"}])
    );
    assert_eq!(
        h.warnings(),
        vec!["MCP server \"gone\" failed: cannot start \"/nonexistent/robota-mcp-server\": No such file or directory (os error 2)".to_string()]
    );
    h.turn("hello");
    assert_eq!(h.last_text(), "still here");
    let cmd = robota_engine::sdk::commands::builtin::execute_json(&h.session, r#"{"name":"mcp"}"#)
        .unwrap();
    assert_eq!(
        cmd["message"],
        "MCP servers:\n  gone (stdio) — failed: cannot start \"/nonexistent/robota-mcp-server\": No such file or directory (os error 2)"
    );
}

#[test]
fn mcp_server_sending_invalid_json_rpc_fails_cleanly_within_the_startup_timeout() {
    let h = McpHost::open(
        json!([{"text": "fine"}]),
        json!({"mcp_servers": {"broken": {"command": "python3",
               "args": [script("invalid_jsonrpc.py")], "startup_timeout_ms": 5000}}}),
    );
    let s = &h.servers()[0];
    assert_eq!(s["state"], "failed", "{s}");
    assert_eq!(s["tools"], 0);
    assert!(!s["reason"].as_str().unwrap().is_empty());
    h.turn("hello");
    assert_eq!(h.last_text(), "fine");
}
