//! The host I/O port through the C ABI (thread delivery, the host answering inside its
//! callback from an in-memory file system):
//! * Read: a turn of 50 rounds with one Read each, over the port and natively (real files in the
//!   page cache); the extra cost per Read beyond the host's own work (its callback time, measured)
//!   is `(host turn − native turn − host work) / 50 + native read`, where `native read` is the
//!   stat + read the native Read makes (measured alone). Target ≤ 20 µs.
//! * Grep over 2,000 files (20 directories × 100 files): one Grep call over the port (the walk
//!   is `list` + `read` requests) against native Grep on the same tree. Target ≤ 3×.
//!
//!
//! Each figure is given twice: wall time (what a host waits; on a loaded machine mostly
//! scheduling delay) and CPU time of the whole process (every thread, less load-sensitive;
//! the host's work is its callback's thread CPU time).
//!
//! Run: `cargo bench --bench host_io` (prints medians).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::path::Path;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};
use serde_json::{json, Value};

const READS: usize = 50;
const DIRS: usize = 20;
const FILES_PER_DIR: usize = 100;
const RUNS: usize = 41;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// The host: an in-memory file system under `/v`, and the time spent answering.
struct Host {
    rt: *mut robota_runtime,
    files: HashMap<String, String>,
    dirs: HashMap<String, Vec<(String, bool)>>,
    work_ns: AtomicU64,
    work_cpu_ns: AtomicU64,
    requests: AtomicU64,
}

fn file_text(d: usize, f: usize) -> String {
    let mut s = String::new();
    for l in 0..20 {
        if (d * FILES_PER_DIR + f).is_multiple_of(50) && l == 7 {
            s.push_str("let needle = find(haystack);\n");
        } else {
            s.push_str(&format!(
                "line {l} of file {f} in directory {d}: nothing to see\n"
            ));
        }
    }
    s
}

impl Host {
    fn new(rt: *mut robota_runtime) -> Host {
        let mut files = HashMap::new();
        let mut dirs: HashMap<String, Vec<(String, bool)>> = HashMap::new();
        for d in 0..DIRS {
            dirs.entry("/v".into())
                .or_default()
                .push((format!("d{d}"), true));
            for f in 0..FILES_PER_DIR {
                dirs.entry(format!("/v/d{d}"))
                    .or_default()
                    .push((format!("f{f}.txt"), false));
                files.insert(format!("/v/d{d}/f{f}.txt"), file_text(d, f));
            }
        }
        for i in 0..READS {
            files.insert(format!("/v/r{i}.txt"), file_text(0, i));
        }
        Host {
            rt,
            files,
            dirs,
            work_ns: AtomicU64::new(0),
            work_cpu_ns: AtomicU64::new(0),
            requests: AtomicU64::new(0),
        }
    }

    fn answer(&self, req: &Value) -> Value {
        let path = req["path"].as_str().unwrap_or("");
        match req["op"].as_str() {
            Some("read") => match self.files.get(path) {
                Some(t) => json!({ "content": t }),
                None => json!({"error": "not found"}),
            },
            Some("stat") => {
                if let Some(t) = self.files.get(path) {
                    json!({"exists": true, "is_dir": false, "size": t.len(), "mtime_ms": 0})
                } else if self.dirs.contains_key(path) {
                    json!({"exists": true, "is_dir": true, "size": 0, "mtime_ms": 0})
                } else {
                    json!({"exists": false, "is_dir": false, "size": 0, "mtime_ms": 0})
                }
            }
            Some("list") => match self.dirs.get(path) {
                Some(es) => {
                    json!({"entries": es.iter().map(|(n, d)| json!({"name": n, "is_dir": d})).collect::<Vec<_>>()})
                }
                None => json!({"error": "not a directory"}),
            },
            _ => json!({"error": "unsupported"}),
        }
    }
}

unsafe extern "C" fn host_io_cb(
    ud: *mut c_void,
    _s: *mut robota_session,
    io_id: u64,
    req: *const c_char,
    len: usize,
) {
    let t = Instant::now();
    let cpu = cpu_now(libc::CLOCK_THREAD_CPUTIME_ID);
    // SAFETY: `ud` is the `Host` the bench keeps alive; `req` holds `len` bytes.
    let host = unsafe { &*(ud as *const Host) };
    // SAFETY: the library passes `len` readable bytes at `req` for the call's duration.
    let bytes = unsafe { std::slice::from_raw_parts(req as *const u8, len) };
    let request: Value = serde_json::from_slice(bytes).unwrap();
    let answer = c(&host.answer(&request).to_string());
    host.work_ns
        .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    host.work_cpu_ns.fetch_add(
        (cpu_now(libc::CLOCK_THREAD_CPUTIME_ID) - cpu).as_nanos() as u64,
        Ordering::Relaxed,
    );
    host.requests.fetch_add(1, Ordering::Relaxed);
    assert_eq!(
        robota_host_io_complete(host.rt, io_id, answer.as_ptr(), null_mut()),
        ROBOTA_OK
    );
}

