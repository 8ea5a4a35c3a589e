//! Benchmarks through the C ABI (the exported `extern "C"` functions, called as a C host would):
//! session creation, a full scripted turn with one host tool call, text deltas per second to a
//! C callback in each delivery mode, and resident memory of 1,000 idle sessions.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::ffi::{c_char, c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};

#[path = "common/clock_runtime.rs"]
mod clock_runtime;
use clock_runtime::clock_runtime;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn runtime(config: &str) -> *mut robota_runtime {
    let mut rt = null_mut();
    let cfg = c(config);
    assert_eq!(
        robota_runtime_new(cfg.as_ptr(), &mut rt, null_mut()),
        ROBOTA_OK
    );
    rt
}

fn session(
    rt: *mut robota_runtime,
    json: &str,
    cb: robota::ffi::robota_event_fn,
    ud: *mut c_void,
) -> *mut robota_session {
    let mut s = null_mut();
    let j = c(json);
    assert_eq!(
        robota_session_new(rt, j.as_ptr(), cb, ud, None, &mut s, null_mut()),
        ROBOTA_OK
    );
    s
}

struct Counter {
    deltas: AtomicU64,
    done: AtomicU64,
}

unsafe extern "C" fn count_cb(
    ud: *mut c_void,
    _s: *mut robota_session,
    kind: u32,
    _turn: u64,
    _p: *const c_char,
    _n: usize,
) {
    // SAFETY: `ud` is the `Counter` the bench passed and keeps alive.
    let c = unsafe { &*(ud as *const Counter) };
    if kind == ROBOTA_EVENT_TEXT_DELTA {
        c.deltas.fetch_add(1, Ordering::Relaxed);
    } else if kind == ROBOTA_EVENT_TURN_COMPLETED {
        c.done.fetch_add(1, Ordering::Release);
    }
}

const DELTAS: usize = 100_000;

