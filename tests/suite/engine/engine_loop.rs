//! Execution loop (10 rounds by default, then a forced summary without tools; ports of Robota's
//! execution-service tests) on the scripted provider: round caps, forced summaries, provider
//! errors, idle timeouts, the system message, history and usage. Tool rounds are in
//! `engine_loop_tools`.

use std::sync::Arc;

use common::*;
use robota_engine::core::agent::RunOptions;
use robota_engine::core::execution::{
    RunStop, FORCED_SUMMARY_FALLBACK, FORCED_SUMMARY_INSTRUCTION,
};
use robota_engine::core::message::Role;
use robota_engine::core::tool::Tool;
use serde_json::{json, Value};

use crate::support::engine as common;

fn turns_then(mut turns: Vec<Value>, last: Value) -> Value {
    turns.push(last);
    Value::Array(turns)
}

#[tokio::test]
async fn default_cap_is_ten_rounds_plus_forced_summary() {
    let p = scripted(turns_then(
        tool_turns(10, "t"),
        json!({"text":"forced answer"}),
    ));
    let tool = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p.clone(), vec![tool.clone() as Arc<dyn Tool>], |_| {});
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(p.call_count(), 11);
    assert_eq!(tool.call_count(), 10);
    assert_eq!(r.response, "forced answer");
    assert_eq!(r.stop, RunStop::MaxRounds);
    assert_eq!(r.rounds, 10);
    let reqs = p.requests();
    let forced = reqs.last().unwrap();
    assert!(forced.tools.is_empty(), "forced call must not offer tools");
    let last = forced.messages.last().unwrap();
    assert_eq!(last.role, Role::User);
    assert_eq!(last.content, FORCED_SUMMARY_INSTRUCTION);
    assert!(
        last.content.contains("Tool round limit reached")
            && last.content.contains("follow-up message")
    );
    assert!(reqs[0].tools.len() == 1, "normal rounds offer tools");
    // The synthetic instruction never lands in history.
    assert!(a
        .messages()
        .iter()
        .all(|m| m.content != FORCED_SUMMARY_INSTRUCTION));
    let last = a.messages().last().unwrap().clone();
    assert_eq!(last.role, Role::Assistant);
    assert_eq!(last.content, "forced answer");
}

#[tokio::test]
async fn run_option_wins_over_config_and_config_over_default() {
    // 11 tool rounds then an answer: fits under a cap of 12, not under the default 10.
    let p = scripted(turns_then(tool_turns(11, "t"), json!({"text":"done"})));
    let tool = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p.clone(), vec![tool.clone() as Arc<dyn Tool>], |c| {
        c.max_execution_rounds = Some(3)
    });
    let opts = RunOptions {
        max_execution_rounds: Some(12),
        ..Default::default()
    };
    let r = a.run("go", opts).await.unwrap();
    assert_eq!(p.call_count(), 12);
    assert_eq!(r.response, "done");
    assert_eq!(r.stop, RunStop::Complete);

    let p = scripted(turns_then(tool_turns(5, "t"), json!({"text":"summary"})));
    let a = agent(p.clone(), vec![tool.clone() as Arc<dyn Tool>], |c| {
        c.max_execution_rounds = Some(3)
    });
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(p.call_count(), 4, "3 rounds from config + forced call");
    assert_eq!(r.stop, RunStop::MaxRounds);
}

#[tokio::test]
async fn zero_means_unlimited() {
    let p = scripted(turns_then(tool_turns(15, "t"), json!({"text":"finally"})));
    let tool = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p.clone(), vec![tool.clone() as Arc<dyn Tool>], |c| {
        c.max_execution_rounds = Some(0)
    });
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(p.call_count(), 16);
    assert_eq!(r.response, "finally");
    assert_eq!(tool.call_count(), 15);
}

#[tokio::test]
async fn negative_round_cap_is_rejected() {
    let p = scripted(json!([]));
    let mut cfg = robota_engine::core::agent::AgentConfig::new(p.clone(), "m");
    cfg.max_execution_rounds = Some(-1);
    let err = robota_engine::core::agent::Agent::new(cfg).err().unwrap();
    assert_eq!(
        err.to_string(),
        "Validation Error: [EXECUTION] maxExecutionRounds must be a non-negative integer"
    );
    let a = agent(p.clone(), vec![], |_| {});
    let opts = RunOptions {
        max_execution_rounds: Some(-2),
        ..Default::default()
    };
    let err = a.run("x", opts).await.err().unwrap();
    assert_eq!(err.code(), "VALIDATION_ERROR");
    assert!(
        a.messages().is_empty(),
        "nothing stored on rejected options"
    );
    assert_eq!(p.call_count(), 0);
}

#[tokio::test]
async fn empty_forced_reply_gives_fallback_text() {
    let p = scripted(turns_then(tool_turns(2, "t"), json!({"text":""})));
    let tool = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p.clone(), vec![tool as Arc<dyn Tool>], |c| {
        c.max_execution_rounds = Some(2)
    });
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(r.response, FORCED_SUMMARY_FALLBACK);
    assert_eq!(
        r.response,
        "Maximum rounds reached. Partial results available in conversation history."
    );
    assert_eq!(
        a.messages().last().unwrap().content,
        FORCED_SUMMARY_FALLBACK
    );
}

