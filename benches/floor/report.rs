//! The floor benchmark's table: medians over fresh processes, the min–max spread, the ratio
//! library / raw loop and the goal for each figure.

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
}

/// The samples of the raw loop and of the C host per delivery mode.
#[derive(Debug, Default)]
pub(crate) struct Figures {
    pub(crate) raw: Vec<Sample>,
    pub(crate) abi: Vec<(&'static str, Vec<Sample>)>,
}

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

/// Prints the table for one wire format and placement.
pub(crate) fn print(kind: &str, place: &str, f: &Figures) {
    let rows: [(&str, Getter, Unit, &str); 9] = [
        (
            "cold: process start → first delta",
            |s| s.cold_ns,
            Unit::Ms,
            "≤ 1.5×",
        ),
        (
            "one scenario end to end (process start → done)",
            |s| s.one_ns,
            Unit::Ms,
            "≤ 1.5×",
        ),
        (
            "warm time per scenario (50 in a row)",
            |s| s.warm_ns,
            Unit::Ms,
            "≤ 1.3×",
        ),
        (
            "CPU per scenario (warm)",
            |s| s.warm_cpu_ns,
            Unit::Ms,
            "≤ 1.5×",
        ),
        ("peak RSS, one scenario", |s| s.one_rss_kb, Unit::Mb, "≤ 2×"),
        (
            "100 concurrent scenarios: wall",
            |s| s.conc_wall_ns,
            Unit::Ms,
            "≤ 1.5×",
        ),
        (
            "100 concurrent scenarios: CPU",
            |s| s.conc_cpu_ns,
            Unit::Ms,
            "≤ 1.5×",
        ),
        (
            "100 concurrent scenarios: peak RSS",
            |s| s.conc_rss_kb,
            Unit::Mb,
            "≤ 2×",
        ),
        (
            "CPU of the one-scenario process",
            |s| s.one_cpu_ns,
            Unit::Ms,
            "—",
        ),
    ];
    println!();
    println!(
        "## {kind} wire format, placement `{place}` — median (min–max) of {} fresh processes",
        f.raw.len()
    );
    let mut head = String::from("| figure | raw loop |");
    let mut rule = String::from("|---|---|");
    for (delivery, _) in &f.abi {
        let how = match *delivery {
            "run" => "`robota_session_run`, `inline` delivery".to_string(),
            d => format!("`{d}` delivery"),
        };
        head.push_str(&format!(" library via C ABI, {how} | ratio |"));
        rule.push_str("---|---|");
    }
    println!("{head} goal |");
    println!("{rule}---|");
    for (name, get, unit, goal) in rows {
        let r = stat(&f.raw, get);
        let mut line = format!("| {name} | {} |", fmt(&r, unit));
        for (_, samples) in &f.abi {
            let a = stat(samples, get);
            line.push_str(&format!(
                " {} | {:.1}× |",
                fmt(&a, unit),
                a.median / r.median
            ));
        }
        println!("{line} {goal} |");
    }
    let server = stat(&f.raw, |s| s.server_cpu_ns);
    let raw_warm = stat(&f.raw, |s| s.warm_ns);
    println!(
        "fake server CPU per scenario (during the raw loop's warm run): {} = {:.0}% of the raw loop's warm time",
        fmt(&server, Unit::Ms),
        100.0 * server.median / raw_warm.median
    );
}
