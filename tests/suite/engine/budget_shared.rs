//! One budget over every model call a session causes, against the fake server: a subagent, an
//! `agent` hook's child and an `assignTask` child count on their parent's budget (one that would
//! cross it stops with `stop_reason:"budget"`, and the parent's turn reports it); compaction
//! summaries and `prompt` hooks are asked for before their call and charged with its usage.

use robota_engine::core::message::Role;
use robota_engine::sdk::error::ErrorCode;
use robota_engine::sdk::events;
use robota_engine::sdk::interactive::TurnInput;
use robota_engine::session::CompactError;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::subagent_host::{call, json_of, runtime, text, Parent, WAIT};

/// The parent's own `ERROR` events (not its children's, which arrive wrapped).
fn errors(p: &Parent) -> Vec<Value> {
    p.seen
        .iter()
        .filter(|e| e.kind == events::ERROR)
        .map(json_of)
        .collect()
}

/// The budget's `ERROR` event naming `message`, once.
fn assert_budget_error(p: &Parent, message: &str) {
    let errs = errors(p);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!(errs[0]["code"], "BUDGET_EXCEEDED");
    assert_eq!(errs[0]["message"], message);
}

/// The content of the session's one tool result.
fn tool_result(p: &Parent) -> String {
    let conv = p.session.conversation();
    let tools: Vec<_> = conv.iter().filter(|m| m.role == Role::Tool).collect();
    assert_eq!(tools.len(), 1, "{conv:#?}");
    tools[0].content.clone()
}

/// A further submit is refused with the budget's message.
fn assert_refused(p: &Parent, message: &str) {
    let e = p
        .session
        .submit(TurnInput {
            text: "more".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::Budget, message));
}

#[test]
fn a_subagent_that_would_cross_max_model_calls_stops_and_so_does_its_parent() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Read", "Agent"], "budget": {"max_model_calls": 2}}),
    );
    server.enqueue(call(
        "c_a",
        "Agent",
        json!({"prompt": "read it", "subagent_type": "general-purpose"}),
    ));
    server.enqueue(call(
        "c_r",
        "Read",
        json!({"filePath": dir.path().join("missing.txt")}),
    ));
    // Never asked for: the child's second call and the parent's second round.
    server.enqueue(text("child done"));
    server.enqueue(text("parent done"));
    let done = p.turn("delegate");
    assert_eq!(server.requests().len(), 2);
    let message = "budget exceeded: max_model_calls is 2 and 2 were used";
    // The child stopped on the budget…
    let child_done: Vec<Value> = p
        .sub()
        .into_iter()
        .filter(|s| s["event"]["type"] == "turn_completed")
        .collect();
    assert_eq!(child_done.len(), 1);
    assert_eq!(child_done[0]["event"]["stop_reason"], "budget");
    // …and the parent's turn reports it.
    assert_eq!(done["stop_reason"], "budget");
    assert_budget_error(&p, message);
    assert_eq!(
        tool_result(&p),
        format!("Error: Sub-agent error: {message}")
    );
    assert_eq!(p.session.budget().unwrap().spent().model_calls, 2);
    assert_refused(&p, message);
}

#[test]
fn an_agent_hooks_child_counts_on_the_parents_budget() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("w.txt");
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Write"], "budget": {"max_model_calls": 2},
               "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "agent"}]}]}}),
    );
    server.enqueue(call(
        "c_w",
        "Write",
        json!({"filePath": target, "content": "hi"}),
    ));
    server.enqueue(text("{\"ok\": true}"));
    server.enqueue(text("never"));
    let done = p.turn("go");
    // The hook's child made call 2 and allowed the write; the parent's next round is refused.
    assert_eq!(server.requests().len(), 2);
    assert!(target.exists());
    assert_eq!(done["stop_reason"], "budget");
    assert_budget_error(&p, "budget exceeded: max_model_calls is 2 and 2 were used");
}

