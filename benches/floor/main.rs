//! The floor benchmark (`cargo bench --bench floor`): the library driven through its C ABI by a
//! C host (`host.c`, compiled here with `cc` against `include/robota.h` and the cdylib) beside a
//! hand-written raw loop (`raw.rs`, this binary re-run as `floor raw …`), on the same scenario
//! against the project's fake model server on 127.0.0.1, for the Anthropic and OpenAI wire
//! formats. Every figure is measured in fresh child processes (5 each; medians with the
//! min–max spread); peak RSS is the child's `VmHWM`.
//!
//! Options (after `--`): `--runs N` (default 5), `--kind anthropic|openai` (default both),
//! `--lib pgo|ship|release` (default `pgo`: the cdylib as it ships — profile `ship` with
//! profile-guided optimisation, trained and built here as `.ci/size.sh` does, see `build.rs`;
//! `ship`: the same profile without PGO; `release`: the one `cargo bench` just built, quicker to
//! iterate on), `--delivery thread|inline|run|both|all` (default `all`, a library column
//! each: the C host's sessions in the `thread` and `inline` delivery modes with submit + wait,
//! and `run`: `inline` sessions whose turns the host's thread drives with `robota_session_run`
//! instead — the 100 concurrent turns are submitted all the same; `both`: the first two),
//! `--place
//! free|same|split|all` (default `free`: where the fake server's thread and the measured
//! process run — `free` as the scheduler likes, `same` both on the first CPU, `split` the server
//! on the first and the measured process on the second; `all`: a table for each). On this
//! 2-vCPU KVM machine a wake-up across CPUs costs ~10× one on the same CPU (`cargo bench
//! --bench handoff`), so under `free` each run lands in one of two modes.
//! The C host's sessions use `"delivery"` `thread` (callbacks on a library callback thread, the
//! default) or `inline` (callbacks on the async worker; the host answers its tool inside the
//! callback, as the raw loop runs its tool inline).
//! `floor pgo` only builds the shipped (PGO) library and prints its path.
//! For profiling, `floor serve KIND` runs only the fake server (prints its base URL, stops when
//! stdin closes) and `floor raw MODE KIND URL` runs only the raw loop; the C host is
//! `target/release/floor_host MODE KIND URL` (see docs/dev/perf.md).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

mod build;
#[path = "../common/placement.rs"]
mod placement;
mod raw;
mod report;
mod scenario;
mod server;
mod support;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use build::{build_c_host, Lib};
use placement::{allowed_cpus, pin_current_thread, Place};
use report::{Figures, Sample};
use scenario::{cpu_ns, mono_ns, rusage_cpu_ns, Kind, WARM_RUNS};

/// Which program drives the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Host {
    Raw,
    /// The C host, its sessions in this `"delivery"` mode.
    Abi(&'static str),
}

/// What a finished child reported.
struct ChildRun {
    spawned_ns: i64,
    line: Value,
    cpu_ns: i64,
}

/// Runs one fresh child to completion; its stdout is one JSON line.
fn run_child(program: &Path, args: &[&str]) -> ChildRun {
    let spawned_ns = mono_ns();
    #[allow(clippy::zombie_processes)] // reaped below by wait4, which also gives its rusage
    let mut child = Command::new(program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn host");
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_string(&mut out)
        .expect("read host output");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `child.id()` is our unreaped child; `status` and `ru` are valid and writable.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{} {args:?} failed (status {status})",
        program.display()
    );
    let line = serde_json::from_str(out.trim()).expect("host prints one JSON line");
    ChildRun {
        spawned_ns,
        line,
        cpu_ns: rusage_cpu_ns(&ru),
    }
}

fn field(run: &ChildRun, name: &str) -> i64 {
    run.line[name]
        .as_i64()
        .unwrap_or_else(|| panic!("host output lacks {name}: {}", run.line))
}