fn delta_config() -> String {
    let deltas = vec!["\"x\""; DELTAS].join(",");
    format!(
        r#"{{"v":1,"providers":{{"s":{{"kind":"scripted","turns":[{{"deltas":[{deltas}]}}]}}}}}}"#
    )
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

/// Idle sessions held at once for the memory figure.
const IDLE_SESSIONS: usize = 10_000;

fn idle_sessions_rss() {
    let rt = runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#);
    let warm = session(
        rt,
        r#"{"v":1,"provider":"s","model":"m"}"#,
        None,
        null_mut(),
    );
    robota_session_free(warm);
    let before = rss_kb();
    let sessions: Vec<_> = (0..IDLE_SESSIONS)
        .map(|_| {
            session(
                rt,
                r#"{"v":1,"provider":"s","model":"m"}"#,
                Some(count_cb),
                null_mut(),
            )
        })
        .collect();
    let after = rss_kb();
    println!(
        "ffi/idle_sessions: {IDLE_SESSIONS} sessions, RSS +{} KB ({:.1} MB) = {:.1} KB per idle session",
        after.saturating_sub(before),
        after.saturating_sub(before) as f64 / 1024.0,
        after.saturating_sub(before) as f64 / IDLE_SESSIONS as f64
    );
    for s in sessions {
        robota_session_free(s);
    }
    robota_runtime_free(rt);
}

/// A session freed when dropped (outside the measured routine).
struct Owned(*mut robota_session);

impl Drop for Owned {
    fn drop(&mut self) {
        robota_session_free(self.0);
    }
}

fn bench(cr: &mut Criterion) {
    idle_sessions_rss();
    let mut g = cr.benchmark_group("ffi");
    g.sample_size(20).measurement_time(Duration::from_secs(3));

    let rt = runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#);
    g.bench_function("session_new+free", |b| {
        b.iter(|| {
            let s = session(
                rt,
                r#"{"v":1,"provider":"s","model":"m"}"#,
                None,
                null_mut(),
            );
            robota_session_free(s);
        })
    });
    robota_runtime_free(rt);

    g.bench_function("runtime_new+session_new+free", |b| {
        b.iter(|| {
            let rt = runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#);
            let s = session(
                rt,
                r#"{"v":1,"provider":"s","model":"m"}"#,
                None,
                null_mut(),
            );
            robota_session_free(s);
            robota_runtime_free(rt);
        })
    });

    let rt = clock_runtime();
    let input = c(r#"{"text":"what time is it?"}"#);
    g.bench_function("scripted_turn_with_one_tool_call", |b| {
        b.iter(|| {
            let s = session(
                rt,
                r#"{"v":1,"provider":"s","model":"m"}"#,
                None,
                null_mut(),
            );
            let mut turn = 0;
            assert_eq!(
                robota_session_submit(s, input.as_ptr(), &mut turn, null_mut()),
                ROBOTA_OK
            );
            assert_eq!(robota_session_wait(s, turn, -1, null_mut()), ROBOTA_OK);
            robota_session_free(s);
        })
    });
    // The turn alone: the session is created before and freed after the measured routine.
    g.bench_function("scripted_turn_with_one_tool_call_turn_only", |b| {
        b.iter_batched(
            || {
                Owned(session(
                    rt,
                    r#"{"v":1,"provider":"s","model":"m"}"#,
                    None,
                    null_mut(),
                ))
            },
            |s| {
                let mut turn = 0;
                assert_eq!(
                    robota_session_submit(s.0, input.as_ptr(), &mut turn, null_mut()),
                    ROBOTA_OK
                );
                assert_eq!(robota_session_wait(s.0, turn, -1, null_mut()), ROBOTA_OK);
                s
            },
            BatchSize::PerIteration,
        )
    });
    robota_runtime_free(rt);

    let rt = runtime(&delta_config());
    g.throughput(Throughput::Elements(DELTAS as u64));
    g.sample_size(10);
    for mode in ["thread", "inline", "pump", "pull"] {
        g.bench_function(format!("text_deltas_{mode}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let counter = Box::new(Counter {
                        deltas: AtomicU64::new(0),
                        done: AtomicU64::new(0),
                    });
                    let ud = &*counter as *const Counter as *mut c_void;
                    let json =
                        format!(r#"{{"v":1,"provider":"s","model":"m","delivery":"{mode}"}}"#);
                    let s = session(rt, &json, Some(count_cb), ud);
                    let start = Instant::now();
                    assert_eq!(
                        robota_session_submit(s, input.as_ptr(), null_mut(), null_mut()),
                        ROBOTA_OK
                    );
                    match mode {
                        "thread" | "inline" => {
                            // Poll gently: a spinning waiter would steal a core from the
                            // producer and the dispatcher on small machines.
                            while counter.done.load(Ordering::Acquire) == 0 {
                                std::thread::sleep(Duration::from_micros(200));
                            }
                        }
                        "pump" => {
                            while counter.done.load(Ordering::Acquire) == 0 {
                                robota_session_dispatch(s, 0, 100);
                            }
                        }
                        _ => {
                            let mut n = 0;
                            loop {
                                let mut ev: *mut c_char = null_mut();
                                if robota_session_next_event(s, -1, &mut ev, null_mut())
                                    != ROBOTA_OK
                                {
                                    break;
                                }
                                // SAFETY: a NUL-terminated string the library just returned.
                                let done = unsafe { std::ffi::CStr::from_ptr(ev) }
                                    .to_bytes()
                                    .windows(16)
                                    .any(|w| w == b"\"turn_completed\"");
                                robota_string_free(ev);
                                n += 1;
                                if done {
                                    break;
                                }
                            }
                            counter.deltas.store(n, Ordering::Relaxed);
                        }
                    }
                    total += start.elapsed();
                    robota_session_free(s);
                    assert!(counter.deltas.load(Ordering::Relaxed) >= DELTAS as u64);
                }
                total
            })
        });
    }
    robota_runtime_free(rt);
    let _ = null::<u8>();
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
