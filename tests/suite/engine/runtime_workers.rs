//! The runtime's async workers start when something first needs them
//! (`sdk::runtime::workers`): turns driven with `run` on the caller's thread start none, the first submitted turn starts them,
//! and once the runtime is gone a submitted turn fails with the reason instead of never ending.

use std::sync::Arc;
use std::time::Duration;

use robota_engine::sdk::error::ErrorCode;
use robota_engine::sdk::events;
use robota_engine::sdk::interactive::InteractiveSession;
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

use crate::support::host_session::{
    recorded_session, scripted_runtime, text_input as input, Recorder,
};

const WAIT: Option<Duration> = Some(Duration::from_secs(30));

/// A runtime with a scripted provider echoing every prompt, and a session on it whose events
/// are collected.
fn echo_session() -> (Runtime, InteractiveSession, Arc<Recorder>) {
    let rt = scripted_runtime(json!({"turns":[],"fallback":"echo"}), json!({}));
    let (session, seen) =
        recorded_session(&rt, &json!({"v":1,"provider":"s","model":"m"})).unwrap();
    (rt, session, seen)
}

/// The `TURN_COMPLETED` payloads seen so far, by turn id.
fn completed(seen: &Recorder) -> Vec<(u64, Value)> {
    seen.of_kind(events::TURN_COMPLETED)
        .iter()
        .map(|e| (e.turn_id, serde_json::from_str(&e.payload_text()).unwrap()))
        .collect()
}

#[test]
fn turns_run_on_the_calling_thread_start_no_worker_and_the_first_submitted_turn_starts_them() {
    let (rt, s, seen) = echo_session();
    assert!(
        !rt.shared().workers_started(),
        "a new runtime starts no worker"
    );
    assert_eq!(s.run(input("one")).unwrap(), 1);
    assert_eq!(s.wait(1, WAIT), Ok(()));
    assert_eq!(s.run(input("two")).unwrap(), 2);
    assert_eq!(s.wait(2, WAIT), Ok(()));
    assert!(
        !rt.shared().workers_started(),
        "turns the caller drives need no worker"
    );
    assert_eq!(s.submit(input("three")).unwrap(), 3);
    assert!(rt.shared().workers_started(), "submit starts the workers");
    assert_eq!(s.wait(3, WAIT), Ok(()));
    let done = completed(&seen);
    assert_eq!(
        done.iter().map(|d| d.0).collect::<Vec<_>>(),
        vec![1, 2, 3],
        "{done:?}"
    );
    for (_, c) in &done {
        assert_eq!(c["stop_reason"], "complete", "{c}");
    }
    assert_eq!(s.conversation().last().unwrap().content, "offline:three");
}

#[test]
fn a_turn_submitted_after_the_runtime_is_gone_fails_with_the_reason_instead_of_hanging() {
    let (rt, s, seen) = echo_session();
    let shared = rt.shared().clone();
    drop(rt);
    let err = shared.worker_handle().unwrap_err();
    assert_eq!(err.code, ErrorCode::Closed);
    assert_eq!(
        err.message,
        "the runtime has been freed: its workers cannot start"
    );
    let turn = s.submit(input("late")).unwrap();
    let failed = s.wait(turn, WAIT).unwrap_err();
    assert!(
        failed
            .message
            .contains("the runtime has been freed: its workers cannot start"),
        "{failed:?}"
    );
    assert!(!s.is_executing(), "the failed turn leaves the session idle");
    let done = completed(&seen);
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!(done[0].0, turn);
    assert_eq!(done[0].1["stop_reason"], "error", "{}", done[0].1);
}
