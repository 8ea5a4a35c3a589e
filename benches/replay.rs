//! Record/replay: replaying a recorded 10-round session (10 tool rounds and the final answer:
//! 11 model calls) — reading and checking the recording, building the agent, running the turn
//! with strict request checks — against the same turn on the scripted provider.
//! Run: `cargo bench --bench replay` (prints medians; target: replay ≤ 2 ms).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::provider::Provider;
use robota_engine::core::tool::{ClosureTool, Tool};
use robota_engine::providers::recording::recorder::RecordingProvider;
use robota_engine::providers::recording::replay::{ReplayProfile, ReplayProvider};
use robota_engine::providers::scripted::ScriptedProvider;
use serde_json::json;

const ROUNDS: usize = 10;
const RUNS: usize = 300;

fn scripted() -> Arc<dyn Provider> {
    let mut turns: Vec<serde_json::Value> = (0..ROUNDS)
        .map(|i| json!({"deltas":["Looking ", format!("at item {i}.")],
                        "tool_calls":[{"id":format!("call_{i}"),"name":"lookup","arguments":{"key":i}}],
                        "usage":{"input_tokens":100 + i,"output_tokens":12}}))
        .collect();
    turns.push(json!({"deltas":["All ","done."],"usage":{"input_tokens":200,"output_tokens":3}}));
    Arc::new(ScriptedProvider::from_json(&json!({ "turns": turns })).expect("script"))
}

fn agent(provider: Arc<dyn Provider>) -> Agent {
    let tool: Arc<dyn Tool> = Arc::new(ClosureTool::new(
        "lookup",
        "Looks a key up",
        json!({"type":"object"}),
        |args| Ok(json!(format!("value of {}", args["key"]))),
    ));
    let mut cfg = AgentConfig::new(provider, "bench-model");
    cfg.system_message = Some("You are a benchmark.".into());
    cfg.tools = vec![tool];
    cfg.max_execution_rounds = Some(0);
    Agent::new(cfg).expect("agent")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time_runs(rt: &tokio::runtime::Runtime, make: impl Fn() -> Agent) -> Duration {
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t = Instant::now();
        let a = make();
        let r = rt
            .block_on(a.run("go", RunOptions::default()))
            .expect("run");
        assert_eq!(r.response, "All done.");
        times.push(t.elapsed());
    }
    median(times)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("session.jsonl");
    let recorder = RecordingProvider::open(scripted(), &file).expect("recorder");
    let r = rt
        .block_on(agent(Arc::new(recorder)).run("go", RunOptions::default()))
        .expect("record");
    assert_eq!(r.rounds as usize, ROUNDS + 1);
    let bytes = std::fs::metadata(&file).expect("recording").len();
    let profile = |strict: bool| {
        ReplayProfile::parse(
            "replay",
            &json!({"kind":"replay","file": Path::new(&file),"strict": strict}),
        )
        .expect("profile")
    };
    let replay = |strict: bool| {
        time_runs(&rt, || {
            agent(Arc::new(
                ReplayProvider::open(profile(strict)).expect("recording"),
            ))
        })
    };
    let strict = replay(true);
    let loose = replay(false);
    let baseline = time_runs(&rt, || agent(scripted()));
    println!(
        "replay: {ROUNDS}-round session ({} model calls, recording {bytes} bytes): strict {:.3} ms, \
         non-strict {:.3} ms (median of {RUNS}; target ≤ 2 ms); same turn on the scripted provider {:.3} ms",
        ROUNDS + 1,
        strict.as_secs_f64() * 1e3,
        loose.as_secs_f64() * 1e3,
        baseline.as_secs_f64() * 1e3
    );
}
