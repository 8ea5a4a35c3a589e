//! Host-supplied providers (ABI v1.2) through the exported C functions: every user of a
//! provider profile reaches a registered host provider — sessions (also driven on the host's
//! thread), subagents, team templates, compaction and `robota_query` ([`users`]); events
//! pushed from other threads, into turns driven on the host's thread and into many sessions at
//! once, some aborted ([`threads`]).

mod budget;
mod cancel;
mod threads;
mod users;

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use robota::ffi::*;
use serde_json::Value;

use crate::support_ffi::{c, callback_args, failure};

/// Answers one call document with the events to push (inside the callback).
type Answer = Box<dyn Fn(&Value) -> Vec<Value> + Send + Sync>;

/// A host provider in Rust: records every document (call id and JSON) and answers each call
/// with what `answer` says, pushed inside the callback.
struct Host {
    rt: AtomicPtr<robota_runtime>,
    docs: Mutex<Vec<(u64, Value)>>,
    /// Notified at each document.
    arrived: Condvar,
    failed_pushes: Mutex<Vec<String>>,
    answer: Answer,
    /// Push from a new thread after the callback returned (else inside the callback).
    deferred: bool,
    freed: AtomicUsize,
}

impl Host {
    /// The documents so far.
    fn docs(&self) -> Vec<(u64, Value)> {
        self.docs.lock().unwrap().clone()
    }

    /// Waits (30 s at most) until a document satisfies `pred`.
    fn wait_for(&self, pred: impl Fn(&Value) -> bool) {
        let docs = self.docs.lock().unwrap();
        let (docs, _) = self
            .arrived
            .wait_timeout_while(docs, Duration::from_secs(30), |d| {
                !d.iter().any(|(_, x)| pred(x))
            })
            .unwrap();
        assert!(docs.iter().any(|(_, x)| pred(x)), "no such document came");
    }

    /// Waits (30 s at most) until the registration's `free_fn` ran (it may run just after
    /// `robota_runtime_free` returns, while a freed session lets go of the runtime); how often.
    fn wait_freed(&self) -> usize {
        let docs = self.docs.lock().unwrap();
        let _unused = self
            .arrived
            .wait_timeout_while(docs, Duration::from_secs(30), |_| {
                self.freed.load(Ordering::Acquire) == 0
            })
            .unwrap();
        self.freed.load(Ordering::Acquire)
    }

    /// The call documents so far.
    fn calls(&self) -> Vec<Value> {
        self.docs()
            .into_iter()
            .filter(|(_, d)| d["type"] == "call")
            .map(|(_, d)| d)
            .collect()
    }
}

unsafe extern "C" fn on_call(ud: *mut c_void, id: u64, doc: *const c_char, len: usize) {
    // SAFETY: `ud` is the `Host` registered with this callback; `doc` holds `len` bytes.
    let (host, bytes) = unsafe { callback_args::<Host>(ud, doc, len) };
    let doc: Value = serde_json::from_slice(bytes).unwrap();
    host.docs.lock().unwrap().push((id, doc.clone()));
    host.arrived.notify_all();
    if doc["type"] != "call" {
        return;
    }
    let events = (host.answer)(&doc);
    if !host.deferred {
        push_all(host, id, events);
        return;
    }
    // SAFETY: as above; the thread takes its own reference (the callback's is borrowed).
    let host = unsafe {
        Arc::increment_strong_count(ud as *const Host);
        Arc::from_raw(ud as *const Host)
    };
    std::thread::spawn(move || push_all(&host, id, events));
}

/// Pushes `events` for call `id`, recording the pushes that were refused.
fn push_all(host: &Host, id: u64, events: Vec<Value>) {
    let rt = host.rt.load(Ordering::Acquire);
    for ev in events {
        let mut e = std::ptr::null_mut();
        let st = robota_provider_push(rt, id, c(&ev.to_string()).as_ptr(), &mut e);
        if st != ROBOTA_OK {
            let f = failure(st, e);
            host.failed_pushes
                .lock()
                .unwrap()
                .push(format!("{ev}: {f:?}"));
        }
    }
}

unsafe extern "C" fn on_free(ud: *mut c_void) {
    // SAFETY: the reference `register` gave away with `Arc::into_raw`, taken back once.
    let host = unsafe { Arc::from_raw(ud as *const Host) };
    let _docs = host.docs.lock().unwrap();
    host.freed.fetch_add(1, Ordering::AcqRel);
    host.arrived.notify_all();
}

/// Registers a host provider `name` on `rt` answering with `answer`.
fn register(
    rt: *mut robota_runtime,
    name: &str,
    caps: Option<&str>,
    answer: impl Fn(&Value) -> Vec<Value> + Send + Sync + 'static,
) -> Arc<Host> {
    register_host(rt, name, caps, false, Box::new(answer))
}

/// Like [`register`], the events pushed later from a thread of their own.
fn register_deferred(
    rt: *mut robota_runtime,
    name: &str,
    answer: impl Fn(&Value) -> Vec<Value> + Send + Sync + 'static,
) -> Arc<Host> {
    register_host(rt, name, None, true, Box::new(answer))
}

fn register_host(
    rt: *mut robota_runtime,
    name: &str,
    caps: Option<&str>,
    deferred: bool,
    answer: Answer,
) -> Arc<Host> {
    let host = Arc::new(Host {
        rt: AtomicPtr::new(rt),
        docs: Mutex::new(Vec::new()),
        arrived: Condvar::new(),
        failed_pushes: Mutex::new(Vec::new()),
        answer,
        deferred,
        freed: AtomicUsize::new(0),
    });
    let ud = Arc::into_raw(host.clone()) as *mut c_void;
    let caps = caps.map(c);
    let mut e = std::ptr::null_mut();
    let st = robota_runtime_register_provider(
        rt,
        c(name).as_ptr(),
        caps.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
        Some(on_call),
        ud,
        Some(on_free),
        &mut e,
    );
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    host
}

/// The text of the last message of a call document (a user's text part, or the content).
fn last_text(doc: &Value) -> String {
    let last = doc["messages"].as_array().unwrap().last().unwrap();
    match &last["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts[0]["text"].as_str().unwrap_or_default().to_string(),
        _ => String::new(),
    }
}
