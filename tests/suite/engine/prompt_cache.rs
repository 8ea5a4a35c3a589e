//! Prompt caching end to end on the fake server, which applies the vendors' documented caching
//! rules: Anthropic breakpoints read the previous round's prefix back, OpenAI requests carry
//! the session's `prompt_cache_key`; the measured reads and writes reach `turn_completed`'s
//! usage and the budget's cost; `prompt_cache` is checked and inherited by subagents.

use std::time::Duration;

use robota_engine::core::models::model_price;
use robota_engine::sdk::config::parse_session_config;
use robota_engine::sdk::interactive::TurnInput;
use serde_json::{json, Value};

use crate::support::fake_server::{CacheRules, FakeServer, PromptUsage, Reply, Turn};
use crate::support::host_session::{recorded_session, runtime};
use crate::support::subagent_host::{self, Parent};

const ROUNDS: usize = 4;

/// A four-round tool session of `kind` under `prompt_cache` (`None`: the default) on a server
/// simulating the prompt cache: `(turn_completed, the session's cost in micro-USD, requests'
/// bodies, the measured usage of each request)`.
fn cached_session(
    kind: &str,
    model: &str,
    prompt_cache: Option<&str>,
) -> (Value, u64, Vec<Value>, Vec<PromptUsage>) {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    server.simulate_prompt_cache(CacheRules::scaled_down(8));
    for i in 0..ROUNDS - 1 {
        let file = dir.path().join(format!("f{i}.txt"));
        std::fs::write(&file, format!("contents of file {i}\n").repeat(8)).unwrap();
        let args = json!({ "filePath": file }).to_string();
        let turn = Turn::default()
            .tool(&format!("c{i}"), "Read", &args)
            .usage(0, 7);
        server.enqueue(Reply::turn(kind, turn));
    }
    server.enqueue(Reply::turn(kind, Turn::text(["done"]).usage(0, 3)));
    let rt = runtime(server.provider_config(kind));
    let mut cfg = json!({"provider":"p","model":model,"tools":["Read"],"cwd":dir.path(),
                         "system_prompt": "Answer with care. ".repeat(60),
                         "budget": {"max_cost_usd": 10}, "max_rounds": 50});
    if let Some(c) = prompt_cache {
        cfg["prompt_cache"] = json!(c);
    }
    let (session, seen) = recorded_session(&rt, &cfg).unwrap();
    let turn = session
        .submit(TurnInput::from_json(r#"{"text":"go"}"#).unwrap())
        .unwrap();
    session.wait(turn, Some(Duration::from_secs(30))).unwrap();
    let cost = session.budget().unwrap().spent().cost_micro_usd;
    session.close();
    let done = seen.json(robota_engine::sdk::events::TURN_COMPLETED);
    let bodies = server.requests().into_iter().map(|r| r.body).collect();
    (done[0].clone(), cost, bodies, server.prompt_usage())
}

/// The cost of the calls at `model`'s list price, 1h writes at twice the input price.
fn expected_cost(model: &str, calls: &[(u64, u64, u64, u64)], one_hour: bool) -> u64 {
    let p = model_price(model).unwrap();
    let write = if one_hour {
        2.0 * p.input
    } else {
        p.cache_write
    };
    calls
        .iter()
        .map(|&(input, read, written, output)| {
            (input as f64 * p.input
                + read as f64 * p.cache_read
                + written as f64 * write
                + output as f64 * p.output)
                .ceil() as u64
        })
        .sum()
}

fn outputs() -> impl Iterator<Item = u64> {
    std::iter::repeat_n(7, ROUNDS - 1).chain([3])
}

#[test]
fn anthropic_rounds_read_the_previous_prefix_and_usage_and_cost_show_it() {
    let model = "claude-sonnet-4-5";
    let (done, cost, bodies, measured) = cached_session("anthropic", model, None);
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(measured.len(), ROUNDS, "{done}");
    // Round 1 writes what later rounds read; from round 2 on, the prefix is read back.
    assert_eq!(measured[0].read, 0);
    assert!(measured[0].written > 200, "{measured:?}");
    for (i, m) in measured.iter().enumerate().skip(1) {
        assert_eq!(
            m.read,
            measured[i - 1].read + measured[i - 1].written,
            "round {i}: {measured:?}"
        );
        assert!(m.written > 0 && m.uncached() == 0, "{m:?}");
    }
    let sum = |f: fn(&PromptUsage) -> u64| measured.iter().map(f).sum::<u64>();
    assert_eq!(
        done["usage"],
        json!({"input_tokens": sum(PromptUsage::uncached), "output_tokens": 24,
               "total_tokens": sum(|m| m.prompt) + 24,
               "cache_read_tokens": sum(|m| m.read),
               "cache_creation_tokens": sum(|m| m.written)})
    );
    let calls: Vec<_> = measured
        .iter()
        .zip(outputs())
        .map(|(m, o)| (m.uncached(), m.read, m.written, o))
        .collect();
    assert_eq!(cost, expected_cost(model, &calls, false));
    // The breakpoints as sent: the system block and the newest user messages.
    assert_eq!(
        bodies[2]["system"][0]["cache_control"],
        json!({"type":"ephemeral"})
    );
    let last = bodies[2]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["content"][0]["cache_control"],
        json!({"type":"ephemeral"})
    );
}

#[test]
fn anthropic_one_hour_ttl_costs_twice_the_input_for_writes_and_off_caches_nothing() {
    let model = "claude-sonnet-4-5";
    let (done, cost, bodies, measured) = cached_session("anthropic", model, Some("1h"));
    assert_eq!(
        bodies[0]["system"][0]["cache_control"],
        json!({"type":"ephemeral","ttl":"1h"})
    );
    let calls: Vec<_> = measured
        .iter()
        .zip(outputs())
        .map(|(m, o)| (m.uncached(), m.read, m.written, o))
        .collect();
    assert_eq!(cost, expected_cost(model, &calls, true));
    assert!(done["usage"]["cache_read_tokens"].as_u64().unwrap() > 0);

    let (off, off_cost, bodies, measured) = cached_session("anthropic", model, Some("off"));
    assert!(!bodies
        .iter()
        .any(|b| b.to_string().contains("cache_control")));
    assert!(measured.iter().all(|m| m.read == 0 && m.written == 0));
    assert_eq!(off["usage"]["cache_read_tokens"], 0);
    assert_eq!(off["usage"]["cache_creation_tokens"], 0);
    assert!(off_cost > cost, "{off_cost} > {cost}");
}

#[test]
fn openai_requests_carry_the_session_key_and_cached_tokens_are_billed_as_reads() {
    let model = "gpt-4.1";
    let (done, cost, bodies, measured) = cached_session("openai", model, None);
    let key = bodies[0]["prompt_cache_key"].as_str().unwrap().to_string();
    // The session's id: the same on every call of the session.
    assert!(key.starts_with("session_"), "{key}");
    assert!(bodies.iter().all(|b| b["prompt_cache_key"] == key.as_str()));
    assert_eq!(measured[0].read, 0);
    assert!(
        measured[1..].iter().all(|m| m.read > 0),
        "{measured:?} {done}"
    );
    let sum = |f: fn(&PromptUsage) -> u64| measured.iter().map(f).sum::<u64>();
    assert_eq!(done["usage"]["input_tokens"], sum(PromptUsage::uncached));
    assert_eq!(done["usage"]["cache_read_tokens"], sum(|m| m.read));
    assert_eq!(done["usage"]["total_tokens"], sum(|m| m.prompt) + 24);
    let calls: Vec<_> = measured
        .iter()
        .zip(outputs())
        .map(|(m, o)| (m.uncached(), m.read, 0, o))
        .collect();
    assert_eq!(cost, expected_cost(model, &calls, false));
    let (_, _, bodies, _) = cached_session("openai", model, Some("off"));
    assert!(bodies.iter().all(|b| b.get("prompt_cache_key").is_none()));
}

#[test]
fn prompt_cache_values_other_than_the_three_names_are_refused() {
    for (v, shown) in [
        (json!("2h"), "\"2h\""),
        (json!(true), "true"),
        (json!(5), "5"),
    ] {
        let cfg = json!({"provider":"p","model":"m","prompt_cache": v}).to_string();
        let err = parse_session_config(&cfg).expect_err("refused").to_string();
        assert!(
            err.contains(&format!(
                "field \"prompt_cache\" must be \"5m\", \"1h\" or \"off\", got {shown}"
            )),
            "{err}"
        );
    }
    for ok in ["5m", "1h", "off"] {
        let cfg = json!({"provider":"p","model":"m","prompt_cache": ok}).to_string();
        assert!(parse_session_config(&cfg).is_ok(), "{ok}");
    }
}

#[test]
fn subagents_inherit_the_parents_prompt_cache_setting() {
    for (setting, keyed) in [(json!("off"), false), (json!("5m"), true)] {
        let server = FakeServer::start();
        let dir = tempfile::tempdir().unwrap();
        let rt = subagent_host::runtime(&server, json!({}));
        let mut p = Parent::open(
            &rt,
            json!({"cwd": dir.path(), "tools": ["Read", "Agent"], "prompt_cache": setting}),
        );
        server.enqueue(subagent_host::call(
            "call_1",
            "Agent",
            json!({"prompt": "look", "subagent_type": "Explore"}),
        ));
        server.enqueue(subagent_host::text("seen"));
        server.enqueue(subagent_host::text("ok"));
        p.turn("go");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 3);
        for r in &reqs {
            assert_eq!(r.body.get("prompt_cache_key").is_some(), keyed, "{setting}");
        }
    }
}

