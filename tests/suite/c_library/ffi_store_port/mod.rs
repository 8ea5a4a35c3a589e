//! Through the C ABI: the host's session store (`robota_runtime_set_store`,
//! `robota_store_complete`). [`MemStore`] is a host store in memory with a real version check;
//! the tests drive sessions that persist, resume, list and delete through it, and the failures
//! (conflict, no answer, wrong answers).

mod conflicts;
mod failures;
mod sessions;

use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_void, CStr};
use std::ptr::null_mut;
use std::sync::{Arc, Condvar, Mutex};

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support_ffi as ffi;

/// How the store answers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Answering {
    /// Inside the callback.
    Inline,
    /// From a thread of its own, after the callback returned.
    Later,
    /// Never (the request times out).
    Never,
}

/// A session store in memory: records `id → (version, snapshot)`, transcript lines, every
/// request it received.
pub struct MemStore {
    rt: Mutex<usize>,
    pub answering: Mutex<Answering>,
    /// Shared by the stores of one database ([`MemStore::sharing`]).
    pub records: Arc<Mutex<BTreeMap<String, (u64, Value)>>>,
    pub transcripts: Arc<Mutex<HashMap<String, String>>>,
    pub requests: Mutex<Vec<(u64, Value)>>,
    /// Answers given instead of the store's own, by op, once each.
    pub overrides: Mutex<HashMap<String, String>>,
    received: Condvar,
}

impl MemStore {
    pub fn new() -> Arc<MemStore> {
        Arc::new(Self::empty())
    }

    /// Another runtime's store over the same records (two nodes, one database).
    pub fn sharing(other: &MemStore) -> Arc<MemStore> {
        Arc::new(MemStore {
            records: other.records.clone(),
            transcripts: other.transcripts.clone(),
            ..Self::empty()
        })
    }

    fn empty() -> MemStore {
        MemStore {
            rt: Mutex::new(0),
            answering: Mutex::new(Answering::Inline),
            records: Arc::default(),
            transcripts: Arc::default(),
            requests: Mutex::default(),
            overrides: Mutex::default(),
            received: Condvar::new(),
        }
    }

    /// Registers the store on `rt` (the runtime keeps a reference until it is replaced or the
    /// runtime is freed).
    pub fn register(self: &Arc<Self>, rt: *mut robota_runtime) {
        *self.rt.lock().unwrap() = rt as usize;
        let ud = Arc::into_raw(self.clone()) as *mut c_void;
        let mut e = null_mut();
        let st = robota_runtime_set_store(rt, Some(store_cb), ud, Some(free_store), &mut e);
        assert_eq!(st, ROBOTA_OK, "{:?}", ffi::failure(st, e));
    }

