//! Sessions that last: compaction cost beyond the model call (1,000-message history, the
//! scripted provider answers at once), `robota_store_list` over 10,000 saved sessions, and a
//! scripted turn through the C ABI with and without a transcript.
//! Run: `cargo bench --bench store` (`-- turn_transcript` with `STORE_BENCH_ROUNDS`,
//! `STORE_BENCH_TURNS`, `STORE_BENCH_ONLY=no|tmpfs|disk`: fewer turns or one variant, e.g. under
//! callgrind; `STORE_BENCH_IDLE_US`: an idle pause after each free, in every variant;
//! `STORE_BENCH_SESSION=one`: a round's turns in one session instead of a fresh one per turn;
//! `STORE_BENCH_PLACE=free|same|split`: the host thread and the runtime's threads — worker and
//! transcript writer — where the scheduler likes (default), all on one CPU, or the host on the
//! first CPU and the others on the second; see `common/placement.rs`). After the table, each
//! transcript variant's bytes per turn and the kernel's floor for them: the same bytes appended
//! with plain `write` + `fdatasync` (`common/append_floor.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::ffi::CString;
use std::ptr::null_mut;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};
use robota_engine::core::message::Message;
use robota_engine::core::store::ConversationStore;
use robota_engine::providers::scripted::ScriptedProvider;
use robota_engine::session::{CompactTrigger, Session, SessionOptions};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[path = "common/append_floor.rs"]
mod append_floor;
#[allow(dead_code)] // the floor and handoff benches use the rest
#[path = "common/placement.rs"]
mod placement;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn history(n: usize) -> ConversationStore {
    let mut store = ConversationStore::new();
    store.append(Message::system("You are a benchmark."));
    for i in 0..n {
        if i % 2 == 0 {
            store.append(Message::user(format!(
                "question {i}: what does module {i} do?"
            )));
        } else {
            store.append(Message::assistant(format!(
                "Module {i} parses the configuration, validates it and hands it to the runtime; see src/mod_{i}.rs."
            )));
        }
    }
    store
}

