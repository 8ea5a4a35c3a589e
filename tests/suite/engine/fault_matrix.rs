//! The fault matrix: every network fault against every HTTP provider (Anthropic, OpenAI,
//! Gemini), through the engine. In each cell a turn's first model call asks for the echo tool,
//! the tool runs, and the second model call meets the fault. Each cell asserts the documented
//! outcome (retried and succeeded, or the error class, category, recoverability and text), the
//! number of requests, the text the host saw, the history (one tool call answered once, the
//! answer or `Request failed: …` once), that the next turn works on that history (the fake
//! server checks tool pairing on every request), and that no client connection stays open.
//! The echo tool is a command run under the default sandbox and environment policy, so every
//! cell also starts a confined process while the network fails around it.
//! docs/reliability.md "Fault matrix" is this table.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::message::Role;
use robota_engine::core::provider::Provider;
use robota_engine::core::sandbox::{Sandbox, SandboxConfig};
use robota_engine::core::shell::{run_shell, ShellCommand};
use robota_engine::providers::{create_provider, new_http_client};
use robota_engine::tools::FunctionTool;
use serde_json::{json, Value};

use crate::support::fake_faults::{
    client_connections_closed, open_client_connections, port, refused_base_url,
};
use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::fault_cells::{big_text, cells, Cell, Expect, DONE};

const KINDS: [&str; 3] = ["anthropic", "openai", "gemini"];

/// An agent over `p` whose `echo` tool answers `echo:<text>` from a command run in `ws` under
/// the default sandbox (the text reaches it as a variable, never as shell code).
fn sandboxed_agent(p: Arc<dyn Provider>, ws: &std::path::Path) -> Agent {
    let sandbox = Arc::new(
        Sandbox::new(SandboxConfig::default(), ws)
            .expect("the default sandbox resolves")
            .expect("the default sandbox is on"),
    );
    let ws = ws.to_path_buf();
    let echo = FunctionTool::new_async(
        "echo",
        "Echoes text",
        json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
        move |args: Value, _ctx| {
            let mut spec = ShellCommand::new("printf 'echo:%s' \"$ECHO_TEXT\"");
            spec.cwd = Some(ws.clone());
            spec.env = vec![(
                "ECHO_TEXT".into(),
                args["text"].as_str().unwrap_or("").into(),
            )];
            spec.sandbox = Some(sandbox.clone());
            spec.timeout = Some(Duration::from_secs(30));
            async move {
                let out = run_shell(spec).await.map_err(|e| e.to_string())?;
                Ok(Value::String(
                    String::from_utf8_lossy(&out.stdout).into_owned(),
                ))
            }
        },
    )
    .expect("a valid tool");
    let mut cfg = AgentConfig::new(p, "test-model");
    cfg.system_message = Some("You are a test.".into());
    cfg.tools = vec![Arc::new(echo)];
    Agent::new(cfg).expect("an agent")
}