    /// The ops of the requests received so far, in order.
    pub fn ops(&self) -> Vec<String> {
        let reqs = self.requests.lock().unwrap();
        reqs.iter()
            .map(|(_, r)| r["op"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// Blocks until `n` requests arrived; their ids.
    pub fn wait_requests(&self, n: usize) -> Vec<u64> {
        let mut reqs = self.requests.lock().unwrap();
        while reqs.len() < n {
            let (r, timeout) = self
                .received
                .wait_timeout(reqs, std::time::Duration::from_secs(30))
                .unwrap();
            reqs = r;
            assert!(!timeout.timed_out(), "no store request {n}");
        }
        reqs.iter().map(|(id, _)| *id).collect()
    }

    /// The store's answer to `request` (a real version check for saves).
    pub fn answer(&self, request: &Value) -> String {
        let op = request["op"].as_str().unwrap_or("");
        if let Some(a) = self.overrides.lock().unwrap().remove(op) {
            return a;
        }
        let id = request["session_id"].as_str().unwrap_or("").to_string();
        let mut records = self.records.lock().unwrap();
        match op {
            "load" => match records.get(&id) {
                Some((v, snap)) => json!({"version": v, "snapshot": snap}),
                None => json!({"found": false}),
            },
            "save" => {
                let expected = request["expected_version"].as_u64().unwrap();
                let stored = records.get(&id).map_or(0, |r| r.0);
                if stored != expected {
                    json!({"conflict": true, "version": stored})
                } else {
                    records.insert(id, (expected + 1, request["snapshot"].clone()));
                    json!({"version": expected + 1})
                }
            }
            "delete" => json!({"deleted": records.remove(&id).is_some()}),
            "list" => {
                let mut all: Vec<Value> = records
                    .iter()
                    .filter(|(_, (_, s))| request["cwd"].is_null() || s["cwd"] == request["cwd"])
                    .map(|(id, (_, s))| {
                        json!({"id": id, "name": s["name"], "cwd": s["cwd"],
                               "created_at": s["created_at"], "updated_at": s["updated_at"],
                               "message_count": s["message_count"]})
                    })
                    .collect();
                all.sort_by(|a, b| b["updated_at"].as_str().cmp(&a["updated_at"].as_str()));
                json!({ "sessions": all })
            }
            "append" => {
                let mut t = self.transcripts.lock().unwrap();
                t.entry(id)
                    .or_default()
                    .push_str(request["lines"].as_str().unwrap());
                json!({})
            }
            _ => json!({"error": format!("unknown op {op}")}),
        }
        .to_string()
    }

    /// Answers request `id` through the C ABI.
    pub fn complete(&self, id: u64, answer: &str) -> Result<(), ffi::Failure> {
        let rt = *self.rt.lock().unwrap() as *mut robota_runtime;
        let mut e = null_mut();
        match robota_store_complete(rt, id, ffi::c(answer).as_ptr(), &mut e) {
            ROBOTA_OK => Ok(()),
            st => Err(ffi::failure(st, e)),
        }
    }
}

unsafe extern "C" fn store_cb(ud: *mut c_void, id: u64, json: *const c_char, len: usize) {
    // SAFETY: `ud` is the `Arc<MemStore>` registered, alive while it is registered.
    let store = unsafe { &*(ud as *const MemStore) };
    // SAFETY: `json` is NUL-terminated and valid for the call.
    let text = unsafe { CStr::from_ptr(json) }.to_str().unwrap();
    assert_eq!(text.len(), len);
    let request: Value = serde_json::from_str(text).unwrap();
    store.requests.lock().unwrap().push((id, request.clone()));
    store.received.notify_all();
    match *store.answering.lock().unwrap() {
        Answering::Inline => store.complete(id, &store.answer(&request)).unwrap(),
        Answering::Later => {
            // SAFETY: as above; the clone keeps the store alive on the thread.
            let store = unsafe {
                Arc::increment_strong_count(ud as *const MemStore);
                Arc::from_raw(ud as *const MemStore)
            };
            std::thread::spawn(move || store.complete(id, &store.answer(&request)).unwrap());
        }
        Answering::Never => {}
    }
}

unsafe extern "C" fn free_store(ud: *mut c_void) {
    // SAFETY: the reference `register` gave away.
    drop(unsafe { Arc::from_raw(ud as *const MemStore) });
}

/// A runtime whose provider `p` is `server`'s OpenAI endpoint, with `store` registered and an
/// empty session directory (nothing may be written there).
pub fn runtime_with(
    server: &crate::support::fake_server::FakeServer,
    store: &Arc<MemStore>,
    dir: &std::path::Path,
    extra: Value,
) -> *mut robota_runtime {
    let mut cfg = json!({"v":1,"providers":{"p": server.provider_config("openai")},
                         "session_dir": dir.join("sessions")});
    for (k, v) in extra.as_object().unwrap() {
        cfg[k] = v.clone();
    }
    let rt = ffi::runtime(&cfg.to_string());
    store.register(rt);
    rt
}

/// A session config persisting as `id`.
pub fn persisted(id: &str, cwd: &std::path::Path) -> String {
    json!({"v":1,"provider":"p","model":"m","cwd":cwd,"delivery":"pull","session_id":id,
           "persist":true})
    .to_string()
}

/// Runs one turn of `text` (pull delivery); the events and the wait's outcome.
pub fn turn(s: *mut robota_session, text: &str) -> (Vec<Value>, Result<(), ffi::Failure>) {
    let id = ffi::submit(s, text);
    let evs = ffi::events_until(s, "turn_completed");
    let mut e = null_mut();
    let outcome = match robota_session_wait(s, id, 30_000, &mut e) {
        ROBOTA_OK => Ok(()),
        st => Err(ffi::failure(st, e)),
    };
    (evs, outcome)
}
