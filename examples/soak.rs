//! Soak: one process, 1,000 live sessions (a third each on Anthropic, OpenAI and Gemini wire
//! formats) running turns with a host tool and random aborts against the fake model server,
//! through the C ABI, for a given time; sessions are freed and replaced after 5–15 turns so
//! memory must return to a steady state. Samples resident memory, open fds and threads, and
//! prints the RSS slope after warm-up and the accounting of every turn.
//!
//! ```sh
//! nice cargo run --release --example soak -- --minutes 10        # docs/reliability.md "Soak"
//! cargo run --release --example soak -- --seconds 30 --sessions 200   # smoke run
//! ```
//! Options: `--minutes N` / `--seconds N` (run time, default 10 min), `--sessions N` (live
//! sessions, default 1000), `--turns N` (keep going until at least N turns, default 100000),
//! `--inflight N` (turns running at once, default 64), `--abort-percent P` (default 10).
//! Exits non-zero when a turn is unaccounted for, failed, or a history invariant broke.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

#[allow(dead_code)]
#[path = "../tests/support"]
mod support {
    pub mod fake_cache;
    pub mod fake_http;
    pub mod fake_reply;
    pub mod fake_server;
    pub mod fake_wire;
    pub mod invariants;
}

use std::collections::VecDeque;
use std::ffi::{c_char, c_void, CString};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};
use serde_json::{json, Value};
use support::fake_server::{FakeServer, RecordedRequest, Reply, Turn};

const KINDS: [&str; 3] = ["anthropic", "openai", "gemini"];

struct Opts {
    run: Duration,
    sessions: usize,
    turns: u64,
    inflight: usize,
    abort_percent: u32,
}

fn opts() -> Opts {
    let mut o = Opts {
        run: Duration::from_secs(600),
        sessions: 1000,
        turns: 100_000,
        inflight: 64,
        abort_percent: 10,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let v = pair.get(1).and_then(|v| v.parse::<u64>().ok());
        let Some(v) = v else {
            eprintln!("usage: soak [--minutes N|--seconds N] [--sessions N] [--turns N] [--inflight N] [--abort-percent P]");
            std::process::exit(2);
        };
        match pair[0].as_str() {
            "--minutes" => o.run = Duration::from_secs(v * 60),
            "--seconds" => o.run = Duration::from_secs(v),
            "--sessions" => o.sessions = v as usize,
            "--turns" => o.turns = v,
            "--inflight" => o.inflight = v as usize,
            "--abort-percent" => o.abort_percent = v as u32,
            other => {
                eprintln!("unknown option {other}");
                std::process::exit(2);
            }
        }
    }
    o
}

/// What a session's callback reports: (slot, generation, stop_reason).
type Done = (usize, u64, String);

struct Slot {
    session: *mut robota_session,
    /// Boxed callback context (freed by the library's free_fn).
    generation: u64,
    turns_left: u32,
    running: Option<u64>,
}

struct Ctx {
    slot: usize,
    generation: u64,
    tx: Mutex<Sender<Done>>,
}

unsafe extern "C" fn on_event(
    ud: *mut c_void,
    _s: *mut robota_session,
    kind: u32,
    _turn: u64,
    payload: *const c_char,
    len: usize,
) {
    if kind != ROBOTA_EVENT_TURN_COMPLETED {
        return;
    }
    // SAFETY: `ud` is the `Ctx` boxed for this session; the library frees it (free_ctx) only
    // after the session's last callback.
    let ctx = unsafe { &*(ud as *const Ctx) };
    // SAFETY: the library passes `len` readable bytes at `payload` for this call.
    let bytes = unsafe { std::slice::from_raw_parts(payload as *const u8, len) };
    let v = serde_json::from_slice::<Value>(bytes).unwrap_or(Value::Null);
    let mut stop = v["stop_reason"]
        .as_str()
        .unwrap_or("unparsable")
        .to_string();
    if let Some(m) = v["error_details"]["message"].as_str() {
        stop = format!("{stop}: {m}");
    }
    let _ = ctx
        .tx
        .lock()
        .unwrap()
        .send((ctx.slot, ctx.generation, stop));
}

unsafe extern "C" fn free_ctx(ud: *mut c_void) {
    // SAFETY: `ud` came from Box::into_raw in `new_session`; the library calls this once.
    drop(unsafe { Box::from_raw(ud as *mut Ctx) });
}

static RT: AtomicU64 = AtomicU64::new(0);
static TOOL_CALLS: AtomicU64 = AtomicU64::new(0);

unsafe extern "C" fn on_tool(
    _ud: *mut c_void,
    _s: *mut robota_session,
    call_id: u64,
    _name: *const c_char,
    _input: *const c_char,
    _n: usize,
) {
    TOOL_CALLS.fetch_add(1, Ordering::Relaxed);
    let rt = RT.load(Ordering::Relaxed) as *mut robota_runtime;
    robota_tool_call_complete(rt, call_id, c"\"pong\"".as_ptr(), 0, null_mut());
}