#[tokio::test]
async fn forced_call_that_throws_answers_the_fallback() {
    let p = scripted(turns_then(
        tool_turns(1, "t"),
        json!({"error":{"message":"summary failed"}}),
    ));
    let tool = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p.clone(), vec![tool as Arc<dyn Tool>], |c| {
        c.max_execution_rounds = Some(1)
    });
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(p.call_count(), 2);
    assert_eq!(
        r.response,
        "Maximum rounds reached. Partial results available in conversation history."
    );
    // The failed forced call records the fallback as the answer.
    let roles: Vec<Role> = a.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    let last = a.messages().last().unwrap().clone();
    assert_eq!(last.content, FORCED_SUMMARY_FALLBACK);
    assert_eq!(
        last.metadata.as_ref().unwrap()["forcedSummary"],
        json!(true)
    );
}

#[tokio::test]
async fn empty_assistant_after_tool_results_triggers_forced_summary() {
    let p = scripted(json!([
        {"tool_calls":[{"id":"a","name":"t","arguments":{}}]},
        {"text":"   "},
        {"text":"here is the summary"}
    ]));
    let tool = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p.clone(), vec![tool as Arc<dyn Tool>], |_| {});
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(p.call_count(), 3);
    assert_eq!(r.response, "here is the summary");
    assert!(a.messages().iter().all(|m| !(m.role == Role::Assistant
        && m.content.trim().is_empty()
        && m.tool_calls.is_empty())));
}

#[tokio::test]
async fn provider_error_becomes_request_failed_message() {
    let p = scripted(json!([{"error":{"message":"HTTP 400 prompt too long"}}]));
    let a = agent(p.clone(), vec![], |_| {});
    let r = a.run("hi", RunOptions::default()).await.unwrap();
    assert_eq!(r.stop, RunStop::Error);
    assert_eq!(
        r.response,
        "Request failed: Provider Error (scripted): HTTP 400 prompt too long"
    );
    let last = a.messages().last().unwrap().clone();
    assert_eq!(last.meta("providerError"), Some(&json!(true)));
    assert_eq!(last.meta("round"), Some(&json!(1)));
    assert_eq!(
        p.call_count(),
        1,
        "no forced summary after a provider error"
    );
}

#[tokio::test]
async fn idle_timeout_fails_a_silent_provider() {
    let p = scripted(json!([{"hang":true}]));
    let a = agent(p.clone(), vec![], |c| c.timeout_ms = Some(50));
    let r = a.run("hi", RunOptions::default()).await.unwrap();
    assert!(
        r.response
            .contains("Request failed: Provider call idle timeout after 50ms"),
        "{}",
        r.response
    );
    assert_eq!(r.stop, RunStop::Error);
    assert!(!r.interrupted);
}

#[tokio::test]
async fn idle_timeout_resets_on_every_delta() {
    // 8 deltas, 80 ms apart = 640 ms in all, longer than the 400 ms idle timeout.
    let deltas: Vec<String> = (0..8).map(|i| format!("d{i} ")).collect();
    let p = scripted(json!([{"deltas": deltas, "delay_ms": 80}]));
    let a = agent(p.clone(), vec![], |c| c.timeout_ms = Some(400));
    let r = a.run("hi", RunOptions::default()).await.unwrap();
    assert_eq!(r.response, "d0 d1 d2 d3 d4 d5 d6 d7 ");
    assert_eq!(r.stop, RunStop::Complete);
}

#[tokio::test]
async fn system_message_is_single_and_reaches_the_provider() {
    let p = scripted_with(json!([]), "echo");
    let a = agent(p.clone(), vec![], |c| {
        c.system_message = Some("You are terse.".into())
    });
    assert_eq!(
        a.run("verify-run", RunOptions::default())
            .await
            .unwrap()
            .response,
        "offline:verify-run"
    );
    a.run("second", RunOptions::default()).await.unwrap();
    let msgs = a.messages();
    assert_eq!(msgs.iter().filter(|m| m.role == Role::System).count(), 1);
    assert_eq!(msgs[0].role, Role::System);
    assert_eq!(msgs[0].content, "You are terse.");
    assert_eq!(msgs.len(), 5, "system + 2 × (user, assistant)");
    assert_eq!(a.message_count(), 5);
    for req in p.requests() {
        assert_eq!(req.messages[0].content, "You are terse.");
    }
    a.update_config(|c| c.system_message = Some("Changed.".into()))
        .unwrap();
    let msgs = a.messages();
    assert_eq!(msgs[0].content, "Changed.");
    assert_eq!(msgs.iter().filter(|m| m.role == Role::System).count(), 1);
}

#[tokio::test]
async fn history_accumulates_and_injected_messages_are_visible() {
    let p = scripted_with(json!([]), "echo");
    let a = agent(p.clone(), vec![], |_| {});
    a.run("one", RunOptions::default()).await.unwrap();
    a.run("two", RunOptions::default()).await.unwrap();
    assert_eq!(a.messages().len(), 4);
    a.inject_message(robota_engine::core::message::Message::user("injected note"));
    a.run("three", RunOptions::default()).await.unwrap();
    let last_req = p.requests().last().unwrap().clone();
    assert!(last_req
        .messages
        .iter()
        .any(|m| m.content == "injected note"));
    assert_eq!(a.messages().len(), 7);
}

#[tokio::test]
async fn usage_is_recorded_in_canonical_metadata() {
    let p = scripted(json!([{"text":"hi","usage":{"input_tokens":120,"output_tokens":7}}]));
    let a = agent(p, vec![], |_| {});
    let r = a.run("x", RunOptions::default()).await.unwrap();
    let m = a.messages().last().unwrap().clone();
    assert_eq!(m.meta("inputTokens"), Some(&json!(120)));
    assert_eq!(m.meta("outputTokens"), Some(&json!(7)));
    assert_eq!(
        m.meta("usage"),
        Some(&json!({"totalTokens":127,"inputTokens":120,"outputTokens":7}))
    );
    assert_eq!(r.usage.unwrap().input_tokens, 120);
}
