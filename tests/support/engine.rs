//! Shared helpers for engine tests: scripted agents, recording tools, event capture.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::events::{ExecutionEventFn, TextDeltaFn};
use robota_engine::core::tool::{Tool, ToolContext, ToolResult};
use robota_engine::providers::scripted::ScriptedProvider;
use serde_json::{json, Value};

/// A scripted provider from a JSON list of turns.
pub fn scripted(turns: Value) -> Arc<ScriptedProvider> {
    Arc::new(ScriptedProvider::from_json(&json!({ "turns": turns })).expect("valid script"))
}

/// A scripted provider with a fallback mode.
pub fn scripted_with(turns: Value, fallback: &str) -> Arc<ScriptedProvider> {
    Arc::new(
        ScriptedProvider::from_json(&json!({ "turns": turns, "fallback": fallback }))
            .expect("valid script"),
    )
}

/// An agent over `provider` with `tools`.
pub fn agent(
    provider: Arc<ScriptedProvider>,
    tools: Vec<Arc<dyn Tool>>,
    f: impl FnOnce(&mut AgentConfig),
) -> Agent {
    let mut cfg = AgentConfig::new(provider, "test-model");
    cfg.tools = tools;
    f(&mut cfg);
    Agent::new(cfg).expect("valid config")
}

/// A tool that records its calls, optionally sleeps, and answers `result`.
pub struct TestTool {
    pub name: String,
    pub schema: Value,
    pub result: ToolResult,
    pub delay: Duration,
    pub calls: Mutex<Vec<Value>>,
    pub active: AtomicUsize,
    pub peak: AtomicUsize,
}

impl TestTool {
    pub fn new(name: &str, result: ToolResult) -> Arc<Self> {
        Self::slow(name, result, Duration::ZERO)
    }

    pub fn slow(name: &str, result: ToolResult, delay: Duration) -> Arc<Self> {
        Arc::new(TestTool {
            name: name.to_string(),
            schema: json!({"type":"object","properties":{}}),
            result,
            delay,
            calls: Mutex::new(Vec::new()),
            active: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        })
    }

    pub fn call_count(&self) -> usize {
        self.calls.lock().unwrap().len()
    }
}

#[async_trait]
impl Tool for TestTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "test tool"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.calls.lock().unwrap().push(args.clone());
        let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        if !self.delay.is_zero() {
            // Delay derived from args when given (lets tests finish calls out of order).
            let ms = args
                .get("delay_ms")
                .and_then(Value::as_u64)
                .map_or(self.delay, Duration::from_millis);
            tokio::select! {
                _ = tokio::time::sleep(ms) => {}
                _ = ctx.cancel.cancelled() => {}
            }
        }
        self.active.fetch_sub(1, Ordering::SeqCst);
        match &self.result {
            Ok(Value::String(s)) if s == "$echo" => Ok(json!(format!("echo:{}", args))),
            other => other.clone(),
        }
    }
}

/// Collects events and deltas of a run.
#[derive(Default, Clone)]
pub struct Capture {
    pub events: Arc<Mutex<Vec<(String, Value)>>>,
    pub deltas: Arc<Mutex<Vec<String>>>,
}

impl Capture {
    pub fn options(&self) -> RunOptions {
        let ev = self.events.clone();
        let on_event: ExecutionEventFn = Arc::new(move |name: &str, data: &Value| {
            ev.lock().unwrap().push((name.to_string(), data.clone()));
        });
        let de = self.deltas.clone();
        let on_text: TextDeltaFn = Arc::new(move |d: &str| de.lock().unwrap().push(d.to_string()));
        RunOptions {
            on_event: Some(on_event),
            on_text_delta: Some(on_text),
            ..Default::default()
        }
    }

    pub fn names(&self) -> Vec<String> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .map(|(n, _)| n.clone())
            .collect()
    }

    pub fn of(&self, name: &str) -> Vec<Value> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, d)| d.clone())
            .collect()
    }

    pub fn text(&self) -> String {
        self.deltas.lock().unwrap().concat()
    }
}

/// `n` turns that each call `tool` once with id `call_0`.
pub fn tool_turns(n: usize, tool: &str) -> Vec<Value> {
    (0..n)
        .map(|_| json!({"tool_calls":[{"id":"call_0","name":tool,"arguments":{}}]}))
        .collect()
}

/// Waits until `cond` holds (checked every millisecond, up to 10 s) — how tests synchronise on
/// "the tool started" or "the provider was called" instead of guessing with a sleep.
pub async fn until(what: &str, cond: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}
