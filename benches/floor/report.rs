//! The floor benchmark's tables: the figures of every host (medians over fresh processes with
//! the min–max spread), then each host's ratio to the raw loop — per run, as the runs are
//! interleaved: median and min–max over the runs — against its goal, then the bindings' hosts
//! beside the C host.

use crate::Host;

/// Every figure of one host from one round of fresh processes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    /// Process start → first text delta.
    pub(crate) cold_ns: i64,
    /// Process start → the scenario's final answer complete.
    pub(crate) one_ns: i64,
    /// CPU of that whole process.
    pub(crate) one_cpu_ns: i64,
    /// Peak RSS of that process.
    pub(crate) one_rss_kb: i64,
    /// Wall time per scenario, 50 in a row (after a warm-up one).
    pub(crate) warm_ns: i64,
    /// CPU per scenario over those 50.
    pub(crate) warm_cpu_ns: i64,
    /// The fake server's CPU per scenario during the warm run.
    pub(crate) server_cpu_ns: i64,
    /// 100 concurrent scenarios: wall time.
    pub(crate) conc_wall_ns: i64,
    /// … CPU time.
    pub(crate) conc_cpu_ns: i64,
    /// … peak RSS of the process.
    pub(crate) conc_rss_kb: i64,
    /// A binding's host: its own heap allocations per text delta in the warm run.
    pub(crate) allocs_per_delta: Option<f64>,
    /// … or, where its runtime counts bytes only, the bytes it allocated per text delta.
    pub(crate) alloc_bytes_per_delta: Option<f64>,
}

/// The raw loop's column whose 100 concurrent scenarios run a thread each (`raw.rs`).
pub(crate) const RAW_THREADS: &str = "raw loop, a thread per scenario";
/// The C host's columns whose 100 concurrent sessions run a host thread each.
const THREAD_PER_SESSION: [&str; 3] = ["C `thread`", "C `inline`", "C `run`"];
/// The 100-concurrent figures and their goals.
const CONC_ROWS: [(&str, Getter, f64); 3] = [
    ("wall", |s| s.conc_wall_ns, 1.5),
    ("CPU", |s| s.conc_cpu_ns, 1.5),
    ("peak RSS", |s| s.conc_rss_kb, 2.0),
];

/// Every host's samples, the raw loop first.
pub(crate) type Figures = Vec<(Host, Vec<Sample>)>;

/// Reads one figure from a sample.
type Getter = fn(&Sample) -> i64;

/// Median, min and max of one figure.
struct Stat {
    median: f64,
    min: f64,
    max: f64,
}

fn stat(samples: &[Sample], get: Getter) -> Stat {
    let mut v: Vec<i64> = samples.iter().map(get).collect();
    v.sort_unstable();
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    };
    Stat {
        median,
        min: v[0] as f64,
        max: v[n - 1] as f64,
    }
}

/// How a figure prints: nanoseconds as ms, kilobytes as MB.
#[derive(Clone, Copy)]
enum Unit {
    Ms,
    Mb,
}

fn fmt(s: &Stat, unit: Unit) -> String {
    let (scale, suffix) = match unit {
        Unit::Ms => (1e6, "ms"),
        Unit::Mb => (1024.0, "MB"),
    };
    format!(
        "{:.2} {suffix} ({:.2}–{:.2})",
        s.median / scale,
        s.min / scale,
        s.max / scale
    )
}

/// The figures, their goal (the ratio to the raw loop) and how they print.
const ROWS: [(&str, Getter, Unit, f64); 9] = [
    (
        "cold: process start → first delta",
        |s| s.cold_ns,
        Unit::Ms,
        1.3,
    ),
    ("one scenario end to end", |s| s.one_ns, Unit::Ms, 1.5),
    (
        "warm time per scenario (50 in a row)",
        |s| s.warm_ns,
        Unit::Ms,
        1.2,
    ),
    ("CPU per scenario (warm)", |s| s.warm_cpu_ns, Unit::Ms, 1.3),
    ("peak RSS, one scenario", |s| s.one_rss_kb, Unit::Mb, 1.5),
    ("100 concurrent: wall", |s| s.conc_wall_ns, Unit::Ms, 1.5),
    ("100 concurrent: CPU", |s| s.conc_cpu_ns, Unit::Ms, 1.5),
    ("100 concurrent: peak RSS", |s| s.conc_rss_kb, Unit::Mb, 2.0),
    (
        "CPU of the one-scenario process",
        |s| s.one_cpu_ns,
        Unit::Ms,
        f64::INFINITY,
    ),
];

/// Per-run ratios of one figure, host / reference (runs are interleaved: run i with run i).
fn ratios(host: &[Sample], reference: &[Sample], get: Getter) -> Stat {
    let mut v: Vec<f64> = host
        .iter()
        .zip(reference)
        .map(|(h, r)| get(h) as f64 / get(r).max(1) as f64)
        .collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    Stat {
        median,
        min: v[0],
        max: v[n - 1],
    }
}

fn fmt_ratio(r: &Stat) -> String {
    format!("{:.2}× ({:.2}–{:.2})", r.median, r.min, r.max)
}

