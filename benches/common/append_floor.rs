//! The kernel's floor under a transcript: what appending a transcript's bytes to a fresh file
//! costs with nothing but `write(2)` and `fsync(2)`, paced as the transcript writer paces them
//! (writes of up to 256 KiB, an fsync as often as the measured turns met one: every 10 ms of
//! turns, and one at the end). No formatting,
//! no recording, no thread: the part of a transcript's cost no library code can remove (on this
//! VM a new page of a file costs ~1–2.5 µs, so a turn's ~4.4 KB of lines costs that much even
//! when written whole).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// As `session::transcript::writer::WRITE_CHUNK`.
const WRITE_CHUNK: usize = 256 * 1024;
/// As `session::transcript::writer::POLL`: the turns of this long share an fsync.
pub const POLL: Duration = Duration::from_millis(10);

/// Bytes per turn the transcripts in `dir` hold (every `*.jsonl` file's size over `turns`).
pub fn bytes_per_turn(dir: &Path, turns: usize) -> usize {
    let total: u64 = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    (total / turns.max(1) as u64) as usize
}

/// Appends `per_turn` bytes for each of `turns` turns to a fresh file in `dir` (deleted after),
/// with an fsync after every `per_sync` turns (the turns that took [`POLL`] when measured) and
/// at the end; returns the wall and CPU time (this thread, user + system) per turn in µs.
pub fn append(
    dir: &Path,
    per_turn: usize,
    turns: usize,
    per_sync: usize,
) -> std::io::Result<(f64, f64)> {
    let path = dir.join("append-floor.jsonl");
    let mut file: File = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&path)?;
    let line = vec![b'x'; WRITE_CHUNK + per_turn];
    let (t0, c0) = (Instant::now(), thread_cpu_ns());
    let mut waiting = 0usize;
    for turn in 1..=turns {
        waiting += per_turn;
        if waiting >= WRITE_CHUNK {
            file.write_all(&line[..waiting])?;
            waiting = 0;
        }
        if turn % per_sync.max(1) == 0 {
            file.write_all(&line[..waiting])?;
            waiting = 0;
            file.sync_data()?;
        }
    }
    file.write_all(&line[..waiting])?;
    file.sync_data()?;
    let (wall, cpu) = (t0.elapsed(), thread_cpu_ns() - c0);
    drop(file);
    std::fs::remove_file(&path)?;
    let n = turns.max(1) as f64;
    Ok((wall.as_secs_f64() * 1e6 / n, cpu as f64 / 1e3 / n))
}

/// CPU time of the calling thread (user + system), in nanoseconds.
fn thread_cpu_ns() -> i64 {
    // SAFETY: an all-zero timespec is a valid value for clock_gettime to overwrite.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}
