//! "Wait means delivered" through the exported C functions, called as a C host would:
//! `robota_session_wait` returns only after the turn's `TURN_COMPLETED` callback returned
//! (`thread` delivery), also for `wait(0)`, aborted turns and a dropped queued prompt.

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;

use crate::support_ffi::{runtime, session_with_events, submit, watched_ptr, Watched};
use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};

/// What the callback saw, and a gate that holds the `TURN_COMPLETED` callback until opened.
type Seen = Watched<SeenState>;

#[derive(Default)]
struct SeenState {
    text: String,
    /// Turn ids of the `TURN_COMPLETED` callbacks that returned, in order.
    completed: Vec<u64>,
    /// While true, a `TURN_COMPLETED` callback blocks (entered = it is blocked now).
    hold_completed: bool,
    entered_completed: bool,
}

unsafe extern "C" fn on_event(
    ud: *mut c_void,
    _s: *mut robota_session,
    kind: u32,
    turn: u64,
    p: *const c_char,
    n: usize,
) {
    // SAFETY: `ud` is the `Seen` the test passed and keeps alive past the session; the payload
    // is `n` readable bytes for the duration of the callback.
    let (seen, payload) = unsafe { crate::support_ffi::callback_args::<Seen>(ud, p, n) };
    let mut st = seen.state.lock().unwrap();
    match kind {
        ROBOTA_EVENT_TEXT_DELTA => {
            st.text.push_str(std::str::from_utf8(payload).unwrap());
            seen.cond.notify_all();
        }
        ROBOTA_EVENT_TURN_COMPLETED => {
            st.entered_completed = true;
            seen.cond.notify_all();
            while st.hold_completed {
                st = seen.cond.wait(st).unwrap();
            }
            st.completed.push(turn);
        }
        _ => {}
    }
}

fn session(rt: *mut robota_runtime, seen: &Seen) -> *mut robota_session {
    let json = r#"{"v":1,"provider":"s","model":"m"}"#;
    session_with_events(rt, json, Some(on_event), watched_ptr(seen))
}

const TWO_DELTAS: &str = r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[{"deltas":["a","b"]},{"deltas":["c"]}]}}}"#;

#[test]
fn wait_does_not_return_while_the_turn_completed_callback_runs() {
    let rt = runtime(TWO_DELTAS);
    let seen = Seen::default();
    seen.state.lock().unwrap().hold_completed = true;
    let s = session(rt, &seen);
    let turn = submit(s, "go");
    {
        let mut st = seen.state.lock().unwrap();
        while !st.entered_completed {
            st = seen.cond.wait(st).unwrap();
        }
    }
    // The engine is done and TURN_COMPLETED is in the host's hands, but its callback has not
    // returned: wait must not report the turn as delivered.
    assert_eq!(
        robota_session_wait(s, turn, 0, null_mut()),
        ROBOTA_E_TIMEOUT
    );
    assert_eq!(robota_session_wait(s, 0, 100, null_mut()), ROBOTA_E_TIMEOUT);
    seen.state.lock().unwrap().hold_completed = false;
    seen.cond.notify_all();
    assert_eq!(robota_session_wait(s, turn, -1, null_mut()), ROBOTA_OK);
    assert_eq!(seen.state.lock().unwrap().completed, [turn]);
    assert_eq!(robota_session_wait(s, 0, 0, null_mut()), ROBOTA_OK);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn wait_zero_returns_after_every_turn_was_delivered() {
    let rt = runtime(TWO_DELTAS);
    for _ in 0..20 {
        let seen = Seen::default();
        let s = session(rt, &seen);
        let first = submit(s, "one");
        let second = submit(s, "two"); // queued behind the first
        assert_eq!(robota_session_wait(s, 0, 30_000, null_mut()), ROBOTA_OK);
        {
            let st = seen.state.lock().unwrap();
            assert_eq!(st.completed, [first, second]);
            assert_eq!(st.text, "abc");
        }
        robota_session_free(s);
    }
    robota_runtime_free(rt);
}

#[test]
fn aborted_and_dropped_queued_turns_are_delivered_before_wait_returns() {
    let rt = runtime(
        r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[{"deltas":["partial"],"hang":true}]}}}"#,
    );
    for _ in 0..20 {
        let seen = Seen::default();
        let s = session(rt, &seen);
        let running = submit(s, "hang");
        let queued = submit(s, "queued");
        {
            let mut st = seen.state.lock().unwrap();
            while st.text.is_empty() {
                st = seen.cond.wait(st).unwrap();
            }
        }
        assert_eq!(robota_session_abort(s, 0), ROBOTA_OK);
        assert_eq!(
            robota_session_wait(s, queued, 30_000, null_mut()),
            ROBOTA_E_ABORTED
        );
        assert!(seen.state.lock().unwrap().completed.contains(&queued));
        assert_eq!(
            robota_session_wait(s, running, 30_000, null_mut()),
            ROBOTA_E_ABORTED
        );
        // Both reported once; in either order (the running turn may finish its abort before
        // the dropped prompt's report is emitted).
        let mut completed = seen.state.lock().unwrap().completed.clone();
        completed.sort_unstable();
        assert_eq!(completed, [running, queued]);
        robota_session_free(s);
    }
    robota_runtime_free(rt);
}

/// A wait with a timeout on a turn still running (it waits first for the turn's last event to
/// be handed over) ends at its timeout with the turn's own error, not the delivery's; once the
/// turn ends, the turn's result.
#[test]
fn a_timed_wait_on_a_running_turn_names_the_turn() {
    let rt = runtime(
        r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[{"deltas":["partial"],"hang":true}]}}}"#,
    );
    let seen = Seen::default();
    let s = session(rt, &seen);
    let turn = submit(s, "hang");
    let mut e = null_mut();
    assert_eq!(robota_session_wait(s, turn, 50, &mut e), ROBOTA_E_TIMEOUT);
    // SAFETY: the failed call wrote an error whose message is NUL-terminated until freed.
    let message = unsafe { std::ffi::CStr::from_ptr(robota_error_message(e)) }
        .to_string_lossy()
        .into_owned();
    robota_error_free(e);
    assert_eq!(
        message,
        format!("turn {turn} did not finish within the timeout")
    );
    assert!(seen.state.lock().unwrap().completed.is_empty());
    assert_eq!(robota_session_abort(s, turn), ROBOTA_OK);
    assert_eq!(
        robota_session_wait(s, turn, 30_000, null_mut()),
        ROBOTA_E_ABORTED
    );
    assert_eq!(seen.state.lock().unwrap().completed, [turn]);
    robota_session_free(s);
    robota_runtime_free(rt);
}
