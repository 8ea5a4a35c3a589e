//! Pre-send hard-capacity guard (a call estimated above 95 % is blocked) and the 80 % tool-result
//! budget (results past it are replaced by the skip message).

use crate::support::engine as common;

use std::sync::Arc;

use common::*;
use robota_engine::core::agent::RunOptions;
use robota_engine::core::execution::{RunStop, ToolResultsOutcome, CONTEXT_SKIP_MESSAGE};
use robota_engine::core::message::Role;
use robota_engine::core::tokens::estimate_serialized_tokens;
use robota_engine::core::tool::Tool;
use robota_engine::core::util::format_thousands;
use serde_json::json;

#[tokio::test]
async fn near_capacity_blocks_before_the_call_with_diagnostics() {
    let p = scripted(json!([{"text":"never"}]));
    let a = agent(p.clone(), vec![], |c| c.context_window = Some(1000));
    let big = "x".repeat(5000);
    let r = a.run(big.as_str(), RunOptions::default()).await.unwrap();
    assert_eq!(p.call_count(), 0);
    assert_eq!(r.stop, RunStop::ContextLimit);
    let msgs = a.messages();
    let est = estimate_serialized_tokens(&msgs[..1]);
    let pct = est as f64 / 1000.0 * 100.0;
    let expected = format!(
        "Context window is near capacity. Cannot process further in this round. Estimated {} / 1,000 tokens ({}%) exceeds the hard-block threshold 95%. Compact the conversation (the \"compact\" command) and retry.",
        format_thousands(est),
        pct.round() as u64
    );
    assert_eq!(r.response, expected);
    let diag = msgs.last().unwrap().clone();
    assert_eq!(diag.role, Role::Assistant);
    assert_eq!(diag.meta("contextOverflow"), Some(&json!(true)));
    assert_eq!(diag.meta("estimatedTokens"), Some(&json!(est)));
    assert_eq!(diag.meta("contextLimit"), Some(&json!(1000)));
    assert_eq!(diag.meta("thresholdTokens"), Some(&json!(950)));
    assert_eq!(diag.meta("thresholdPercentage"), Some(&json!(95)));
    assert_eq!(diag.meta("serializedTokens"), Some(&json!(est)));
    assert_eq!(diag.meta("providerTokens"), Some(&json!(0)));
    assert_eq!(diag.meta("usageFloorTokens"), Some(&json!(0)));
    assert_eq!(
        diag.meta("usedPercentage"),
        Some(&json!((pct * 100.0).round() / 100.0))
    );
}

#[tokio::test]
async fn eighty_k_of_two_hundred_k_does_not_block() {
    let p = scripted(json!([{"text":"fine"}]));
    let a = agent(p.clone(), vec![], |_| {});
    let big = "y".repeat(320_000);
    let r = a.run(big.as_str(), RunOptions::default()).await.unwrap();
    assert_eq!(r.response, "fine");
    assert_eq!(p.call_count(), 1);
}

#[tokio::test]
async fn provider_usage_floor_beats_the_char_estimate() {
    let p = scripted(json!([
        {"tool_calls":[{"id":"a","name":"t"}],"usage":{"input_tokens":960,"output_tokens":5}},
        {"text":"never"}
    ]));
    let t = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p.clone(), vec![t as Arc<dyn Tool>], |c| {
        c.context_window = Some(1000)
    });
    let r = a.run("small", RunOptions::default()).await.unwrap();
    assert_eq!(p.call_count(), 1, "round 2 is blocked by the usage floor");
    assert_eq!(r.stop, RunStop::ContextLimit);
    let diag = a.messages().last().unwrap().clone();
    assert_eq!(diag.meta("usageFloorTokens"), Some(&json!(960)));
    // max(serialized, latest provider usage 960+5, floor 960)
    assert_eq!(diag.meta("providerTokens"), Some(&json!(965)));
    assert_eq!(diag.meta("estimatedTokens"), Some(&json!(965)));
    assert!(diag.content.starts_with("Context window is near capacity."));
}

#[tokio::test]
async fn tool_results_past_eighty_percent_are_skipped_and_the_loop_continues() {
    let p = scripted(json!([
        {"tool_calls":[
            {"id":"a","name":"big"},
            {"id":"b","name":"small"},
            {"id":"c","name":"small"}
        ]},
        {"text":"answered from partial results"}
    ]));
    let big = TestTool::new("big", Ok(json!("z".repeat(13_000))));
    let small = TestTool::new("small", Ok(json!("tiny")));
    let a = agent(
        p.clone(),
        vec![big as Arc<dyn Tool>, small.clone() as Arc<dyn Tool>],
        |c| c.context_window = Some(4000),
    );
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(p.call_count(), 2, "the loop goes on after the overflow");
    assert_eq!(r.response, "answered from partial results");
    assert_eq!(
        r.tool_outcomes,
        vec![ToolResultsOutcome {
            context_overflowed: true,
            added_count: 1,
            skipped_count: 2
        }]
    );
    let tools: Vec<_> = a
        .messages()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .cloned()
        .collect();
    assert_eq!(tools.len(), 3);
    assert_eq!(tools[0].content.len(), 13_000);
    for t in &tools[1..] {
        assert_eq!(t.content, CONTEXT_SKIP_MESSAGE);
        assert_eq!(
            t.content,
            "Error: Context window near capacity. Tool execution result skipped. Respond with available results and re-request skipped tools if needed."
        );
        assert_eq!(t.meta("error"), Some(&json!("context_overflow")));
        assert_eq!(t.meta("success"), Some(&json!(false)));
        assert_eq!(t.meta("toolName"), Some(&json!("small")));
    }
    // The next request saw the mix of real and skipped results.
    let sent = &p.requests()[1].messages;
    assert_eq!(
        sent.iter()
            .filter(|m| m.content == CONTEXT_SKIP_MESSAGE)
            .count(),
        2
    );
}

#[tokio::test]
async fn results_under_budget_are_all_added() {
    let p = scripted(
        json!([{"tool_calls":[{"id":"a","name":"small"},{"id":"b","name":"small"}]}, {"text":"ok"}]),
    );
    let small = TestTool::new("small", Ok(json!("tiny")));
    let a = agent(p, vec![small as Arc<dyn Tool>], |_| {});
    let r = a.run("go", RunOptions::default()).await.unwrap();
    assert_eq!(
        r.tool_outcomes,
        vec![ToolResultsOutcome {
            context_overflowed: false,
            added_count: 2,
            skipped_count: 0
        }]
    );
}
