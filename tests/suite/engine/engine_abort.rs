//! Abort semantics (checked between rounds and before each queued tool): partial text committed as
//! interrupted, queued tools answered "Execution interrupted by user", the run returns normally
//! with `interrupted: true`.

use crate::support::engine as common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use robota_engine::core::agent::RunOptions;
use robota_engine::core::events::TextDeltaFn;
use robota_engine::core::execution::{BatchMode, RunStop, INTERRUPTED_TOOL_ERROR};
use robota_engine::core::message::{MessageState, Role, INTERRUPTED_SUFFIX};
use robota_engine::core::tool::Tool;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn abort_mid_stream_keeps_partial_text_as_interrupted() {
    let p = scripted(json!([{"deltas":["Hello ","wor"],"hang":true}, {"text":"next answer"}]));
    let a = agent(p.clone(), vec![], |_| {});
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    // Abort as soon as the second delta arrives.
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let s2 = seen.clone();
    let on_text: TextDeltaFn = Arc::new(move |_d: &str| {
        if s2.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 1 {
            c2.cancel();
        }
    });
    let opts = RunOptions {
        cancel: Some(cancel),
        on_text_delta: Some(on_text),
        ..Default::default()
    };
    let r = a.run("hi", opts).await.unwrap();
    assert!(r.interrupted);
    assert_eq!(r.stop, RunStop::Aborted);
    assert_eq!(r.response, "Hello wor");
    assert_eq!(p.call_count(), 1, "no forced summary after an abort");
    let last = a.messages().last().unwrap().clone();
    assert_eq!(last.role, Role::Assistant);
    assert_eq!(last.content, "Hello wor");
    assert_eq!(last.state, MessageState::Interrupted);
    // The next turn sends the interrupted suffix to the provider; history keeps the raw text.
    a.run("continue", RunOptions::default()).await.unwrap();
    let sent = &p.requests()[1].messages;
    let prev = sent.iter().find(|m| m.role == Role::Assistant).unwrap();
    assert_eq!(prev.content, format!("Hello wor{INTERRUPTED_SUFFIX}"));
    assert_eq!(
        prev.content,
        "Hello wor\n\n[This response was interrupted by the user]"
    );
    assert_eq!(a.messages()[1].content, "Hello wor");
}

#[tokio::test]
async fn abort_before_any_text_commits_an_empty_interrupted_message() {
    let p = scripted(json!([{"hang":true}]));
    let a = agent(p.clone(), vec![], |_| {});
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    let p2 = p.clone();
    tokio::spawn(async move {
        until("the provider call", || p2.call_count() == 1).await;
        c2.cancel();
    });
    let r = a
        .run(
            "hi",
            RunOptions {
                cancel: Some(cancel),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(r.interrupted);
    let msgs = a.messages();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[1].role, Role::Assistant);
    assert_eq!(msgs[1].content, "");
    assert_eq!(msgs[1].state, MessageState::Interrupted);
    assert_eq!(
        r.response,
        "No response received. The context window may be full."
    );
}

#[tokio::test]
async fn abort_during_tools_skips_queued_ones() {
    let p = scripted(json!([
        {"text":"working","tool_calls":[
            {"id":"a","name":"slow","arguments":{}},
            {"id":"b","name":"slow","arguments":{}},
            {"id":"c","name":"slow","arguments":{}}
        ]},
        {"text":"never"}
    ]));
    let slow = TestTool::slow("slow", Ok(json!("finished")), Duration::from_secs(30));
    let a = agent(p.clone(), vec![slow.clone() as Arc<dyn Tool>], |c| {
        c.batch_mode = BatchMode::Sequential
    });
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    let started = slow.clone();
    tokio::spawn(async move {
        until("the first tool to start", || started.call_count() == 1).await;
        c2.cancel();
    });
    let r = a
        .run(
            "go",
            RunOptions {
                cancel: Some(cancel),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(r.interrupted);
    assert_eq!(slow.call_count(), 1, "only the running tool started");
    let tools: Vec<String> = a
        .messages()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(tools.len(), 3, "every tool call has exactly one result");
    assert_eq!(tools[1], format!("Error: {INTERRUPTED_TOOL_ERROR}"));
    assert_eq!(tools[2], "Error: Execution interrupted by user");
    assert_eq!(p.call_count(), 1);
    let assistant = a
        .messages()
        .iter()
        .find(|m| m.role == Role::Assistant)
        .unwrap()
        .clone();
    assert_eq!(
        assistant.state,
        MessageState::Complete,
        "the round's text finished before the abort"
    );
}

#[tokio::test]
async fn cancelled_before_start_runs_nothing() {
    let p = scripted(json!([{"text":"x"}]));
    let a = agent(p.clone(), vec![], |_| {});
    let cancel = CancellationToken::new();
    cancel.cancel();
    let r = a
        .run(
            "hi",
            RunOptions {
                cancel: Some(cancel),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(r.interrupted);
    assert_eq!(p.call_count(), 0);
    assert_eq!(a.messages().len(), 1, "only the user message");
}
