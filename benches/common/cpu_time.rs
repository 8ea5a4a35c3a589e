//! CPU time of the whole process (every thread), for the bench programs.

/// User + system CPU time of this process so far, in µs (`getrusage`).
pub fn cpu_us() -> f64 {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 * 1e6 + tv.tv_usec as f64;
    t(ru.ru_utime) + t(ru.ru_stime)
}
