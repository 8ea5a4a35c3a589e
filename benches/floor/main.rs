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
//! iterate on), `--pattern P[,P…]|all` (default `all`: the C host's ways of running its
//! sessions, a column each — `thread`, `inline`, `run` (one host thread per session in the 100
//! concurrent scenarios), `submit` (one host thread submits all 100), `pump`, `pull` (one host
//! thread serves all 100); see `host.c`), `--host NAME,C_PATTERN,PATTERN,COMMAND` (repeatable:
//! a binding's host, run as `COMMAND MODE KIND URL PATTERN`, compared with the C host's
//! `C_PATTERN`; `benches/bindings/build_*.sh` build them), `--place free|same|split|all`
//! (default `free`: where the fake server's thread and the measured
//! process run — `free` as the scheduler likes, `same` both on the first CPU, `split` the server
//! on the first and the measured process on the second; `all`: a table for each). On this
//! 2-vCPU KVM machine a wake-up across CPUs costs ~10× one on the same CPU (`cargo bench
//! --bench handoff`), so under `free` each run lands in one of two modes.
//! The raw loop runs twice: its 100 concurrent scenarios as 100 tasks (the floor) and with a
//! thread per scenario (what a host that gives each session a thread can least pay; the C
//! host's `thread`, `inline` and `run` are compared with it too).
//! Every ratio to the raw loop is taken per run (the hosts of a run are interleaved) and printed
//! as the median and min–max over the runs.
//! `floor pgo` only builds the shipped (PGO) library and prints its path; `floor order` writes
//! the linker's ordering file of the code a turn runs (`order.rs`).
//! For profiling, `floor serve KIND` runs only the fake server (prints its base URL, stops when
//! stdin closes) and `floor raw MODE KIND URL` runs only the raw loop; the C host is
//! `target/release/floor_host MODE KIND URL [PATTERN]` (see docs/dev/perf.md).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

mod build;
mod order;
#[path = "../common/placement.rs"]
mod placement;
mod raw;
mod raw_http;
mod report;
mod scenario;
mod server;
mod support;

use std::io::Read;
use std::process::{Command, Stdio};

use serde_json::Value;

use build::{build_c_host, Lib};
use placement::{allowed_cpus, pin_current_thread, Place};
use report::{Figures, Sample};
use scenario::{cpu_ns, mono_ns, rusage_cpu_ns, Kind, WARM_RUNS};

/// A program that drives the scenario: the raw loop, the C host in one of its patterns, or a
/// binding's host (`--host`).
#[derive(Debug, Clone)]
pub(crate) struct Host {
    /// The column's name.
    pub(crate) label: String,
    /// The program and its leading arguments; `MODE KIND URL` and `pattern` follow.
    program: Vec<String>,
    /// The host's last argument (none for the raw loop).
    pattern: Option<String>,
    /// For a binding's host: the C host pattern its CPU per turn is compared with.
    pub(crate) compare: Option<String>,
}

/// The C host's patterns (`host.c`), in the order the table shows them.
const C_PATTERNS: [&str; 6] = ["thread", "inline", "run", "submit", "pump", "pull"];

/// `NAME,C_PATTERN,PATTERN,COMMAND…`: a binding's host run as `COMMAND MODE KIND URL PATTERN`,
/// compared with the C host's `C_PATTERN`.
fn parse_host(spec: &str) -> Host {
    let parts: Vec<&str> = spec.splitn(4, ',').collect();
    let [label, compare, pattern, command] = parts[..] else {
        panic!("--host NAME,C_PATTERN,PATTERN,COMMAND (got {spec})")
    };
    assert!(
        C_PATTERNS.contains(&compare),
        "--host {spec}: {compare} is not a C host pattern"
    );
    Host {
        label: label.to_string(),
        program: command.split_whitespace().map(str::to_string).collect(),
        pattern: Some(pattern.to_string()),
        compare: Some(compare.to_string()),
    }
}

/// What a finished child reported.
struct ChildRun {
    spawned_ns: i64,
    line: Value,
    cpu_ns: i64,
}

/// Runs one fresh child to completion; its stdout is one JSON line.
fn run_child(program: &[String], args: &[&str]) -> ChildRun {
    let spawned_ns = mono_ns();
    #[allow(clippy::zombie_processes)] // reaped below by wait4, which also gives its rusage
    let mut child = Command::new(&program[0])
        .args(&program[1..])
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
        "{program:?} {args:?} failed (status {status})"
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
fn sample(host: &Host, kind: Kind, url: &str) -> Sample {
    let run = |mode: &str| {
        let mut args = vec![mode, kind.as_str(), url];
        args.extend(host.pattern.as_deref());
        run_child(&host.program, &args)
    };
    let single = run("single");
    let server_before = cpu_ns();
    let warm = run("warm");
    let server_warm_ns = cpu_ns() - server_before;
    let conc = run("conc");
    let per_delta = |name: &str| {
        let deltas = warm.line["deltas"].as_f64()?;
        Some(warm.line[name].as_f64()? / deltas)
    };
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
        allocs_per_delta: per_delta("allocs"),
        alloc_bytes_per_delta: per_delta("alloc_bytes"),
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
        Some("order") => std::process::exit(order::main()),
        Some("pgo") => {
            println!("{}", Lib::Pgo.dir().join("librobota.so").display());
            return;
        }
        _ => {}
    }
    let mut runs = 5;
    let mut kinds = Kind::ALL.to_vec();
    let mut lib = Lib::Pgo;
    let mut patterns: Vec<&'static str> = C_PATTERNS.to_vec();
    let mut bindings: Vec<Host> = Vec::new();
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
            "--pattern" => {
                let list = it.next().expect("--pattern P[,P…]|all");
                patterns = if list == "all" {
                    C_PATTERNS.to_vec()
                } else {
                    list.split(',')
                        .map(|p| {
                            *C_PATTERNS
                                .iter()
                                .find(|c| **c == p)
                                .unwrap_or_else(|| panic!("--pattern: unknown {p}"))
                        })
                        .collect()
                }
            }
            "--host" => bindings.push(parse_host(it.next().expect("--host SPEC"))),
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
    for b in &bindings {
        let compare = b.compare.as_deref().unwrap_or_default();
        if let Some(p) = C_PATTERNS.iter().find(|p| **p == compare) {
            if !patterns.contains(p) {
                patterns.push(p);
            }
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
    let exe = std::env::current_exe().expect("current exe");
    let mut hosts = vec![
        Host {
            label: "raw loop".into(),
            program: vec![exe.display().to_string(), "raw".into()],
            pattern: None,
            compare: None,
        },
        Host {
            label: report::RAW_THREADS.into(),
            program: vec![exe.display().to_string(), "raw".into()],
            pattern: Some("threads".into()),
            compare: None,
        },
    ];
    hosts.extend(patterns.iter().map(|p| Host {
        label: format!("C `{p}`"),
        program: vec![c_host.display().to_string()],
        pattern: Some(p.to_string()),
        compare: None,
    }));
    hosts.extend(bindings);
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
            let mut figures: Figures = hosts.iter().map(|h| (h.clone(), Vec::new())).collect();
            for _ in 0..runs {
                // Interleaved, so load changes hit every host alike.
                for (host, samples) in &mut figures {
                    samples.push(sample(host, kind, &url));
                }
            }
            pin_current_thread(None, &all);
            report::print(kind.as_str(), place.as_str(), &figures);
        }
    }
}