/// Prints the tables for one wire format and placement.
pub(crate) fn print(kind: &str, place: &str, f: &Figures) {
    let Some((_, raw)) = f.first() else { return };
    println!();
    println!(
        "## {kind} wire format, placement `{place}` — {} runs, each a fresh process per figure and host",
        raw.len()
    );
    println!();
    println!("Figures: median (min–max) over the runs.");
    println!();
    let head: Vec<&str> = f.iter().map(|(h, _)| h.label.as_str()).collect();
    println!("| figure | {} |", head.join(" | "));
    println!("|---|{}", "---|".repeat(f.len()));
    for (name, get, unit, _) in ROWS {
        let cells: Vec<String> = f.iter().map(|(_, s)| fmt(&stat(s, get), unit)).collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    println!();
    println!("Ratio to the raw loop: median (min–max) of the per-run ratios; ✗ where the median misses its goal.");
    println!();
    println!("| figure | goal | {} |", head[1..].join(" | "));
    println!("|---|---|{}", "---|".repeat(f.len() - 1));
    for (name, get, _, goal) in ROWS {
        if !goal.is_finite() {
            continue;
        }
        let cells: Vec<String> = f[1..]
            .iter()
            .map(|(_, s)| {
                let r = ratios(s, raw, get);
                let miss = if r.median > goal { " ✗" } else { "" };
                format!("{}{miss}", fmt_ratio(&r))
            })
            .collect();
        println!("| {name} | ≤ {goal}× | {} |", cells.join(" | "));
    }
    print_thread_per_session(f);
    print_bindings(f);
    let server = stat(raw, |s| s.server_cpu_ns);
    let raw_warm = stat(raw, |s| s.warm_ns);
    println!(
        "\nfake server CPU per scenario (during the raw loop's warm run): {} = {:.0}% of the raw loop's warm time",
        fmt(&server, Unit::Ms),
        100.0 * server.median / raw_warm.median
    );
}

/// The patterns with a host thread per session beside the raw loop with a thread per scenario:
/// what the library adds to what the host's threads themselves cost.
fn print_thread_per_session(f: &Figures) {
    let Some((_, reference)) = f.iter().find(|(h, _)| h.label == RAW_THREADS) else {
        return;
    };
    let hosts: Vec<_> = f
        .iter()
        .filter(|(h, _)| THREAD_PER_SESSION.contains(&h.label.as_str()))
        .collect();
    if hosts.is_empty() {
        return;
    }
    println!();
    println!("100 concurrent sessions with a host thread each, against the raw loop with a thread per scenario (per-run ratios, median (min–max)):");
    println!();
    let head: Vec<String> = CONC_ROWS
        .iter()
        .map(|(name, _, goal)| format!("{name} (≤ {goal}×)"))
        .collect();
    println!("| host | {} |", head.join(" | "));
    println!("|---|{}", "---|".repeat(CONC_ROWS.len()));
    for (host, samples) in hosts {
        let cells: Vec<String> = CONC_ROWS
            .iter()
            .map(|&(_, get, goal)| {
                let r = ratios(samples, reference, get);
                let miss = if r.median > goal { " ✗" } else { "" };
                format!("{}{miss}", fmt_ratio(&r))
            })
            .collect();
        println!("| {} | {} |", host.label, cells.join(" | "));
    }
}

/// The bindings' hosts beside the C host pattern each names: CPU per warm scenario (goal ≤
/// 1.2×) and their own allocations per text delta (goal ≤ 1).
fn print_bindings(f: &Figures) {
    let bindings: Vec<_> = f.iter().filter(|(h, _)| h.compare.is_some()).collect();
    if bindings.is_empty() {
        return;
    }
    println!();
    println!("Bindings beside the C host (per-run ratios, median (min–max)):");
    println!();
    println!("| host | compared with | CPU per warm scenario | ratio (goal ≤ 1.2×) | 100 concurrent CPU ratio | allocations per text delta (goal ≤ 1) |");
    println!("|---|---|---|---|---|---|");
    for (host, samples) in bindings {
        let compare = host.compare.as_deref().unwrap_or_default();
        let want = format!("C `{compare}`");
        let Some((_, c)) = f.iter().find(|(h, _)| h.label == want) else {
            continue;
        };
        let cpu = ratios(samples, c, |s| s.warm_cpu_ns);
        let conc = ratios(samples, c, |s| s.conc_cpu_ns);
        let allocs = median_of(samples, |s| s.allocs_per_delta)
            .map(|a| format!("{a:.2}"))
            .or_else(|| {
                median_of(samples, |s| s.alloc_bytes_per_delta).map(|b| format!("{b:.0} B"))
            })
            .unwrap_or_else(|| "—".into());
        println!(
            "| {} | {want} | {} | {}{} | {} | {allocs} |",
            host.label,
            fmt(&stat(samples, |s| s.warm_cpu_ns), Unit::Ms),
            fmt_ratio(&cpu),
            if cpu.median > 1.2 { " ✗" } else { "" },
            fmt_ratio(&conc),
        );
    }
}

fn median_of(samples: &[Sample], get: fn(&Sample) -> Option<f64>) -> Option<f64> {
    let mut v: Vec<f64> = samples.iter().filter_map(get).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}