/// One sample of every figure for one host: three fresh processes (single, warm, conc).
fn sample(host: Host, kind: Kind, url: &str, c_host: &Path) -> Sample {
    let exe = std::env::current_exe().expect("current exe");
    let run = |mode: &str| match host {
        Host::Raw => run_child(&exe, &["raw", mode, kind.as_str(), url]),
        Host::Abi(delivery) => run_child(c_host, &[mode, kind.as_str(), url, delivery]),
    };
    let single = run("single");
    let server_before = cpu_ns();
    let warm = run("warm");
    let server_warm_ns = cpu_ns() - server_before;
    let conc = run("conc");
    Sample {
        cold_ns: field(&single, "first_delta_ns") - single.spawned_ns,
        one_ns: field(&single, "done_ns") - single.spawned_ns,
        one_cpu_ns: single.cpu_ns,
        one_rss_kb: field(&single, "peak_rss_kb"),
        warm_ns: field(&warm, "wall_ns") / WARM_RUNS as i64,
        warm_cpu_ns: field(&warm, "cpu_ns") / WARM_RUNS as i64,
        server_cpu_ns: server_warm_ns / (WARM_RUNS as i64 + 1),
        conc_wall_ns: field(&conc, "wall_ns"),
        conc_cpu_ns: field(&conc, "cpu_ns"),
        conc_rss_kb: field(&conc, "peak_rss_kb"),
    }
}

/// `floor serve KIND`: the scenario's fake server alone, until stdin closes.
fn serve(args: &[String]) -> i32 {
    let Some(kind) = args.first().and_then(|k| Kind::parse(k)) else {
        eprintln!("usage: floor serve anthropic|openai");
        return 64;
    };
    println!("{}", server::base_url(server::start(kind, None), kind));
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("raw") => std::process::exit(raw::main(&args[1..])),
        Some("serve") => std::process::exit(serve(&args[1..])),
        Some("pgo") => {
            println!("{}", Lib::Pgo.dir().join("librobota.so").display());
            return;
        }
        _ => {}
    }
    let mut runs = 5;
    let mut kinds = Kind::ALL.to_vec();
    let mut lib = Lib::Pgo;
    let mut deliveries: Vec<&'static str> = vec!["thread", "inline", "run"];
    let mut places = vec![Place::Free];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().and_then(|n| n.parse().ok()).expect("--runs N"),
            "--kind" => kinds = vec![it.next().and_then(|k| Kind::parse(k)).expect("--kind KIND")],
            "--lib" => {
                lib = it
                    .next()
                    .and_then(|l| Lib::parse(l))
                    .expect("--lib pgo|ship|release")
            }
            "--delivery" => {
                deliveries = match it.next().map(String::as_str) {
                    Some("thread") => vec!["thread"],
                    Some("inline") => vec!["inline"],
                    Some("run") => vec!["run"],
                    Some("both") => vec!["thread", "inline"],
                    Some("all") => vec!["thread", "inline", "run"],
                    _ => panic!("--delivery thread|inline|run|both|all"),
                }
            }
            "--place" => {
                places = match it.next().map(String::as_str) {
                    Some("all") => Place::ALL.to_vec(),
                    p => vec![p
                        .and_then(Place::parse)
                        .expect("--place free|same|split|all")],
                }
            }
            _ => {} // `cargo bench` passes `--bench`
        }
    }
    let (c_host, lib_file) = build_c_host(lib);
    println!(
        "floor: {runs} fresh processes per figure and host; {} cores; load average {}; library {} ({:?} profile, {} bytes)",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim(),
        lib_file.display(),
        lib,
        std::fs::metadata(&lib_file).map_or(0, |m| m.len())
    );
    let all = allowed_cpus();
    for kind in kinds {
        for &place in &places {
            let cpus = place.cpus();
            if cpus.is_none() && place != Place::Free {
                println!("\n(placement {} needs two CPUs)", place.as_str());
                continue;
            }
            let url = server::base_url(server::start(kind, cpus.map(|c| c.0)), kind);
            // The hosts are this thread's children: they start with its affinity.
            pin_current_thread(cpus.map(|c| c.1), &all);
            let mut figures = Figures {
                abi: deliveries.iter().map(|d| (*d, Vec::new())).collect(),
                ..Figures::default()
            };
            for _ in 0..runs {
                // Interleaved, so load changes hit every host alike.
                figures.raw.push(sample(Host::Raw, kind, &url, &c_host));
                for (delivery, samples) in &mut figures.abi {
                    samples.push(sample(Host::Abi(delivery), kind, &url, &c_host));
                }
            }
            pin_current_thread(None, &all);
            report::print(kind.as_str(), place.as_str(), &figures);
        }
    }
}