/// Runs one cell for one provider kind; returns what went wrong.
async fn run_cell(kind: &str, cell: &Cell) -> Result<(), String> {
    let server = FakeServer::start();
    let mut cfg = server.provider_config(kind);
    if let (Some(o), Some(p)) = (cfg.as_object_mut(), (cell.patch)().as_object().cloned()) {
        o.extend(p);
    }
    if cell.refused {
        cfg["base_url"] = json!(refused_base_url(kind));
    } else {
        server.enqueue(Reply::for_kind(
            kind,
            &Turn::text(Vec::<String>::new()).tool("call_1", "echo", r#"{"text":"ping"}"#),
        ));
        for r in (cell.replies)(kind) {
            server.enqueue(r);
        }
    }
    let client = new_http_client().map_err(|e| e.to_string())?;
    let provider = create_provider(kind, &cfg, &client).map_err(|e| e.to_string())?;
    let ws = tempfile::tempdir().map_err(|e| e.to_string())?;
    let a = sandboxed_agent(provider, ws.path());
    let seen = Arc::new(Mutex::new(String::new()));
    let sink = seen.clone();
    let options = RunOptions {
        on_text_delta: Some(Arc::new(move |d: &str| {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push_str(d)
        })),
        ..Default::default()
    };
    let started = Instant::now();
    let r = a.run("go", options).await.map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(|p| p.into_inner()));
    let mut problems = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };
    check(
        elapsed >= cell.at_least,
        format!("took {elapsed:?}, less than {:?}", cell.at_least),
    );
    let tool_rounds = usize::from(!cell.refused);
    let requests = server.requests().len();
    let (attempts, final_text) = match cell.expect {
        Expect::Ok { attempts, text } => {
            check(r.error.is_none(), format!("failed: {:?}", r.error));
            if cell.big {
                check(
                    r.response == big_text(),
                    format!("response of {} bytes", r.response.len()),
                );
                check(seen == big_text(), format!("host saw {} bytes", seen.len()));
            } else {
                check(r.response == text, format!("response {:?}", r.response));
                check(seen == text, format!("host saw {seen:?}"));
            }
            (attempts, r.response.clone())
        }
        Expect::Err {
            code,
            category,
            recoverable,
            attempts,
            contains,
            text,
        } => {
            check(r.error.is_some(), "succeeded".into());
            match &r.error_class {
                Some(e) => {
                    check(e.code() == code, format!("code {}", e.code()));
                    check(
                        e.category().as_str() == category,
                        format!("category {}", e.category().as_str()),
                    );
                    check(
                        e.is_recoverable() == recoverable,
                        format!("recoverable {}", e.is_recoverable()),
                    );
                    check(e.to_string().contains(contains), format!("error {e}"));
                }
                None => check(false, "no error class".into()),
            }
            check(seen == text, format!("host saw {seen:?}"));
            let failed = format!("Request failed: {}", r.error.clone().unwrap_or_default());
            (attempts, failed)
        }
    };
    check(
        requests == tool_rounds + attempts,
        format!("{requests} requests, expected {}", tool_rounds + attempts),
    );
    // History: system, user, the tool call, its one result, then the answer (or the failure) once.
    let messages = a.messages();
    let calls: Vec<&str> = messages
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str()))
        .collect();
    let results: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| m.tool_call_id.as_deref())
        .collect();
    let want: Vec<&str> = if cell.refused { vec![] } else { vec!["call_1"] };
    check(calls == want, format!("tool calls {calls:?}"));
    check(results == want, format!("tool results {results:?}"));
    let answers = messages
        .iter()
        .filter(|m| m.role == Role::Assistant && m.tool_calls.is_empty())
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>();
    check(
        answers == [final_text.as_str()],
        format!(
            "assistant answers {:?}",
            answers.iter().map(|a| short(a)).collect::<Vec<_>>()
        ),
    );
    // The next turn works on that history.
    if cell.big {
        let r2 = a
            .run("next", RunOptions::default())
            .await
            .map_err(|e| e.to_string())?;
        check(
            r2.response.starts_with("Context window is near capacity.")
                && server.requests().len() == requests,
            format!("next turn: {:?} {:?}", r2.response, r2.error),
        );
    } else if !cell.refused {
        server.enqueue(Reply::for_kind(kind, &Turn::text(["again"])));
        let r2 = a
            .run("next", RunOptions::default())
            .await
            .map_err(|e| e.to_string())?;
        check(
            r2.success && r2.response == "again",
            format!("next turn: {:?} {:?}", r2.response, r2.error),
        );
        let last = server
            .requests()
            .pop()
            .map(|r| r.raw_body)
            .unwrap_or_default();
        check(
            last.matches("echo:ping").count() == 1,
            "the tool result is not sent exactly once".into(),
        );
        if matches!(cell.expect, Expect::Ok { .. }) {
            let sent = serde_json::to_string(DONE).unwrap_or_default();
            let sent = sent.trim_matches('"');
            check(
                final_text != DONE || last.matches(sent).count() == 1,
                "the answer is not sent exactly once".into(),
            );
        }
    }
    // No leak: once the agent and its HTTP client are gone, no connection stays open.
    drop(a);
    drop(client);
    if !cell.refused {
        let open = client_connections_closed(port(&server), Duration::from_secs(10)).await;
        check(open == 0, format!("{open} client connection(s) still open"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn short(s: &str) -> String {
    let end = s.char_indices().nth(60).map_or(s.len(), |(i, _)| i);
    if end < s.len() {
        format!("{}… ({} bytes)", &s[..end], s.len())
    } else {
        s.to_string()
    }
}

/// Every cell for every provider (the cells of one provider concurrently); all failures are
/// listed together.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fault_matrix_every_provider() {
    // The leak check counts real connections: an open one is seen, a closed one is not.
    let server = FakeServer::start();
    let probe = std::net::TcpStream::connect(server.base_url().trim_start_matches("http://"))
        .expect("connect to the fake server");
    assert_eq!(open_client_connections(port(&server)), 1);
    drop(probe);
    assert_eq!(
        client_connections_closed(port(&server), Duration::from_secs(10)).await,
        0
    );
    let cells = Arc::new(cells());
    let mut failures = Vec::new();
    for kind in KINDS {
        let mut runs = Vec::new();
        for i in 0..cells.len() {
            let cells = cells.clone();
            runs.push(tokio::spawn(async move {
                let cell = &cells[i];
                run_cell(kind, cell)
                    .await
                    .map_err(|e| format!("{kind} / {}: {e}", cell.name))
            }));
        }
        for r in runs {
            match r.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => failures.push(e),
                Err(e) => failures.push(format!("a cell panicked: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} cell(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