/// The fake model: a tool call first, the answer once the last message is a tool result;
/// a tenth of the replies stream slowly so random aborts also land mid-stream.
fn respond(req: &RecordedRequest, ids: &AtomicU64) -> Reply {
    let kind = if req.path.contains("/v1/messages") {
        "anthropic"
    } else if req.path.contains(":streamGenerateContent") {
        "gemini"
    } else {
        "openai"
    };
    let last = req
        .body
        .get("messages")
        .or_else(|| req.body.get("contents"))
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .map(Value::to_string)
        .unwrap_or_default();
    let answered = last.contains("tool_result")
        || last.contains("\"role\":\"tool\"")
        || last.contains("functionResponse");
    let turn = if answered {
        Turn::text(["The ", "tool ", "said ", "pong."])
    } else {
        let id = format!("call_{}", ids.fetch_add(1, Ordering::Relaxed));
        Turn::text(["Checking."]).tool(&id, "ping", r#"{"n":1}"#)
    };
    let reply = Reply::for_kind(kind, &turn);
    if fastrand::u32(0..10) == 0 {
        reply.delay_each_ms(fastrand::u64(1..5))
    } else {
        reply
    }
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u64>().ok())
        })
        .map_or(0, |pages| pages * 4)
}

fn fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

fn threads() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Threads:"))
                .and_then(|l| l[8..].trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Least-squares slope of `(x, y)` points.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let num: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = points.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    if den == 0.0 {
        0.0
    } else {
        num / den
    }
}

