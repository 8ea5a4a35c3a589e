//! Tool batch execution (results in call order, unknown tools never run): bounded parallelism,
//! call order, sequential mode, abort skips.

use crate::support::engine as common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use robota_engine::core::execution::{
    execute_batch, BatchContext, BatchMode, ToolRequest, INTERRUPTED_TOOL_ERROR,
};
use robota_engine::core::tool::{DirectDispatcher, Tool, ToolDispatcher};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn requests(delays: &[u64]) -> Vec<ToolRequest> {
    delays
        .iter()
        .enumerate()
        .map(|(i, d)| ToolRequest {
            call_id: format!("c{i}"),
            tool_name: "slow".into(),
            arguments: Ok(json!({"delay_ms": d, "i": i})),
        })
        .collect()
}

async fn run(
    tool: &Arc<TestTool>,
    reqs: &[ToolRequest],
    mode: BatchMode,
    width: usize,
    cancel: &CancellationToken,
) -> Vec<robota_engine::core::execution::ToolRunResult> {
    let tools: Vec<Arc<dyn Tool>> = vec![tool.clone()];
    let dispatcher: Arc<dyn ToolDispatcher> = Arc::new(DirectDispatcher);
    let batch = BatchContext {
        tools: &tools,
        dispatcher: &dispatcher,
        mode,
        max_concurrency: width,
        cancel,
        execution_id: "exec",
        round: 1,
    };
    execute_batch(reqs, &batch).await
}

#[tokio::test]
async fn parallel_respects_max_concurrency_and_keeps_call_order() {
    let tool = TestTool::slow("slow", Ok(json!("$echo")), Duration::from_millis(1));
    // Later calls finish first.
    let reqs = requests(&[120, 90, 60, 30, 10]);
    let results = run(
        &tool,
        &reqs,
        BatchMode::Parallel,
        2,
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(tool.peak.load(std::sync::atomic::Ordering::SeqCst), 2);
    let order: Vec<i64> = results
        .iter()
        .map(|r| {
            let s = r
                .result
                .as_ref()
                .unwrap()
                .as_str()
                .unwrap()
                .trim_start_matches("echo:")
                .to_string();
            serde_json::from_str::<serde_json::Value>(&s).unwrap()["i"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(order, vec![0, 1, 2, 3, 4]);
}

#[tokio::test]
async fn default_width_is_five_and_zero_clamps_to_one() {
    let tool = TestTool::slow("slow", Ok(json!("ok")), Duration::from_millis(1));
    let reqs = requests(&[50, 50, 50, 50, 50, 50, 50]);
    run(
        &tool,
        &reqs,
        BatchMode::Parallel,
        robota_engine::core::agent::DEFAULT_MAX_CONCURRENCY,
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(tool.peak.load(std::sync::atomic::Ordering::SeqCst), 5);

    let tool = TestTool::slow("slow", Ok(json!("ok")), Duration::from_millis(1));
    run(
        &tool,
        &requests(&[20, 20, 20]),
        BatchMode::Parallel,
        0,
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(tool.peak.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn sequential_runs_one_at_a_time() {
    let tool = TestTool::slow("slow", Ok(json!("ok")), Duration::from_millis(1));
    let results = run(
        &tool,
        &requests(&[20, 20, 20]),
        BatchMode::Sequential,
        5,
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(tool.peak.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(results.iter().all(|r| r.success));
}

#[tokio::test]
async fn abort_skips_what_has_not_started() {
    let tool = TestTool::slow("slow", Ok(json!("ok")), Duration::from_millis(1));
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    let started = tool.clone();
    tokio::spawn(async move {
        until("two tools to start", || started.call_count() == 2).await;
        c2.cancel();
    });
    let results = run(
        &tool,
        &requests(&[30_000, 30_000, 30_000, 30_000]),
        BatchMode::Parallel,
        2,
        &cancel,
    )
    .await;
    assert_eq!(tool.call_count(), 2, "only the first two started");
    assert!(
        results[0].success && results[1].success,
        "running tools finish (cooperatively)"
    );
    for r in &results[2..] {
        assert!(!r.success);
        assert_eq!(r.error.as_deref(), Some(INTERRUPTED_TOOL_ERROR));
    }
}

#[tokio::test]
async fn unknown_tools_in_a_batch_are_reported_not_run() {
    let tool = TestTool::new("slow", Ok(json!("ok")));
    let reqs = vec![
        ToolRequest {
            call_id: "a".into(),
            tool_name: "nope".into(),
            arguments: Ok(json!({})),
        },
        ToolRequest {
            call_id: "b".into(),
            tool_name: "slow".into(),
            arguments: Ok(json!({})),
        },
    ];
    let results = run(
        &tool,
        &reqs,
        BatchMode::Parallel,
        5,
        &CancellationToken::new(),
    )
    .await;
    assert!(results[0].is_unknown_tool());
    assert_eq!(results[0].metadata["availableTools"], json!(["slow"]));
    assert!(results[1].success);
    assert_eq!(tool.call_count(), 1);
}
