//! The session store through the C ABI: what saving after each turn costs, per turn, with the
//! scripted provider (no network) so the store's share is what is measured:
//! * `none`: no persist;
//! * `directory`: `"persist": true` into the session directory (atomic file + fsync);
//! * `host store`: `"persist": true` through `robota_runtime_set_store`, the host keeping the
//!   snapshots in memory and answering inside its callback (the port's own cost: the request
//!   document, the callback, the answer);
//! * `stateless request`: what a node of a multi-node service does per request: resume the
//!   session by id from the host store, run one turn (saved through the store), free it.
//!
//! Sessions hold `TURNS` turns when measured (the snapshot grows with the history; its size is
//! printed). Run: `cargo bench --bench store_port [-- RUNS]` (prints medians per turn).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use robota::ffi::*;
use serde_json::{json, Value};

/// Turns each session has before the measured turn.
const TURNS: usize = 10;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// A host store in memory: id → (version, snapshot text).
#[derive(Default)]
struct MemStore {
    rt: AtomicUsize,
    records: Mutex<HashMap<String, (u64, String)>>,
    snapshot_bytes: AtomicUsize,
}

impl MemStore {
    fn answer(&self, req: &Value) -> String {
        let id = req["session_id"].as_str().unwrap_or("").to_string();
        let mut records = self.records.lock().unwrap();
        match req["op"].as_str().unwrap() {
            "save" => {
                let expected = req["expected_version"].as_u64().unwrap();
                let stored = records.get(&id).map_or(0, |r| r.0);
                if stored != expected {
                    return json!({"conflict": true, "version": stored}).to_string();
                }
                let snap = req["snapshot"].to_string();
                self.snapshot_bytes.store(snap.len(), Ordering::Relaxed);
                records.insert(id, (expected + 1, snap));
                format!("{{\"version\":{}}}", expected + 1)
            }
            "load" => match records.get(&id) {
                Some((v, snap)) => format!("{{\"version\":{v},\"snapshot\":{snap}}}"),
                None => "{\"found\":false}".into(),
            },
            op => panic!("unexpected store op {op}"),
        }
    }
}

unsafe extern "C" fn store_cb(ud: *mut c_void, id: u64, json: *const c_char, _len: usize) {
    // SAFETY: `ud` is the `MemStore` the bench keeps alive until the runtime is freed.
    let store = unsafe { &*(ud as *const MemStore) };
    // SAFETY: `json` is NUL-terminated and valid for the call.
    let req: Value = serde_json::from_slice(unsafe { CStr::from_ptr(json) }.to_bytes()).unwrap();
    let answer = c(&store.answer(&req));
    let rt = store.rt.load(Ordering::Relaxed) as *mut robota_runtime;
    assert_eq!(
        robota_store_complete(rt, id, answer.as_ptr(), null_mut()),
        ROBOTA_OK
    );
}

fn runtime(session_dir: &std::path::Path, store: Option<&MemStore>) -> *mut robota_runtime {
    let cfg = json!({"v":1,"providers":{"s":{"kind":"scripted"}},"session_dir": session_dir});
    let mut rt = null_mut();
    assert_eq!(
        robota_runtime_new(c(&cfg.to_string()).as_ptr(), &mut rt, null_mut()),
        ROBOTA_OK
    );
    if let Some(store) = store {
        store.rt.store(rt as usize, Ordering::Relaxed);
        let ud = store as *const MemStore as *mut c_void;
        assert_eq!(
            robota_runtime_set_store(rt, Some(store_cb), ud, None, null_mut()),
            ROBOTA_OK
        );
    }
    rt
}

fn session(rt: *mut robota_runtime, id: &str, persist: bool) -> *mut robota_session {
    let cfg = json!({"v":1,"provider":"s","model":"m","session_id":id,"persist":persist,
                     "delivery":"pull","replay_events":false});
    let mut s = null_mut();
    let st = robota_session_new(
        rt,
        c(&cfg.to_string()).as_ptr(),
        None,
        null_mut(),
        None,
        &mut s,
        null_mut(),
    );
    assert_eq!(st, ROBOTA_OK);
    s
}

/// One turn of `text`, to its end.
fn turn(s: *mut robota_session, text: &str) {
    let input = c(&json!({ "text": text }).to_string());
    let mut id = 0;
    assert_eq!(
        robota_session_submit(s, input.as_ptr(), &mut id, null_mut()),
        ROBOTA_OK
    );
    assert_eq!(robota_session_wait(s, id, 30_000, null_mut()), ROBOTA_OK);
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Median time of the measured turn of a session that had `TURNS` turns, over `runs` sessions.
fn per_turn(rt: *mut robota_runtime, persist: bool, runs: usize, tag: &str) -> Duration {
    let mut times = Vec::with_capacity(runs);
    for r in 0..runs {
        let s = session(rt, &format!("{tag}-{r}"), persist);
        for t in 0..TURNS {
            turn(s, &format!("question {t} with a few words of text in it"));
        }
        let start = Instant::now();
        turn(s, "the measured question");
        times.push(start.elapsed());
        robota_session_free(s);
    }
    median(times)
}

/// Median time of resume-by-id + one turn + free against the host store.
fn stateless(rt: *mut robota_runtime, runs: usize) -> Duration {
    let s = session(rt, "stateless", true);
    for t in 0..TURNS {
        turn(s, &format!("question {t} with a few words of text in it"));
    }
    robota_session_free(s);
    let resume = c(r#"{"v":1,"session_id":"stateless","delivery":"pull","replay_events":false}"#);
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let mut s = null_mut();
        let st = robota_session_resume(
            rt,
            resume.as_ptr(),
            None,
            null_mut(),
            None,
            &mut s,
            null_mut(),
        );
        assert_eq!(st, ROBOTA_OK);
        turn(s, "one more question");
        robota_session_free(s);
        times.push(start.elapsed());
    }
    median(times)
}

fn main() {
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(31);
    let dir = tempfile::tempdir().unwrap();
    let plain = runtime(dir.path(), None);
    let none = per_turn(plain, false, runs, "none");
    let directory = per_turn(plain, true, runs, "dir");
    let store = MemStore::default();
    let hosted = runtime(dir.path(), Some(&store));
    let host = per_turn(hosted, true, runs, "host");
    let snapshot = store.snapshot_bytes.load(Ordering::Relaxed);
    let request = stateless(hosted, runs);
    println!("store_port: per turn of a session with {TURNS} turns before it, median of {runs}");
    println!("| persist | per turn | over none |");
    println!("|---|---|---|");
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    for (name, d) in [
        ("none", none),
        ("directory (atomic file, fsync)", directory),
        ("host store (in memory, answered in the callback)", host),
        ("stateless request: resume by id + turn + free", request),
    ] {
        println!("| {name} | {:.0} µs | {:+.0} µs |", us(d), us(d) - us(none));
    }
    println!("snapshot size at the measured save: {snapshot} bytes");
    robota_runtime_free(hosted);
    robota_runtime_free(plain);
}