fn main() {
    let o = opts();
    let server = FakeServer::start();
    let ids = AtomicU64::new(0);
    server.respond_with(move |req| respond(req, &ids));
    let mut providers = serde_json::Map::new();
    for kind in KINDS {
        let mut p = server.provider_config(kind);
        p["timeout_ms"] = json!(30000);
        providers.insert(kind.to_string(), p);
    }
    let config = CString::new(json!({"v": 1, "providers": providers}).to_string()).unwrap();
    let mut rt = null_mut();
    assert_eq!(
        robota_runtime_new(config.as_ptr(), &mut rt, null_mut()),
        ROBOTA_OK
    );
    RT.store(rt as u64, Ordering::Relaxed);
    let tool = CString::new(
        r#"{"name":"ping","description":"answers pong","read_only":true,"input_schema":{"type":"object"}}"#,
    )
    .unwrap();
    assert_eq!(
        robota_runtime_register_tool(
            rt,
            tool.as_ptr(),
            Some(on_tool),
            null_mut(),
            None,
            null_mut()
        ),
        ROBOTA_OK
    );

    let (tx, rx) = channel::<Done>();
    let mut created = 0u64;
    let new_session = |slot: usize, created: &mut u64| -> Slot {
        *created += 1;
        let generation = *created;
        let kind = KINDS[slot % 3];
        let json = CString::new(format!(r#"{{"v":1,"provider":"{kind}","model":"m"}}"#)).unwrap();
        let ctx = Box::into_raw(Box::new(Ctx {
            slot,
            generation,
            tx: Mutex::new(tx.clone()),
        }));
        let mut s = null_mut();
        let st = robota_session_new(
            rt,
            json.as_ptr(),
            Some(on_event),
            ctx as *mut c_void,
            Some(free_ctx),
            &mut s,
            null_mut(),
        );
        assert_eq!(st, ROBOTA_OK, "session_new");
        Slot {
            session: s,
            generation,
            turns_left: fastrand::u32(5..=15),
            running: None,
        }
    };
    let mut slots: Vec<Slot> = (0..o.sessions)
        .map(|i| new_session(i, &mut created))
        .collect();
    let input = CString::new(r#"{"text":"ping the tool"}"#).unwrap();

    let (mut submitted, mut completed, mut aborted_asked) = (0u64, 0u64, 0u64);
    let mut stops: std::collections::BTreeMap<String, u64> = Default::default();
    let mut ready: VecDeque<usize> = (0..o.sessions).collect();
    let mut aborts: Vec<(Instant, usize, u64)> = Vec::new();
    let start = Instant::now();
    let (rss0, fds0, threads0) = (rss_kb(), fds(), threads());
    let mut samples: Vec<(f64, u64, usize, usize, u64)> = Vec::new();
    let mut next_sample = start;
    let mut inflight = 0usize;
    let stopping = |completed: u64| start.elapsed() >= o.run && completed >= o.turns;
    loop {
        // Submit while under the in-flight cap.
        while inflight < o.inflight && !stopping(completed) {
            let Some(i) = ready.pop_front() else { break };
            let slot = &mut slots[i];
            let mut turn = 0u64;
            let st = robota_session_submit(slot.session, input.as_ptr(), &mut turn, null_mut());
            assert_eq!(st, ROBOTA_OK, "submit");
            slot.running = Some(turn);
            submitted += 1;
            inflight += 1;
            if fastrand::u32(0..100) < o.abort_percent {
                let at = Instant::now() + Duration::from_micros(fastrand::u64(0..8000));
                aborts.push((at, i, turn));
            }
        }
        let now = Instant::now();
        aborts.retain(|(at, i, turn)| {
            if *at > now {
                return true;
            }
            if slots[*i].running == Some(*turn) {
                robota_session_abort(slots[*i].session, *turn);
                aborted_asked += 1;
            }
            false
        });
        if now >= next_sample {
            let t = start.elapsed().as_secs_f64();
            samples.push((t, rss_kb(), fds(), threads(), completed));
            eprintln!(
                "[{:>6.0}s] turns {completed:>7}  rss {:>7} KB  fds {:>4}  threads {:>4}",
                t,
                rss_kb(),
                fds(),
                threads()
            );
            next_sample = now + Duration::from_secs(10);
        }
        if inflight == 0 && stopping(completed) {
            break;
        }
        let Ok((i, generation, stop)) = rx.recv_timeout(Duration::from_millis(1)) else {
            continue;
        };
        let slot = &mut slots[i];
        assert_eq!(
            slot.generation, generation,
            "a completion for a freed session"
        );
        assert!(slot.running.take().is_some(), "a completion without a turn");
        inflight -= 1;
        completed += 1;
        if stops.len() < 20 || stops.contains_key(&stop) {
            *stops.entry(stop).or_default() += 1;
        } else {
            *stops.entry("other".into()).or_default() += 1;
        }
        slot.turns_left -= 1;
        if slot.turns_left == 0 {
            robota_session_free(slot.session);
            *slot = new_session(i, &mut created);
        }
        ready.push_back(i);
    }
    let elapsed = start.elapsed();
    // Settle: idle pool connections and freed sessions' threads go away.
    let (rss1, fds1, threads1) = (rss_kb(), fds(), threads());
    for s in &slots {
        robota_session_free(s.session);
    }
    robota_runtime_free(rt);
    // Everything freed: threads and fds go back to the start (the server's connections close
    // once the client's did).
    let settle = Instant::now();
    while (threads() > threads0 || fds() > fds0) && settle.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let (fds2, threads2) = (fds(), threads());

    // RSS slope after warm-up (the first fifth of the run).
    let warm = elapsed.as_secs_f64() / 5.0;
    let pts: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.0 >= warm)
        .map(|s| (s.0 / 60.0, s.1 as f64))
        .collect();
    let rss_slope = slope(&pts);
    let fd_pts: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.0 >= warm)
        .map(|s| (s.0 / 60.0, s.2 as f64))
        .collect();
    let th_pts: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.0 >= warm)
        .map(|s| (s.0 / 60.0, s.3 as f64))
        .collect();
    let after_warm = samples.iter().find(|s| s.0 >= warm).copied();
    let violations = server.violations();
    let report = json!({
        "minutes": (elapsed.as_secs_f64() / 60.0 * 100.0).round() / 100.0,
        "live_sessions": o.sessions,
        "sessions_created": created,
        "turns_submitted": submitted,
        "turns_completed": completed,
        "turns_per_second": (completed as f64 / elapsed.as_secs_f64()).round(),
        "stop_reasons": stops,
        "aborts_requested": aborted_asked,
        "tool_calls": TOOL_CALLS.load(Ordering::Relaxed),
        "model_requests": server.responded(),
        "history_violations": violations.len(),
        "rss_kb": {"start": rss0, "after_warmup": after_warm.map(|s| s.1), "end": rss1,
                   "slope_kb_per_min_after_warmup": (rss_slope * 10.0).round() / 10.0},
        "fds": {"start": fds0, "after_warmup": after_warm.map(|s| s.2), "end": fds1, "after_free": fds2,
                "slope_per_min": (slope(&fd_pts) * 100.0).round() / 100.0},
        "threads": {"start": threads0, "after_warmup": after_warm.map(|s| s.3), "end": threads1, "after_free": threads2,
                    "slope_per_min": (slope(&th_pts) * 100.0).round() / 100.0},
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
    let failed: u64 = stops
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "complete" | "aborted"))
        .map(|(_, v)| *v)
        .sum();
    if submitted != completed
        || failed > 0
        || !violations.is_empty()
        || fds2 > fds0
        || threads2 > threads0
    {
        eprintln!(
            "FAILED: {submitted} submitted, {completed} completed, {failed} not ended normally, \
             fds {fds0} -> {fds2}, threads {threads0} -> {threads2} after free, violations: {violations:?}"
        );
        std::process::exit(1);
    }
    drop(server);
}