#[test]
fn an_assign_task_child_that_would_cross_the_budget_stops_and_so_does_its_parent() {
    let server = FakeServer::start();
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"tools": [], "team": true, "budget": {"max_model_calls": 1}}),
    );
    server.enqueue(call(
        "c_t",
        "assignTask",
        json!({"templateId": "general", "jobDescription": "Add 2 and 2"}),
    ));
    server.enqueue(text("4"));
    server.enqueue(text("never"));
    let done = p.turn("delegate");
    // The child's only call was refused before it was made.
    assert_eq!(server.requests().len(), 1);
    let message = "budget exceeded: max_model_calls is 1 and 1 were used";
    assert_eq!(done["stop_reason"], "budget");
    assert_budget_error(&p, message);
    assert!(tool_result(&p).contains(message), "{}", tool_result(&p));
}

#[test]
fn an_assign_task_childs_calls_count_on_the_parents_budget() {
    let server = FakeServer::start();
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"tools": [], "team": true, "budget": {"max_model_calls": 2}}),
    );
    server.enqueue(call(
        "c_t",
        "assignTask",
        json!({"templateId": "general", "jobDescription": "Add 2 and 2"}),
    ));
    server.enqueue(text("4"));
    server.enqueue(text("never"));
    let done = p.turn("delegate");
    assert_eq!(server.requests().len(), 2);
    assert_eq!(
        tool_result(&p),
        r#"{"response":"4","templateId":"general"}"#
    );
    assert_eq!(done["stop_reason"], "budget");
    assert_budget_error(&p, "budget exceeded: max_model_calls is 2 and 2 were used");
}

#[test]
fn a_prompt_hook_the_budget_refuses_is_not_asked_and_the_turn_stops() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    let rt = runtime(&server, json!({}));
    let hook = json!({"type": "prompt", "prompt": "Is this safe?"});
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Read"], "budget": {"max_model_calls": 1},
               "hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [hook]}]}}),
    );
    server.enqueue(call(
        "c_r",
        "Read",
        json!({"filePath": dir.path().join("a.txt")}),
    ));
    server.enqueue(text("{\"ok\": true}"));
    server.enqueue(text("never"));
    let done = p.turn("read");
    // The hook's question would have been call 2: never sent.
    assert_eq!(server.requests().len(), 1);
    assert_eq!(done["stop_reason"], "budget");
    assert_budget_error(&p, "budget exceeded: max_model_calls is 1 and 1 were used");
}

#[test]
fn a_prompt_hooks_call_is_counted() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    let rt = runtime(&server, json!({}));
    let hook = json!({"type": "prompt", "prompt": "Is this safe?"});
    let mut p = Parent::open(
        &rt,
        json!({"cwd": dir.path(), "tools": ["Read"], "budget": {"max_model_calls": 2},
               "hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [hook]}]}}),
    );
    server.enqueue(call(
        "c_r",
        "Read",
        json!({"filePath": dir.path().join("a.txt")}),
    ));
    server.enqueue(text("{\"ok\": true}"));
    server.enqueue(text("never"));
    let done = p.turn("read");
    assert_eq!(server.requests().len(), 2);
    assert!(tool_result(&p).contains('x'), "{}", tool_result(&p));
    assert_eq!(done["stop_reason"], "budget");
    assert_budget_error(&p, "budget exceeded: max_model_calls is 2 and 2 were used");
}

#[test]
fn a_compaction_summary_is_charged_with_its_usage_and_refused_past_the_budget() {
    let server = FakeServer::start();
    let rt = runtime(&server, json!({}));
    let mut p = Parent::open(
        &rt,
        json!({"tools": [], "budget": {"max_total_tokens": 100}}),
    );
    server.enqueue(Reply::openai(&Turn::text(["hello"]).usage(10, 5)));
    server.enqueue(Reply::openai(&Turn::text(["the summary"]).usage(80, 20)));
    assert_eq!(p.turn("hi")["stop_reason"], "complete");
    p.session.wait(0, Some(WAIT)).unwrap();
    // The summary call is made (the budget is not exhausted yet) and charged: 115 tokens.
    let c = p.session.compact("").unwrap().unwrap();
    assert_eq!(c.summary, "the summary");
    let spent = p.session.budget().unwrap().spent();
    assert_eq!((spent.model_calls, spent.total_tokens), (2, 115));
    let message = "budget exceeded: max_total_tokens is 100 and 115 were used";
    assert_refused(&p, message);
    // The next summary is refused before its call.
    match p.session.compact("") {
        Ok(Err(CompactError::Budget(m))) => assert_eq!(m, message),
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 2);
}
