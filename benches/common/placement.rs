//! Where the benches' threads run. On this 2-vCPU KVM machine a wake-up of a thread that sleeps
//! on the other CPU costs far more than one on the same CPU (the bare two-thread round trip of
//! `cargo bench --bench handoff`: ~3.7 µs on one CPU, ~30 µs across the two), so a figure that
//! involves two threads depends on where the scheduler put them: runs come out in two modes.
//! Pinning the threads makes a run's placement a choice instead of an accident.

/// A placement of two parties (a bench's two threads, or a client and its server).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Wherever the scheduler puts them (no pinning).
    Free,
    /// Both on the first CPU this process may use.
    Same,
    /// The first party on the first CPU, the second on the second.
    Split,
}

impl Place {
    /// Every placement, in report order.
    pub const ALL: [Place; 3] = [Place::Free, Place::Same, Place::Split];

    /// `free`, `same` or `split`.
    pub fn parse(s: &str) -> Option<Place> {
        match s {
            "free" => Some(Place::Free),
            "same" => Some(Place::Same),
            "split" => Some(Place::Split),
            _ => None,
        }
    }

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Place::Free => "free",
            Place::Same => "same",
            Place::Split => "split",
        }
    }

    /// The CPUs of the first and the second party (`None`: not pinned).
    pub fn cpus(self) -> Option<(usize, usize)> {
        let allowed = allowed_cpus();
        let first = *allowed.first()?;
        match self {
            Place::Free => None,
            Place::Same => Some((first, first)),
            Place::Split => allowed.get(1).map(|&second| (first, second)),
        }
    }
}

/// The CPUs the calling thread may run on.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: an all-zero cpu_set_t is a valid (empty) set for sched_getaffinity to fill.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size passed.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0
    {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `cpu` is below CPU_SETSIZE and `set` is a valid cpu_set_t.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

/// Pins the calling thread (and the threads and processes it starts later) to `cpu`; `None`
/// lets it run on every CPU the process started with.
pub fn pin_current_thread(cpu: Option<usize>, all: &[usize]) {
    // SAFETY: an all-zero cpu_set_t is a valid (empty) set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let cpus = match cpu {
        Some(c) => vec![c],
        None => all.to_vec(),
    };
    for c in cpus {
        // SAFETY: `c` came from sched_getaffinity, so it is below CPU_SETSIZE.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size passed; 0 = the calling thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    assert_eq!(rc, 0, "sched_setaffinity({cpu:?})");
}
