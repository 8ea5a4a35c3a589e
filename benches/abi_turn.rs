//! A scripted turn with one host tool through the C ABI, many in a row, reported as CPU time
//! (`getrusage`, every thread of the process) and wall time per turn. CPU time hardly depends on
//! what else runs on the machine, which makes this the figure to compare changes by; it is also
//! a small program to run under `valgrind --tool=callgrind`.
//! Run: `cargo bench --bench abi_turn -- [turns] [turn|turn-cb|whole] [thread|inline|run]
//! [free|same|split]` (default 5,000 per figure, after 200 warm-up turns; all three figures in
//! the `thread` and `inline` delivery modes unless one is named, `all` for the three; `run`:
//! `inline` sessions whose turns the host's thread drives with `robota_session_run`). The last word places the host thread and the
//! runtime's worker (see `common/placement.rs`): `free` (default, the scheduler's choice), `same`
//! (one CPU) or `split` (host on the first CPU, worker on the second).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::ffi::{c_char, c_void, CString};
use std::ptr::null_mut;
use std::sync::atomic::Ordering;
use std::time::Instant;

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};

#[path = "common/clock_runtime.rs"]
mod clock_runtime;
#[path = "common/cpu_time.rs"]
mod cpu_time;
#[allow(dead_code)] // the floor and handoff benches use the rest
#[path = "common/placement.rs"]
mod placement;
use clock_runtime::{clock_runtime, TOOL_CALLS};
use cpu_time::cpu_us;

unsafe extern "C" fn event_cb(
    _ud: *mut c_void,
    _s: *mut robota_session,
    _kind: u32,
    _turn: u64,
    _p: *const c_char,
    _n: usize,
) {
}

fn open(rt: *mut robota_runtime, with_callback: bool, delivery: &str) -> *mut robota_session {
    let delivery = if delivery == "run" {
        "inline"
    } else {
        delivery
    };
    let mut s = null_mut();
    let json = CString::new(format!(
        r#"{{"v":1,"provider":"s","model":"m","delivery":"{delivery}"}}"#
    ))
    .unwrap();
    let cb: robota_event_fn = if with_callback { Some(event_cb) } else { None };
    assert_eq!(
        robota_session_new(rt, json.as_ptr(), cb, null_mut(), None, &mut s, null_mut()),
        ROBOTA_OK
    );
    s
}

/// One turn: submit + wait, or `robota_session_run` in the `run` mode.
fn submit_wait(s: *mut robota_session, input: &CString, delivery: &str) {
    let mut id = 0;
    if delivery == "run" {
        assert_eq!(
            robota_session_run(s, input.as_ptr(), &mut id, null_mut()),
            ROBOTA_OK
        );
        return;
    }
    assert_eq!(
        robota_session_submit(s, input.as_ptr(), &mut id, null_mut()),
        ROBOTA_OK
    );
    assert_eq!(robota_session_wait(s, id, -1, null_mut()), ROBOTA_OK);
}

/// Marks where a measured part begins, for `valgrind --tool=callgrind
/// --zero-before=abi_turn::mark_begin --dump-before=abi_turn::mark_end` (counts only the
/// measured turns of every thread).
#[inline(never)]
fn mark_begin() {
    std::hint::black_box(1u8);
}

/// Marks where a measured part ends (see [`mark_begin`]).
#[inline(never)]
fn mark_end() {
    std::hint::black_box(2u8);
}

/// Sessions opened (and later freed) outside the measured part of "turn only".
const BATCH: u64 = 250;

/// CPU and wall time (µs) of `turns` turns: with `whole`, each on a session created and freed
/// in the measurement; else the sessions are opened before and freed after it.
fn measure(
    rt: *mut robota_runtime,
    input: &CString,
    turns: u64,
    cb: bool,
    whole: bool,
    delivery: &str,
) -> (f64, f64) {
    let (mut cpu, mut wall) = (0.0, 0.0);
    let mut done = 0;
    while done < turns {
        let n = BATCH.min(turns - done);
        let sessions: Vec<_> = if whole {
            Vec::new()
        } else {
            (0..n).map(|_| open(rt, cb, delivery)).collect()
        };
        mark_begin();
        let (c0, w0) = (cpu_us(), Instant::now());
        if whole {
            for _ in 0..n {
                let s = open(rt, cb, delivery);
                submit_wait(s, input, delivery);
                robota_session_free(s);
            }
        } else {
            for &s in &sessions {
                submit_wait(s, input, delivery);
            }
        }
        cpu += cpu_us() - c0;
        wall += w0.elapsed().as_secs_f64() * 1e6;
        mark_end();
        for s in sessions {
            robota_session_free(s);
        }
        done += n;
    }
    (cpu, wall)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let turns: u64 = args
        .first()
        .map_or(5_000, |a| a.parse().expect("turns: a number"));
    // Optionally one figure only (`turn`, `turn-cb` or `whole`) and one delivery mode.
    let only = args.get(1).map(String::as_str).filter(|o| *o != "all");
    let deliveries: &[&str] = match args.get(2).map(String::as_str) {
        None | Some("both") => &["thread", "inline"],
        Some("all") => &["thread", "inline", "run"],
        Some("thread") => &["thread"],
        Some("inline") => &["inline"],
        Some("run") => &["run"],
        Some(d) => panic!("delivery: thread, inline, run, both or all, not {d}"),
    };
    let place = args.get(3).map_or(placement::Place::Free, |p| {
        placement::Place::parse(p).expect("placement: free, same or split")
    });
    let all = placement::allowed_cpus();
    let cpus = place.cpus();
    // The runtime's worker threads start inside `clock_runtime` and keep the affinity of the
    // thread that created them.
    placement::pin_current_thread(cpus.map(|c| c.1), &all);
    let rt = clock_runtime();
    placement::pin_current_thread(cpus.map(|c| c.0), &all);
    println!("abi_turn: placement {}", place.as_str());
    let input = CString::new(r#"{"text":"what time is it?"}"#).unwrap();
    for &delivery in deliveries {
        measure(rt, &input, turns.min(200), true, true, delivery);
        for (cb, whole, name) in [
            (false, false, "turn"),
            (true, false, "turn-cb"),
            (true, true, "whole"),
        ] {
            if only.is_some_and(|o| o != name) {
                continue;
            }
            TOOL_CALLS.store(0, Ordering::Relaxed);
            let (cpu, wall) = measure(rt, &input, turns, cb, whole, delivery);
            assert_eq!(TOOL_CALLS.load(Ordering::Relaxed), turns);
            println!(
                "abi_turn {delivery:<6} {:<34} {turns} turns: CPU {:>6.1} µs/turn, wall {:>6.1} µs/turn",
                match (cb, whole) {
                    (false, false) => "(turn only, no event callback):",
                    (true, false) => "(turn only, event callback):",
                    _ => "(session new + turn + free):",
                },
                cpu / turns as f64,
                wall / turns as f64
            );
        }
    }
    robota_runtime_free(rt);
}
