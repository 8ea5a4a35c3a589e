//! Sessions that last: compaction cost beyond the model call (1,000-message history, the
//! scripted provider answers at once), `robota_store_list` over 10,000 saved sessions, and a
//! scripted turn through the C ABI with and without a transcript.
//! Run: `cargo bench --bench store`
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::ffi::CString;
use std::ptr::null_mut;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use robota::core::message::Message;
use robota::core::store::ConversationStore;
use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};
use robota::providers::scripted::ScriptedProvider;
use robota::session::{CompactTrigger, Session, SessionOptions};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn history(n: usize) -> ConversationStore {
    let mut store = ConversationStore::new();
    store.append(Message::system("You are a benchmark."));
    for i in 0..n {
        if i % 2 == 0 {
            store.append(Message::user(format!(
                "question {i}: what does module {i} do?"
            )));
        } else {
            store.append(Message::assistant(format!(
                "Module {i} parses the configuration, validates it and hands it to the runtime; see src/mod_{i}.rs."
            )));
        }
    }
    store
}

fn compaction(cr: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let provider = Arc::new(
        ScriptedProvider::from_json(&json!({"turns": [], "fallback": "repeat_last"})).unwrap(),
    );
    let dir = std::env::temp_dir();
    let mut g = cr.benchmark_group("store");
    g.sample_size(30).measurement_time(Duration::from_secs(3));
    g.bench_function("compact_1000_messages", |b| {
        b.iter_batched(
            || {
                let mut o = SessionOptions::new(provider.clone(), "bench-model");
                o.cwd = dir.clone();
                o.history = Some(history(1000));
                Session::new(o).unwrap()
            },
            |s| {
                rt.block_on(s.compact(None, CompactTrigger::Manual, &CancellationToken::new()))
                    .unwrap()
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn saved_session(id: &str, cwd: &str, i: usize) -> String {
    let messages: Vec<serde_json::Value> = (0..20)
        .map(|k| json!({"id": format!("m{k}"), "role": if k % 2 == 0 {"user"} else {"assistant"},
                        "content": format!("message {k} of session {i} with some ordinary length text"),
                        "state": "complete", "timestamp": "2026-01-01T00:00:00.000Z"}))
        .collect();
    let doc = json!({
        "v": 1, "kind": "robota.session", "session_id": id, "name": format!("session {i}"),
        "cwd": cwd, "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": format!("2026-01-01T00:{:02}:{:02}.{:03}Z", i / 6000 % 60, i / 100 % 60, i % 1000),
        "message_count": 10,
        "config": {"provider": "s", "model": "m", "cwd": cwd},
        "session_allowed_tools": [], "messages": messages, "history": [],
    });
    serde_json::to_string_pretty(&doc).unwrap()
}

fn list(cr: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..10_000 {
        let id = format!("s-{i:05}");
        std::fs::write(
            dir.path().join(format!("{id}.json")),
            saved_session(&id, "/w", i),
        )
        .unwrap();
    }
    let cfg =
        json!({"v":1,"providers":{"s":{"kind":"scripted"}},"session_dir": dir.path()}).to_string();
    let mut rt: *mut robota_runtime = null_mut();
    assert_eq!(
        robota_runtime_new(c(&cfg).as_ptr(), &mut rt, null_mut()),
        ROBOTA_OK
    );
    let mut g = cr.benchmark_group("store");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("store_list_10000_sessions", |b| {
        b.iter(|| {
            let mut out = null_mut();
            assert_eq!(
                robota_store_list(rt, std::ptr::null(), &mut out, null_mut()),
                ROBOTA_OK
            );
            robota_string_free(out);
        })
    });
    g.bench_function("store_list_10000_sessions_limit_20", |b| {
        let q = c(r#"{"limit":20}"#);
        b.iter(|| {
            let mut out = null_mut();
            assert_eq!(
                robota_store_list(rt, q.as_ptr(), &mut out, null_mut()),
                ROBOTA_OK
            );
            robota_string_free(out);
        })
    });
    g.finish();
    robota_runtime_free(rt);
}

/// A session freed when dropped (outside the measured routine).
struct Owned(*mut robota_session);

impl Drop for Owned {
    fn drop(&mut self) {
        robota_session_free(self.0);
    }
}

fn transcript(cr: &mut Criterion) {
    let deltas = vec!["\"word \""; 20].join(",");
    let cfg = format!(
        r#"{{"v":1,"providers":{{"s":{{"kind":"scripted","turns":[{{"deltas":[{deltas}]}}],"fallback":"repeat_last"}}}}}}"#
    );
    let mut rt: *mut robota_runtime = null_mut();
    assert_eq!(
        robota_runtime_new(c(&cfg).as_ptr(), &mut rt, null_mut()),
        ROBOTA_OK
    );
    let disk = tempfile::tempdir().unwrap();
    let shm = tempfile::tempdir_in("/dev/shm").ok();
    let mut variants = vec![
        ("turn_without_transcript", None),
        ("turn_with_transcript", Some(disk.path())),
    ];
    if let Some(d) = &shm {
        variants.push(("turn_with_transcript_tmpfs", Some(d.path())));
    }
    let input = c(r#"{"text":"go"}"#);
    let mut g = cr.benchmark_group("store");
    g.sample_size(50).measurement_time(Duration::from_secs(4));
    for (name, dir) in variants {
        let mut doc = json!({"v":1,"provider":"s","model":"m"});
        if let Some(d) = dir {
            doc["transcript"] = json!(d);
        }
        let doc = c(&doc.to_string());
        // One fresh session per turn (created outside the measurement): every variant runs
        // the same first turn; the transcript's file open is not counted, its lines and the
        // fsync at turn end are.
        g.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let mut s: *mut robota_session = null_mut();
                    assert_eq!(
                        robota_session_new(
                            rt,
                            doc.as_ptr(),
                            None,
                            null_mut(),
                            None,
                            &mut s,
                            null_mut()
                        ),
                        ROBOTA_OK
                    );
                    Owned(s)
                },
                |s| {
                    let mut id = 0;
                    assert_eq!(
                        robota_session_submit(s.0, input.as_ptr(), &mut id, null_mut()),
                        ROBOTA_OK
                    );
                    assert_eq!(robota_session_wait(s.0, id, 30_000, null_mut()), ROBOTA_OK);
                    s
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
    robota_runtime_free(rt);
}

criterion_group!(benches, compaction, list, transcript);
criterion_main!(benches);
