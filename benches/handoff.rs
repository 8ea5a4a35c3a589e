//! What one thread handoff costs on this machine, the baseline of every figure in which a host
//! thread and a library worker take turns (`robota_session_submit` wakes a worker, the turn's
//! end wakes the host): two threads pass a token back and forth through a mutex and two
//! condition variables, as a submit and a wait do, with nothing else to do. Reported per round
//! trip (two wake-ups), as wall and CPU time (`getrusage`, both threads), for each placement:
//! `free` (the scheduler's choice), `same` (both threads on one CPU), `split` (one CPU each).
//! Run: `cargo bench --bench handoff -- [round trips]` (default 20,000).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

#[path = "common/cpu_time.rs"]
mod cpu_time;
#[allow(dead_code)] // the floor and abi_turn benches use the rest
#[path = "common/placement.rs"]
mod placement;

use cpu_time::cpu_us;
use placement::{allowed_cpus, pin_current_thread, Place};

/// Whose move it is.
struct Token {
    worker_turn: Mutex<bool>,
    to_worker: Condvar,
    to_host: Condvar,
}

/// Wall and CPU µs per round trip of `n` round trips with the two threads placed as `place`.
fn round_trips(n: u32, place: Place, all: &[usize]) -> (f64, f64) {
    let cpus = place.cpus();
    pin_current_thread(cpus.map(|c| c.0), all);
    let token = Arc::new(Token {
        worker_turn: Mutex::new(false),
        to_worker: Condvar::new(),
        to_host: Condvar::new(),
    });
    let t = token.clone();
    let worker_cpu = cpus.map(|c| c.1);
    let all_for_worker = all.to_vec();
    let worker = std::thread::spawn(move || {
        pin_current_thread(worker_cpu, &all_for_worker);
        for _ in 0..n {
            let mut mine = t.worker_turn.lock().unwrap();
            while !*mine {
                mine = t.to_worker.wait(mine).unwrap();
            }
            *mine = false;
            drop(mine);
            t.to_host.notify_one();
        }
    });
    let (w0, c0) = (Instant::now(), cpu_us());
    for _ in 0..n {
        *token.worker_turn.lock().unwrap() = true;
        token.to_worker.notify_one();
        let mut theirs = token.worker_turn.lock().unwrap();
        while *theirs {
            theirs = token.to_host.wait(theirs).unwrap();
        }
    }
    let (wall, cpu) = (w0.elapsed().as_secs_f64() * 1e6, cpu_us() - c0);
    worker.join().unwrap();
    pin_current_thread(None, all);
    (wall / f64::from(n), cpu / f64::from(n))
}

fn main() {
    let n: u32 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map_or(20_000, |a| a.parse().expect("round trips: a number"));
    let all = allowed_cpus();
    println!(
        "handoff: {n} round trips per placement, CPUs {all:?}, load average {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    for place in Place::ALL {
        if place.cpus().is_none() && place != Place::Free {
            println!("  {:<6} (needs two CPUs)", place.as_str());
            continue;
        }
        round_trips(n / 10, place, &all); // warm-up
        let (wall, cpu) = round_trips(n, place, &all);
        println!(
            "  {:<6} round trip: wall {wall:6.2} µs, CPU {cpu:6.2} µs",
            place.as_str()
        );
    }
}
