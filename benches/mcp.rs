//! MCP tool calls over stdio: the library's overhead per call beyond the server's own time, and
//! 100 sessions sharing one server connection.
//!
//! The server is tests/mcp/echo_server.py (plain Python, answers at once). "Raw" speaks
//! JSON-RPC to a second instance by hand (write a line, read a line: the server's time plus
//! the pipe); "library" calls the same tool as a session does (`Tool::execute` of the
//! `mcp__echo__echo` tool: rmcp's client, the timeout/abort guard, the result mapping). The
//! difference is the library's overhead. Run: `cargo bench --bench mcp` (needs `python3`).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use robota_engine::core::tool::{Tool, ToolContext};
use robota_engine::sdk::config::parse_session_config;
use robota_engine::sdk::events::{Event, EventSink};
use robota_engine::sdk::interactive::InteractiveSession;
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

const CALLS: usize = 5000;
const ROUNDS: usize = 5;

fn script() -> String {
    format!("{}/tests/mcp/echo_server.py", env!("CARGO_MANIFEST_DIR"))
}

/// Per-call time of hand-written JSON-RPC over the child's pipes.
fn raw(calls: usize) -> Duration {
    let mut child = Command::new("python3")
        .arg(script())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut rpc = |id: usize, method: &str, params: Value| {
        let msg = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params});
        writeln!(stdin, "{msg}").unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert!(line.contains("\"result\""), "{line}");
    };
    rpc(
        0,
        "initialize",
        json!({"protocolVersion":"2025-06-18","capabilities":{},
        "clientInfo":{"name":"raw","version":"0"}}),
    );
    for i in 0..100 {
        rpc(
            i + 1,
            "tools/call",
            json!({"name":"echo","arguments":{"text":"hi"}}),
        );
    }
    let t = Instant::now();
    for i in 0..calls {
        rpc(
            i + 200,
            "tools/call",
            json!({"name":"echo","arguments":{"text":"hi"}}),
        );
    }
    let d = t.elapsed() / calls as u32;
    drop(stdin);
    let _ = child.wait();
    d
}

fn session(rt: &Runtime) -> InteractiveSession {
    let cfg = parse_session_config(
        &json!({"v":1,"provider":"s","model":"m","tools":[],
                "mcp_servers":{"echo":{"command":"python3","args":[script()]}}})
        .to_string(),
    )
    .unwrap();
    let sink: EventSink = Arc::new(|_e: Event| {});
    InteractiveSession::new(rt.shared().clone(), cfg, sink, false, None).unwrap()
}

fn runtime() -> Runtime {
    Runtime::from_json(r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[]}}}"#).unwrap()
}

/// Per-call time through the session's MCP tool.
fn library(rt: &Runtime, tool: &Arc<dyn Tool>, calls: usize) -> Duration {
    let handle = rt.shared().worker_handle().unwrap().clone();
    let ctx = ToolContext::detached("bench");
    let one = |tool: &Arc<dyn Tool>| {
        let r = handle
            .block_on(tool.execute(json!({"text":"hi"}), &ctx))
            .unwrap();
        assert_eq!(r, json!("hi"));
    };
    for _ in 0..100 {
        one(tool);
    }
    let t = Instant::now();
    for _ in 0..calls {
        one(tool);
    }
    t.elapsed() / calls as u32
}

fn mcp_tool(rt: &Runtime) -> (InteractiveSession, Arc<dyn Tool>) {
    let s = session(rt);
    let tools = s.agent_tools();
    let tool = tools
        .into_iter()
        .find(|t| t.name() == "mcp__echo__echo")
        .unwrap();
    (s, tool)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rt = runtime();
    let (_s, tool) = mcp_tool(&rt);
    let mut raws = Vec::new();
    let mut libs = Vec::new();
    for _ in 0..ROUNDS {
        raws.push(raw(CALLS));
        libs.push(library(&rt, &tool, CALLS));
    }
    let (r, l) = (median(raws.clone()), median(libs.clone()));
    println!(
        "mcp stdio tool call: raw JSON-RPC {:.1} µs, library {:.1} µs, overhead {:.1} µs per call (median of {ROUNDS}×{CALLS}; raw {:?}, library {:?})",
        r.as_secs_f64() * 1e6,
        l.as_secs_f64() * 1e6,
        (l.as_secs_f64() - r.as_secs_f64()) * 1e6,
        raws.iter().map(|d| format!("{:.1}", d.as_secs_f64() * 1e6)).collect::<Vec<_>>(),
        libs.iter().map(|d| format!("{:.1}", d.as_secs_f64() * 1e6)).collect::<Vec<_>>(),
    );

    // 100 sessions of one runtime, one server definition: one connection.
    let rt = runtime();
    let t = Instant::now();
    let first = session(&rt);
    let first_ms = t.elapsed();
    let t = Instant::now();
    let mut sessions: Vec<InteractiveSession> = (1..100).map(|_| session(&rt)).collect();
    let rest = t.elapsed() / 99;
    sessions.push(first);
    assert_eq!(rt.shared().mcp_registry().live(), 1);
    let tools: Vec<Arc<dyn Tool>> = sessions
        .iter()
        .map(|s| {
            s.agent_tools()
                .into_iter()
                .find(|t| t.name() == "mcp__echo__echo")
                .unwrap()
        })
        .collect();
    let handle = rt.shared().worker_handle().unwrap().clone();
    let t = Instant::now();
    let per_session = 20;
    handle.block_on(async {
        let mut all = Vec::new();
        for tool in &tools {
            let tool = tool.clone();
            all.push(tokio::spawn(async move {
                let ctx = ToolContext::detached("bench");
                for _ in 0..per_session {
                    assert_eq!(
                        tool.execute(json!({"text":"hi"}), &ctx).await.unwrap(),
                        json!("hi")
                    );
                }
            }));
        }
        for j in all {
            j.await.unwrap();
        }
    });
    let total = t.elapsed();
    println!(
        "100 sessions, one connection: first session (server start) {:.1} ms, each further session {:.2} ms; {} concurrent calls (20 per session) in {:.1} ms = {:.1} µs per call",
        first_ms.as_secs_f64() * 1e3,
        rest.as_secs_f64() * 1e3,
        100 * per_session,
        total.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e6 / (100 * per_session) as f64,
    );
}