fn compaction(cr: &mut Criterion) {
    if !selected("compact_1000_messages") {
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let provider = Arc::new(
        ScriptedProvider::from_json(&json!({"turns": [], "fallback": "repeat_last"})).unwrap(),
    );
    let dir = std::env::temp_dir();
    let mut g = cr.benchmark_group("store");
    g.sample_size(30).measurement_time(Duration::from_secs(3));
    g.bench_function("compact_1000_messages", |b| {
        b.iter_batched(
            || {
                let mut o = SessionOptions::new(provider.clone(), "bench-model");
                o.cwd = dir.clone();
                o.history = Some(history(1000));
                Session::new(o).unwrap()
            },
            |s| {
                rt.block_on(s.compact(None, CompactTrigger::Manual, &CancellationToken::new()))
                    .unwrap()
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn saved_session(id: &str, cwd: &str, i: usize) -> String {
    let messages: Vec<serde_json::Value> = (0..20)
        .map(|k| json!({"id": format!("m{k}"), "role": if k % 2 == 0 {"user"} else {"assistant"},
                        "content": format!("message {k} of session {i} with some ordinary length text"),
                        "state": "complete", "timestamp": "2026-01-01T00:00:00.000Z"}))
        .collect();
    let doc = json!({
        "v": 1, "kind": "robota.session", "session_id": id, "name": format!("session {i}"),
        "cwd": cwd, "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": format!("2026-01-01T00:{:02}:{:02}.{:03}Z", i / 6000 % 60, i / 100 % 60, i % 1000),
        "message_count": 10,
        "config": {"provider": "s", "model": "m", "cwd": cwd},
        "session_allowed_tools": [], "messages": messages, "history": [],
    });
    serde_json::to_string_pretty(&doc).unwrap()
}

/// Whether the command line's filter (`cargo bench --bench store -- FILTER`) selects a
/// benchmark named `store/<name>…`: the setup of those not selected is skipped.
fn selected(name: &str) -> bool {
    match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        None => true,
        Some(f) => format!("store/{name}").contains(&f) || f.contains(name),
    }
}

fn list(cr: &mut Criterion) {
    if !selected("store_list_10000_sessions") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for i in 0..10_000 {
        let id = format!("s-{i:05}");
        std::fs::write(
            dir.path().join(format!("{id}.json")),
            saved_session(&id, "/w", i),
        )
        .unwrap();
    }
    let cfg =
        json!({"v":1,"providers":{"s":{"kind":"scripted"}},"session_dir": dir.path()}).to_string();
    let mut rt: *mut robota_runtime = null_mut();
    assert_eq!(
        robota_runtime_new(c(&cfg).as_ptr(), &mut rt, null_mut()),
        ROBOTA_OK
    );
    let mut g = cr.benchmark_group("store");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("store_list_10000_sessions", |b| {
        b.iter(|| {
            let mut out = null_mut();
            assert_eq!(
                robota_store_list(rt, std::ptr::null(), &mut out, null_mut()),
                ROBOTA_OK
            );
            robota_string_free(out);
        })
    });
    g.bench_function("store_list_10000_sessions_limit_20", |b| {
        let q = c(r#"{"limit":20}"#);
        b.iter(|| {
            let mut out = null_mut();
            assert_eq!(
                robota_store_list(rt, q.as_ptr(), &mut out, null_mut()),
                ROBOTA_OK
            );
            robota_string_free(out);
        })
    });
    g.finish();
    robota_runtime_free(rt);
}

/// User + system CPU time of this process (all threads: the turn's workers and the transcript
/// writer), in nanoseconds.
fn cpu_ns() -> i64 {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1_000_000_000
        + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1_000
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One variant's figures for one round, in µs: median wall time of submit → wait, CPU time
/// (all threads) from submit to wait per turn, and — what a turn costs in all — wall and CPU
/// time (all threads) per turn from the round's first turn until its lines are on disk (the
/// session freed and the transcript writer settled: its formatting, writes and fsyncs are
/// mostly done between turns or after them, which the per-turn figures miss).
struct Round {
    wall: f64,
    cpu_turn: f64,
    all_wall: f64,
    all_cpu: f64,
}

/// Starts a round's whole-cost clocks.
fn round_start() -> (std::time::Instant, i64) {
    (std::time::Instant::now(), cpu_ns())
}

/// Ends a round: waits until every transcript line handed over so far is written, then
/// returns the round's wall and CPU time per turn (µs).
fn round_end(start: (std::time::Instant, i64), turns: usize) -> (f64, f64) {
    robota_engine::session::transcript::settle_all();
    let n = turns as f64;
    (
        start.0.elapsed().as_secs_f64() * 1e6 / n,
        (cpu_ns() - start.1) as f64 / 1e3 / n,
    )
}

/// A new session from `doc`.
fn open_session(rt: *mut robota_runtime, doc: &CString) -> *mut robota_session {
    let mut s: *mut robota_session = null_mut();
    assert_eq!(
        robota_session_new(rt, doc.as_ptr(), None, null_mut(), None, &mut s, null_mut()),
        ROBOTA_OK
    );
    s
}

/// One turn, submit → wait: its wall time (µs, pushed to `walls`) and CPU time (ns, returned).
fn timed_turn(s: *mut robota_session, input: &CString, walls: &mut Vec<f64>) -> i64 {
    let (t0, c0) = (std::time::Instant::now(), cpu_ns());
    let mut id = 0;
    assert_eq!(
        robota_session_submit(s, input.as_ptr(), &mut id, null_mut()),
        ROBOTA_OK
    );
    assert_eq!(robota_session_wait(s, id, 30_000, null_mut()), ROBOTA_OK);
    let cpu = cpu_ns() - c0;
    walls.push(t0.elapsed().as_secs_f64() * 1e6);
    cpu
}

fn run_round(rt: *mut robota_runtime, doc: &CString, input: &CString, turns: usize) -> Round {
    if one_session() {
        return run_round_in_one_session(rt, doc, input, turns);
    }
    let mut walls = Vec::with_capacity(turns);
    // `STORE_BENCH_IDLE_US=N`: every variant idles N µs after each free (a control for the
    // disk variant, whose free waits for fsyncs: does idling alone make the next turn slower?).
    let idle = std::env::var("STORE_BENCH_IDLE_US")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_micros);
    let (mut cpu_turn, start) = (0i64, round_start());
    for _ in 0..turns {
        let s = open_session(rt, doc);
        cpu_turn += timed_turn(s, input, &mut walls);
        robota_session_free(s);
        if let Some(d) = idle {
            std::thread::sleep(d);
        }
    }
    let (all_wall, all_cpu) = round_end(start, turns);
    Round {
        wall: median(&mut walls),
        cpu_turn: cpu_turn as f64 / 1e3 / turns as f64,
        all_wall,
        all_cpu,
    }
}

/// `STORE_BENCH_SESSION=one`: every turn of a round in one session (the transcript file is
/// opened once per round, as for a session that lasts) instead of a fresh session per turn.
fn one_session() -> bool {
    std::env::var("STORE_BENCH_SESSION").is_ok_and(|v| v == "one")
}

/// [`run_round`] with all `turns` in one session (created and freed outside the per-turn
/// figures; `cpu_whole` includes them).
fn run_round_in_one_session(
    rt: *mut robota_runtime,
    doc: &CString,
    input: &CString,
    turns: usize,
) -> Round {
    let mut walls = Vec::with_capacity(turns);
    let start = round_start();
    let s = open_session(rt, doc);
    let mut cpu_turn = 0i64;
    for _ in 0..turns {
        cpu_turn += timed_turn(s, input, &mut walls);
    }
    robota_session_free(s);
    let (all_wall, all_cpu) = round_end(start, turns);
    Round {
        wall: median(&mut walls),
        cpu_turn: cpu_turn as f64 / 1e3 / turns as f64,
        all_wall,
        all_cpu,
    }
}

/// A scripted turn (20 text deltas) through the C ABI, one fresh session per turn, without a
/// transcript, with one on tmpfs and with one on the disk. Variants alternate within each
/// round (so they share the machine's load); printed: the median over rounds of each round's
/// figures. Not a criterion benchmark: criterion measures wall time only.
fn transcript(_: &mut Criterion) {
    // `-- turn_transcript_tmpfs` leaves the disk out (e.g. to profile the tmpfs case alone).
    if !selected("turn_transcript") {
        return;
    }
    let tmpfs_only = std::env::args().any(|a| a == "turn_transcript_tmpfs");
    let deltas = vec!["\"word \""; 20].join(",");
    let cfg = format!(
        r#"{{"v":1,"providers":{{"s":{{"kind":"scripted","turns":[{{"deltas":[{deltas}]}}],"fallback":"repeat_last"}}}}}}"#
    );
    let place = std::env::var("STORE_BENCH_PLACE").map_or(placement::Place::Free, |p| {
        placement::Place::parse(&p).expect("STORE_BENCH_PLACE: free, same or split")
    });
    let (all_cpus, cpus) = (placement::allowed_cpus(), place.cpus());
    // The runtime's worker starts inside `robota_runtime_new`, and the transcript writer on
    // the worker: both keep the affinity of the thread that started them.
    placement::pin_current_thread(cpus.map(|c| c.1), &all_cpus);
    let mut rt: *mut robota_runtime = null_mut();
    assert_eq!(
        robota_runtime_new(c(&cfg).as_ptr(), &mut rt, null_mut()),
        ROBOTA_OK
    );
    placement::pin_current_thread(cpus.map(|c| c.0), &all_cpus);
    let disk = tempfile::tempdir().unwrap();
    let shm = tempfile::tempdir_in("/dev/shm").ok();
    let mut variants = vec![("no transcript", None)];
    if !tmpfs_only {
        variants.push(("transcript on disk", Some(disk.path())));
    }
    if let Some(d) = &shm {
        variants.insert(1, ("transcript on tmpfs", Some(d.path())));
    }
    // `STORE_BENCH_ONLY=no|tmpfs|disk`: that variant alone (to count its instructions).
    if let Ok(only) = std::env::var("STORE_BENCH_ONLY") {
        variants.retain(|(name, _)| name.contains(only.as_str()));
    }
    let docs: Vec<CString> = variants
        .iter()
        .map(|(_, dir)| {
            let mut doc = json!({"v":1,"provider":"s","model":"m"});
            if let Some(d) = dir {
                doc["transcript"] = json!(d);
            }
            c(&doc.to_string())
        })
        .collect();
    let input = c(r#"{"text":"go"}"#);
    // `STORE_BENCH_ROUNDS` / `STORE_BENCH_TURNS` (e.g. 1 and 50 under callgrind, whose
    // instruction counts do not depend on the machine's load).
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (rounds, turns) = (env("STORE_BENCH_ROUNDS", 7), env("STORE_BENCH_TURNS", 300));
    let warm_up = turns.min(50);
    for doc in &docs {
        run_round(rt, doc, &input, warm_up);
    }
    let mut all: Vec<Vec<Round>> = variants.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for (i, doc) in docs.iter().enumerate() {
            all[i].push(run_round(rt, doc, &input, turns));
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.trim_end();
    let mode = if one_session() {
        "one session per round"
    } else {
        "a fresh session per turn"
    };
    println!(
        "store/turn_transcript: {rounds} rounds x {turns} turns per variant ({mode}), placement {}, load {load}",
        place.as_str()
    );
    let med =
        |rs: &[Round], f: fn(&Round) -> f64| median(&mut rs.iter().map(f).collect::<Vec<_>>());
    let figures: [fn(&Round) -> f64; 4] =
        [|r| r.wall, |r| r.cpu_turn, |r| r.all_wall, |r| r.all_cpu];
    let base: Vec<f64> = figures.iter().map(|f| med(&all[0], *f)).collect();
    println!(
        "  {:<20} {:>22} {:>22} | {:>22} {:>22}",
        "", "turn wall (median)", "turn CPU", "all: wall per turn", "all: CPU per turn"
    );
    for ((name, _), rs) in variants.iter().zip(&all) {
        let figs: Vec<f64> = figures.iter().map(|f| med(rs, *f)).collect();
        let cell = |i: usize| {
            format!(
                "{:7.1} µs ({:+6.1} %)",
                figs[i],
                (figs[i] / base[i] - 1.0) * 100.0
            )
        };
        println!(
            "  {name:<20} {:>22} {:>22} | {:>22} {:>22}",
            cell(0),
            cell(1),
            cell(2),
            cell(3)
        );
    }
    robota_runtime_free(rt);
    // The kernel's floor: the same bytes per turn appended with plain write(2) and fsync(2),
    // as often as the writer did at the no-transcript turn's pace (its CPU is the part of
    // "all: CPU per turn" no library code can remove).
    let per_sync = (append_floor::POLL.as_secs_f64() * 1e6 / base[2]).round() as usize;
    for ((name, dir), rs) in variants.iter().zip(&all).skip(1) {
        let Some(dir) = dir else { continue };
        let per_turn = append_floor::bytes_per_turn(dir, rounds * turns + warm_up);
        let mut cpus: Vec<f64> = (0..rounds)
            .map(|_| {
                append_floor::append(dir, per_turn, turns, per_sync)
                    .unwrap()
                    .1
            })
            .collect();
        let (floor, added) = (median(&mut cpus), med(rs, |r| r.all_cpu) - base[3]);
        println!(
            "  {name}: {per_turn} B per turn; plain write + fsync (every {per_sync} turns) of them: \
             {floor:.1} µs CPU per turn ({:+.1} % of the no-transcript turn); the transcript adds {added:.1} µs",
            floor / base[3] * 100.0
        );
    }
}

criterion_group!(benches, compaction, list, transcript);
criterion_main!(benches);
