//! The benchmark's scenario, shared by the driver, the fake server's responder and the raw
//! loop: one `add(a,b)` host tool, 3 tool rounds (each answer: one text delta and a call),
//! then a 50-delta answer. Must match `host.c`.

/// Scenarios run back to back in `warm` mode (after one warm-up scenario).
pub(crate) const WARM_RUNS: usize = 50;
/// Scenarios run at once in `conc` mode.
pub(crate) const CONC_RUNS: usize = 100;
/// Tool rounds before the final answer.
pub(crate) const TOOL_ROUNDS: usize = 3;
/// Text deltas of the final answer.
pub(crate) const ANSWER_DELTAS: usize = 50;
/// Text deltas a host sees per scenario (one per tool round plus the answer's).
pub(crate) const DELTAS_PER_SCENARIO: usize = TOOL_ROUNDS + ANSWER_DELTAS;
/// The user's message.
pub(crate) const PROMPT: &str = "Add 1 and 2, three times.";

/// The wire formats measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Anthropic,
    OpenAi,
}

impl Kind {
    pub(crate) const ALL: [Kind; 2] = [Kind::Anthropic, Kind::OpenAi];

    pub(crate) fn parse(s: &str) -> Option<Kind> {
        match s {
            "anthropic" => Some(Kind::Anthropic),
            "openai" => Some(Kind::OpenAi),
            _ => None,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::Anthropic => "anthropic",
            Kind::OpenAi => "openai",
        }
    }

    /// What marks one tool result in a request body (compact JSON, as both clients send).
    pub(crate) fn tool_result_marker(self) -> &'static str {
        match self {
            Kind::Anthropic => "\"type\":\"tool_result\"",
            Kind::OpenAi => "\"role\":\"tool\"",
        }
    }
}

/// This process's peak resident set (`VmHWM`), in KB. Not `ru_maxrss`: a spawned child's
/// `ru_maxrss` starts at its parent's peak (Linux carries it over the exec).
pub(crate) fn peak_rss_kb() -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// `CLOCK_MONOTONIC` in nanoseconds (the same clock `host.c` reads, comparable across
/// processes).
pub(crate) fn mono_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// User + system CPU time of this process (all threads), in nanoseconds.
pub(crate) fn cpu_ns() -> i64 {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    rusage_cpu_ns(&ru)
}

/// User + system time of a rusage, in nanoseconds.
pub(crate) fn rusage_cpu_ns(ru: &libc::rusage) -> i64 {
    (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1_000_000_000
        + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1_000
}
