//! Engine benchmark: CPU cost per model/tool round (scripted provider, one no-op tool call per
//! round, no I/O) and the memory of an idle conversation.
//! Run: `cargo bench --bench engine --no-default-features` (the memory figures count heap bytes
//! with this bench's own global allocator, which the library's default mimalloc allocator would
//! replace; with default features the bench times the rounds and skips the memory report).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::message::Message;
use robota_engine::core::store::ConversationStore;
use robota_engine::core::tool::{ClosureTool, Tool};
use robota_engine::providers::scripted::ScriptedProvider;
use serde_json::json;

/// Live heap bytes, counted by [`counting::Counting`] (without the library's mimalloc).
static LIVE: AtomicIsize = AtomicIsize::new(0);

#[cfg(not(feature = "mimalloc"))]
mod counting {
    use super::LIVE;
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::Ordering;

    /// Counts live heap bytes so the bench can report memory per conversation.
    pub(super) struct Counting;

    // SAFETY: every method delegates to the system allocator with the caller's arguments and
    // only adds an atomic counter, so the GlobalAlloc contract is the system allocator's.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
            // SAFETY: same layout contract as the caller's.
            unsafe { System.alloc(l) }
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
            // SAFETY: `p` was allocated by `System` with layout `l`.
            unsafe { System.dealloc(p, l) }
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;
}

const ROUNDS: usize = 10;

fn script(rounds: usize) -> serde_json::Value {
    let mut turns: Vec<serde_json::Value> = (0..rounds)
        .map(|_| json!({"tool_calls":[{"id":"call_0","name":"noop","arguments":{}}]}))
        .collect();
    turns.push(json!({"deltas":["all ","done"]}));
    json!({ "turns": turns })
}

fn agent(rounds: usize) -> Agent {
    let provider = Arc::new(ScriptedProvider::from_json(&script(rounds)).expect("script"));
    let tool: Arc<dyn Tool> = Arc::new(ClosureTool::new(
        "noop",
        "does nothing",
        json!({"type":"object"}),
        |_| Ok(json!("ok")),
    ));
    let mut cfg = AgentConfig::new(provider, "bench-model");
    cfg.system_message = Some("You are a benchmark.".into());
    cfg.tools = vec![tool];
    cfg.max_execution_rounds = Some(0);
    Agent::new(cfg).expect("agent")
}

fn bench_rounds(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut g = c.benchmark_group("engine");
    g.bench_function(format!("turn_with_{ROUNDS}_tool_rounds"), |b| {
        b.iter_batched(
            || agent(ROUNDS),
            |a| rt.block_on(async { a.run("go", RunOptions::default()).await.expect("run") }),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("turn_text_only", |b| {
        b.iter_batched(
            || agent(0),
            |a| rt.block_on(async { a.run("go", RunOptions::default()).await.expect("run") }),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn report_memory(_c: &mut Criterion) {
    if cfg!(feature = "mimalloc") {
        println!("memory: not counted with the library's mimalloc allocator on: run `cargo bench --bench engine --no-default-features`");
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let provider = Arc::new(ScriptedProvider::from_json(&json!({"turns":[]})).expect("script"));
    let before = LIVE.load(Ordering::Relaxed);
    let mut cfg = AgentConfig::new(provider, "bench-model");
    cfg.system_message = Some("You are a benchmark.".into());
    let a = Agent::new(cfg).expect("agent");
    let idle = LIVE.load(Ordering::Relaxed) - before;
    for i in 0..50 {
        rt.block_on(a.run(format!("message number {i}"), RunOptions::default()))
            .expect("run");
    }
    let after = LIVE.load(Ordering::Relaxed) - before;
    let msgs = a.messages().len() as isize;
    let json_bytes: usize = a
        .messages()
        .iter()
        .map(|m| serde_json::to_string(m.as_ref()).map_or(0, |s| s.len()))
        .sum();
    println!("memory: idle agent (system prompt only) = {idle} bytes");
    history_overhead();
    println!(
        "memory: after 50 echo turns ({msgs} messages, {json_bytes} bytes as JSON) = {after} bytes, {} bytes/message",
        (after - idle) / (msgs - 1)
    );
}

/// Heap bytes a history holds per message beyond the message's own JSON text (ids, state,
/// timestamps, the store's per-message bookkeeping, vector slack), over 1,000 messages.
fn history_overhead() {
    const N: usize = 1000;
    let before = LIVE.load(Ordering::Relaxed);
    let mut store = ConversationStore::new();
    for i in 0..N {
        let m = if i % 2 == 0 {
            Message::user(format!("question {i}: what does module {i} do?"))
        } else {
            Message::assistant(format!(
                "Module {i} parses the configuration, validates it and hands it to the runtime."
            ))
        };
        store.append(m);
    }
    let heap = (LIVE.load(Ordering::Relaxed) - before) as usize;
    let json: usize = store
        .messages()
        .iter()
        .map(|m| serde_json::to_string(m.as_ref()).map_or(0, |s| s.len()))
        .sum();
    println!(
        "memory: history of {N} messages = {heap} heap bytes, {json} bytes as JSON: {} bytes per message beyond its JSON",
        heap.saturating_sub(json) / N
    );
    drop(store);
}

criterion_group!(benches, bench_rounds, report_memory);
criterion_main!(benches);