unsafe extern "C" fn no_events(
    _ud: *mut c_void,
    _s: *mut robota_session,
    _kind: u32,
    _turn: u64,
    _p: *const c_char,
    _n: usize,
) {
}

/// CPU time of `clock` (the process's or this thread's).
fn cpu_now(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write; the clock ids are Linux's.
    assert_eq!(unsafe { libc::clock_gettime(clock, &mut ts) }, 0);
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Wall and process CPU time of one measured span.
#[derive(Clone, Copy)]
struct Cost {
    wall: Duration,
    cpu: Duration,
}

/// One turn of a fresh session on `rt` (provider `s`); its wall and process CPU time.
fn turn(rt: *mut robota_runtime, session_json: &str) -> Cost {
    let mut s = null_mut();
    let j = c(session_json);
    assert_eq!(
        robota_session_new(
            rt,
            j.as_ptr(),
            Some(no_events),
            null_mut(),
            None,
            &mut s,
            null_mut()
        ),
        ROBOTA_OK
    );
    let input = c(r#"{"text":"go"}"#);
    let cpu = cpu_now(libc::CLOCK_PROCESS_CPUTIME_ID);
    let t = Instant::now();
    let mut id = 0;
    assert_eq!(
        robota_session_submit(s, input.as_ptr(), &mut id, null_mut()),
        ROBOTA_OK
    );
    assert_eq!(robota_session_wait(s, id, 60_000, null_mut()), ROBOTA_OK);
    let wall = t.elapsed();
    let cpu = cpu_now(libc::CLOCK_PROCESS_CPUTIME_ID) - cpu;
    robota_session_free(s);
    Cost { wall, cpu }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Medians of wall and CPU time.
fn median_cost(v: &[Cost]) -> Cost {
    Cost {
        wall: median(v.iter().map(|c| c.wall).collect()),
        cpu: median(v.iter().map(|c| c.cpu).collect()),
    }
}

/// What [`compare`] measured: medians per turn over the port and natively, the host's
/// work per turn (wall and its callback's CPU) and the requests of one turn.
struct Compared {
    host: Cost,
    native: Cost,
    work: Cost,
    requests: u64,
    /// Each run's (port turn, native turn, host work), measured one after the other.
    runs: Vec<(Cost, Cost, Cost)>,
}

fn runtime(turns: Value) -> *mut robota_runtime {
    let cfg = c(&json!({"v":1,"providers":{"s":{"kind":"scripted","turns": turns}}}).to_string());
    let mut rt = null_mut();
    assert_eq!(
        robota_runtime_new(cfg.as_ptr(), &mut rt, null_mut()),
        ROBOTA_OK
    );
    rt
}

fn read_turns(root: &str) -> Value {
    let mut turns: Vec<Value> = (0..READS)
        .map(|i| json!({"tool_calls":[{"id":format!("c{i}"),"name":"Read","arguments":{"filePath":format!("{root}/r{i}.txt")}}]}))
        .collect();
    turns.push(json!({"text":"done"}));
    Value::Array(turns)
}

fn grep_turns(root: &str) -> Value {
    json!([{"tool_calls":[{"id":"g","name":"Grep","arguments":{"pattern":"needle","path": root,"outputMode":"content"}}]},
           {"text":"done"}])
}

/// Median turn costs on a host-I/O session and on a native one; the host's work per turn.
fn compare(turns_for: impl Fn(&str) -> Value, tools: &str, disk: &Path) -> Compared {
    let root = disk.to_string_lossy().into_owned();
    let rt_host = runtime(turns_for("/v"));
    let host = Box::new(Host::new(rt_host));
    assert_eq!(
        robota_runtime_set_host_io(
            rt_host,
            Some(host_io_cb),
            &*host as *const Host as *mut c_void,
            None,
            null_mut()
        ),
        ROBOTA_OK
    );
    let host_cfg = json!({"v":1,"provider":"s","model":"m","cwd":"/v","tools":[tools],
                          "permission_mode":"bypassPermissions","host_io":true})
    .to_string();
    let rt_native = runtime(turns_for(&root));
    let native_cfg = json!({"v":1,"provider":"s","model":"m","cwd": root,"tools":[tools],
                            "permission_mode":"bypassPermissions"})
    .to_string();
    turn(rt_host, &host_cfg);
    turn(rt_native, &native_cfg);
    let (mut h, mut n, mut work) = (Vec::new(), Vec::new(), Vec::new());
    let mut requests = 0;
    for _ in 0..RUNS {
        host.work_ns.store(0, Ordering::Relaxed);
        host.work_cpu_ns.store(0, Ordering::Relaxed);
        host.requests.store(0, Ordering::Relaxed);
        h.push(turn(rt_host, &host_cfg));
        work.push(Cost {
            wall: Duration::from_nanos(host.work_ns.load(Ordering::Relaxed)),
            cpu: Duration::from_nanos(host.work_cpu_ns.load(Ordering::Relaxed)),
        });
        requests = host.requests.load(Ordering::Relaxed);
        n.push(turn(rt_native, &native_cfg));
    }
    robota_runtime_free(rt_host);
    robota_runtime_free(rt_native);
    drop(host);
    Compared {
        host: median_cost(&h),
        native: median_cost(&n),
        work: median_cost(&work),
        requests,
        runs: h
            .iter()
            .zip(&n)
            .zip(&work)
            .map(|((h, n), w)| (*h, *n, *w))
            .collect(),
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..DIRS {
        std::fs::create_dir_all(dir.path().join(format!("d{d}"))).unwrap();
        for f in 0..FILES_PER_DIR {
            std::fs::write(dir.path().join(format!("d{d}/f{f}.txt")), file_text(d, f)).unwrap();
        }
    }
    for i in 0..READS {
        std::fs::write(dir.path().join(format!("r{i}.txt")), file_text(0, i)).unwrap();
    }
    let us = |d: Duration| d.as_secs_f64() * 1e6;

    let r = compare(read_turns, "Read", dir.path());
    let (mut native_wall, mut native_cpu) = (Vec::new(), Vec::new());
    for _ in 0..200 {
        let cpu = cpu_now(libc::CLOCK_THREAD_CPUTIME_ID);
        let t = Instant::now();
        for i in 0..READS {
            let p = dir.path().join(format!("r{i}.txt"));
            std::hint::black_box(std::fs::metadata(&p).unwrap());
            std::hint::black_box(std::fs::read(&p).unwrap());
        }
        native_wall.push(t.elapsed() / READS as u32);
        native_cpu.push((cpu_now(libc::CLOCK_THREAD_CPUTIME_ID) - cpu) / READS as u32);
    }
    let native_read = Cost {
        wall: median(native_wall),
        cpu: median(native_cpu),
    };
    // The port's own cost per Read: a run's difference (port turn − native turn measured right
    // after it − the host's work) per Read, plus the stat + read the native turn made and the
    // port's turn did not; the median over the runs (pairs cancel most of the load's drift).
    let extra = |f: fn(&Cost) -> Duration| {
        let mut v: Vec<f64> = r
            .runs
            .iter()
            .map(|(h, n, w)| (us(f(h)) - us(f(n)) - us(f(w))) / READS as f64 + us(f(&native_read)))
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "host_io read: {READS} Reads per turn ({} host requests); wall: port {:.0} µs vs native {:.0} µs, \
         host work {:.0} µs, native stat+read {:.1} µs, extra per Read {:.1} µs; \
         CPU: port {:.0} µs vs native {:.0} µs, host work {:.0} µs, native stat+read {:.1} µs, \
         extra per Read {:.1} µs (target ≤ 20 µs)",
        r.requests,
        us(r.host.wall),
        us(r.native.wall),
        us(r.work.wall),
        us(native_read.wall),
        extra(|c| c.wall),
        us(r.host.cpu),
        us(r.native.cpu),
        us(r.work.cpu),
        us(native_read.cpu),
        extra(|c| c.cpu),
    );

    let g = compare(grep_turns, "Grep", dir.path());
    let ms = |d: Duration| us(d) / 1e3;
    println!(
        "host_io grep: {} files ({} host requests); wall: port {:.2} ms (host work {:.2} ms) vs native {:.2} ms: {:.2}×; \
         CPU: port {:.2} ms (host work {:.2} ms) vs native {:.2} ms: {:.2}× (target ≤ 3×)",
        DIRS * FILES_PER_DIR,
        g.requests,
        ms(g.host.wall),
        ms(g.work.wall),
        ms(g.native.wall),
        g.host.wall.as_secs_f64() / g.native.wall.as_secs_f64(),
        ms(g.host.cpu),
        ms(g.work.cpu),
        ms(g.native.cpu),
        g.host.cpu.as_secs_f64() / g.native.cpu.as_secs_f64(),
    );
}