#[test]
fn the_forced_summary_at_the_round_limit_keeps_the_sessions_breakpoints() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "alpha\n").unwrap();
    let server = FakeServer::start();
    server.simulate_prompt_cache(CacheRules::scaled_down(8));
    let args = json!({ "filePath": file }).to_string();
    server.enqueue(Reply::turn(
        "anthropic",
        Turn::default().tool("c0", "Read", &args),
    ));
    server.enqueue(Reply::turn("anthropic", Turn::text(["Summary."])));
    let rt = runtime(server.provider_config("anthropic"));
    let cfg = json!({"provider":"p","model":"claude-sonnet-4-5","tools":["Read"],
                     "cwd": dir.path(), "max_rounds": 1, "prompt_cache": "1h",
                     "system_prompt": "Answer with care. ".repeat(60)});
    let (session, seen) = recorded_session(&rt, &cfg).unwrap();
    let turn = session
        .submit(TurnInput::from_json(r#"{"text":"go"}"#).unwrap())
        .unwrap();
    session.wait(turn, Some(Duration::from_secs(30))).unwrap();
    session.close();
    let done = seen.json(robota_engine::sdk::events::TURN_COMPLETED);
    assert_eq!(done[0]["response"], "Summary.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let summary = &reqs[1].body;
    let one_hour = json!({"type":"ephemeral","ttl":"1h"});
    let msgs = summary["messages"].as_array().unwrap();
    // The instruction joins the tool result's user message: its last block is marked, and
    // so is the prompt before it.
    let last = msgs.last().unwrap()["content"].as_array().unwrap();
    assert_eq!(last.last().unwrap()["cache_control"], one_hour);
    assert_eq!(msgs[0]["content"][0]["cache_control"], one_hour);
    // Sent without tools, its prefix differs from the rounds' (tools come first): it writes
    // an entry of its own rather than reading theirs.
    let measured = server.prompt_usage();
    assert_eq!(
        (measured[1].read, measured[1].written),
        (0, measured[1].prompt)
    );
    assert!(summary.get("tools").is_none());
}

#[test]
fn rounds_after_a_compaction_carry_the_sessions_breakpoints_again() {
    let server = FakeServer::start();
    server.enqueue(Reply::turn("anthropic", Turn::text(["First answer."])));
    server.enqueue(Reply::turn("anthropic", Turn::text(["Summary."])));
    server.enqueue(Reply::turn("anthropic", Turn::text(["Second answer."])));
    let rt = runtime(server.provider_config("anthropic"));
    let cfg = json!({"provider":"p","model":"claude-sonnet-4-5","tools":["Read"],
                     "prompt_cache": "1h", "system_prompt": "Answer with care."});
    let (session, _seen) = recorded_session(&rt, &cfg).unwrap();
    for text in ["one", "two"] {
        let input = TurnInput::from_json(&json!({ "text": text }).to_string()).unwrap();
        let turn = session.submit(input).unwrap();
        session.wait(turn, Some(Duration::from_secs(30))).unwrap();
        if text == "one" {
            session.compact("").unwrap().unwrap();
        }
    }
    session.close();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    // The summary request is a one-off: no breakpoint (a cache write nothing reads back).
    assert!(!reqs[1].body.to_string().contains("cache_control"));
    // The round after it marks the tools, the system prompt and the newest user message again.
    let after = &reqs[2].body;
    let one_hour = json!({"type":"ephemeral","ttl":"1h"});
    let tools = after["tools"].as_array().unwrap();
    assert_eq!(tools.last().unwrap()["cache_control"], one_hour);
    assert_eq!(after["system"][0]["cache_control"], one_hour);
    let msgs = after["messages"].as_array().unwrap();
    let last = msgs.last().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(
        last["content"].as_array().unwrap().last().unwrap()["cache_control"],
        one_hour
    );
    assert!(after.to_string().contains("Summary."), "{after}");
}
