//! Prompt caching, measured: a 20-round tool session (19 `Read` rounds, then the answer) on the
//! fake model server, which applies the vendors' documented caching rules to the requests it
//! receives (Anthropic breakpoints with the 1024-token minimum; OpenAI's automatic prefix cache
//! from 1024 tokens in 128-token steps, on Chat Completions and the Responses API; Gemini's
//! implicit cache from 1024 tokens; tokens approximated as bytes / 4). For each wire format
//! and `prompt_cache` setting it prints the input tokens billed at full price, read from the
//! cache and written to it, the share read from the cache after round 2, and the session's
//! cost at the model's list price (the budget's figure).
//!
//! Run: `cargo bench --bench cache`. A behaviour check, not a timing: it exits non-zero when a
//! caching configuration serves less than 80 % of the input tokens of rounds 3 to 20 from the
//! cache, or when `turn_completed`'s usage differs from what the server measured.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Duration;

use robota_engine::sdk::events::TURN_COMPLETED;
use robota_engine::sdk::interactive::TurnInput;
use serde_json::json;
use support::fake_server::{CacheRules, FakeServer, PromptUsage, Reply, Turn};
use support::host_session::{recorded_session, runtime};

const ROUNDS: usize = 20;
/// Share of the input tokens of rounds 3 and later a caching configuration must read from
/// the cache.
const GOAL: f64 = 0.80;

/// One configuration's figures.
struct Figures {
    prompt: u64,
    uncached: u64,
    read: u64,
    written: u64,
    share_after_2: f64,
    cost_micro_usd: u64,
}

/// Runs the session of `kind` on `model` under `prompt_cache`.
fn run(kind: &str, model: &str, prompt_cache: &str) -> Figures {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..ROUNDS {
        let line = format!("line of file {i}: the quick brown fox jumps over the lazy dog\n");
        std::fs::write(dir.path().join(format!("f{i}.txt")), line.repeat(30)).unwrap();
    }
    let server = FakeServer::start();
    server.simulate_prompt_cache(CacheRules::documented());
    for i in 0..ROUNDS - 1 {
        let path = dir.path().join(format!("f{i}.txt"));
        let args = json!({ "filePath": path }).to_string();
        let turn = Turn::text([format!("Reading file {i}.")])
            .tool(&format!("call_{i}"), "Read", &args)
            .usage(0, 40);
        server.enqueue(Reply::turn(kind, turn));
    }
    server.enqueue(Reply::turn(
        kind,
        Turn::text(["All files read."]).usage(0, 60),
    ));
    let rt = runtime(server.provider_config(kind));
    let system = "You are a careful coding agent. Read what you are asked to read, then \
                  summarise it precisely and briefly. "
        .repeat(60);
    let cfg = json!({"provider": "p", "model": model, "cwd": dir.path(),
                     "tools": ["Read", "Grep", "Glob"], "system_prompt": system,
                     "prompt_cache": prompt_cache, "budget": {"max_cost_usd": 1000},
                     "max_rounds": 50});
    let (session, seen) = recorded_session(&rt, &cfg).unwrap();
    let turn = session
        .submit(
            TurnInput::from_json(r#"{"text":"Read f0.txt to f18.txt, one per round."}"#).unwrap(),
        )
        .unwrap();
    session.wait(turn, Some(Duration::from_secs(120))).unwrap();
    let cost_micro_usd = session.budget().unwrap().spent().cost_micro_usd;
    session.close();
    let measured = server.prompt_usage();
    assert_eq!(
        measured.len(),
        ROUNDS,
        "{kind} {prompt_cache}: one request per round"
    );
    let done = seen.json(TURN_COMPLETED);
    assert_eq!(done[0]["stop_reason"], "complete");
    let sum = |f: fn(&PromptUsage) -> u64, from: usize| measured[from..].iter().map(f).sum::<u64>();
    let f = Figures {
        prompt: sum(|m| m.prompt, 0),
        uncached: sum(PromptUsage::uncached, 0),
        read: sum(|m| m.read, 0),
        written: sum(|m| m.written, 0),
        share_after_2: sum(|m| m.read, 2) as f64 / sum(|m| m.prompt, 2) as f64,
        cost_micro_usd,
    };
    let usage = &done[0]["usage"];
    let reported = (
        usage["input_tokens"].as_u64().unwrap(),
        usage["cache_read_tokens"].as_u64().unwrap(),
        usage["cache_creation_tokens"].as_u64().unwrap(),
    );
    if reported != (f.uncached, f.read, f.written) {
        eprintln!("{kind} {prompt_cache}: turn_completed usage {reported:?} differs from the measured one");
        std::process::exit(1);
    }
    f
}

fn main() {
    let configs = [
        ("anthropic", "claude-sonnet-4-5", "5m", true),
        ("anthropic", "claude-sonnet-4-5", "1h", true),
        ("anthropic", "claude-sonnet-4-5", "off", false),
        ("openai", "gpt-4.1", "5m", true),
        ("openai", "gpt-4.1", "off", false),
        ("openai-responses", "gpt-4.1", "5m", true),
        ("gemini", "gemini-2.5-flash", "5m", true),
    ];
    println!(
        "{ROUNDS}-round tool session; tokens ≈ bytes / 4; cost at the model's list price\n\
         {:<16} {:<18} {:<5} {:>8} {:>10} {:>8} {:>8} {:>13} {:>10}",
        "format",
        "model",
        "cache",
        "prompt",
        "full price",
        "cached",
        "written",
        "cached ≥ r3",
        "cost USD"
    );
    let mut missed = Vec::new();
    for (kind, model, cache, goal) in configs {
        let f = run(kind, model, cache);
        println!(
            "{kind:<16} {model:<18} {cache:<5} {:>8} {:>10} {:>8} {:>8} {:>12.1}% {:>10.4}",
            f.prompt,
            f.uncached,
            f.read,
            f.written,
            100.0 * f.share_after_2,
            f.cost_micro_usd as f64 / 1e6
        );
        if goal && f.share_after_2 < GOAL {
            missed.push(format!("{kind} {cache}: {:.1} %", 100.0 * f.share_after_2));
        }
    }
    if !missed.is_empty() {
        eprintln!(
            "goal missed (≥ {:.0} % of input tokens from the cache after round 2): {}",
            100.0 * GOAL,
            missed.join(", ")
        );
        std::process::exit(1);
    }
    println!(
        "goal met: ≥ {:.0} % of input tokens from the cache after round 2",
        100.0 * GOAL
    );
}
