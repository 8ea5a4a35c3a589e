//! `robota_session_run` through the exported C functions, called as a C host would:
//! [`driving`] (the turn is driven by the calling thread, with `inline` delivery every callback
//! runs there, its events are those of submit + wait, every event is delivered when it returns,
//! model streams come over HTTP on the caller's own kept connection) and
//! [`refusals_and_aborts`] (refusals, aborts, queueing and provider failures report the
//! documented statuses). This module holds the shared callback state and helpers.

mod driving;
mod refusals_and_aborts;

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;
use std::thread::ThreadId;

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};

use crate::support_ffi::{
    answer_add, callback_args, runtime_with_add_for, session_with_events, watched_ptr, AddHost,
    Watched,
};

type Seen = Watched<SeenState>;

#[derive(Default)]
struct SeenState {
    /// `(kind, payload)` of every event, in order.
    events: Vec<(u32, String)>,
    /// The threads the event and tool callbacks ran on.
    threads: Vec<ThreadId>,
    /// Tool calls the test answers itself (when `answer_later`).
    later: Vec<u64>,
    answer_later: bool,
    /// Status of `robota_session_run` called inside the next callback, when asked for.
    probe_run: bool,
    run_inside: Option<i32>,
    /// Free the session inside the first text delta's callback.
    free_on_delta: bool,
    rt: usize,
}

unsafe extern "C" fn on_event(
    ud: *mut c_void,
    s: *mut robota_session,
    kind: u32,
    _turn: u64,
    p: *const c_char,
    n: usize,
) {
    // SAFETY: `ud` is the `Seen` the test passed and keeps alive past the session; the payload
    // is `n` readable bytes for the duration of the callback.
    let (seen, payload) = unsafe { callback_args::<Seen>(ud, p, n) };
    let mut st = seen.state.lock().unwrap();
    st.events
        .push((kind, String::from_utf8_lossy(payload).into_owned()));
    st.threads.push(std::thread::current().id());
    if std::mem::take(&mut st.probe_run) {
        let input = c"{\"text\":\"nested\"}";
        st.run_inside = Some(robota_session_run(
            s,
            input.as_ptr(),
            null_mut(),
            null_mut(),
        ));
    }
    if kind == ROBOTA_EVENT_TEXT_DELTA && std::mem::take(&mut st.free_on_delta) {
        robota_session_free(s);
    }
    seen.cond.notify_all();
}

impl AddHost for SeenState {
    fn runtime(&mut self) -> &mut usize {
        &mut self.rt
    }

    fn on_call(&mut self) {
        self.threads.push(std::thread::current().id());
    }

    fn defer(&mut self, call_id: u64) -> bool {
        if self.answer_later {
            self.later.push(call_id);
        }
        self.answer_later
    }
}

/// Two tool rounds of `add`, then a three-delta answer; later turns echo the prompt.
const ADD_TWICE: &str = r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
  {"text":"Adding.","tool_calls":[{"id":"c1","name":"add","arguments":{"a":1,"b":2}}]},
  {"tool_calls":[{"id":"c2","name":"add","arguments":{"a":3,"b":4}}]},
  {"deltas":["3 ","and ","7"]}],"fallback":"echo"}}}"#;

/// A runtime for `config` with the host tool `add` answered by [`answer_add`].
fn runtime_for(config: &str, seen: &Seen) -> *mut robota_runtime {
    runtime_with_add_for(config, Some(answer_add::<SeenState>), seen)
}

fn session(
    rt: *mut robota_runtime,
    seen: &Seen,
    provider: &str,
    delivery: &str,
) -> *mut robota_session {
    let json = format!(
        r#"{{"v":1,"provider":"{provider}","model":"m","tools":["add"],"delivery":"{delivery}","permission_mode":"bypassPermissions"}}"#
    );
    session_with_events(rt, &json, Some(on_event), watched_ptr(seen))
}

fn text_of(events: &[(u32, String)]) -> String {
    events
        .iter()
        .filter(|e| e.0 == ROBOTA_EVENT_TEXT_DELTA)
        .map(|e| e.1.as_str())
        .collect()
}

fn kinds(events: &[(u32, String)]) -> Vec<u32> {
    events.iter().map(|e| e.0).collect()
}

/// What the callbacks saw so far (the runtime they answer on is kept).
fn take(seen: &Seen) -> SeenState {
    let mut st = seen.state.lock().unwrap();
    let rt = st.rt;
    let seen_so_far = std::mem::take(&mut *st);
    st.rt = rt;
    seen_so_far
}

/// A raw pointer that a test thread may carry (the ABI's handles are usable from any thread).
#[derive(Clone, Copy)]
struct Handle<T>(*mut T);
// SAFETY: robota's runtime and session handles may be used from any thread (ABI contract).
unsafe impl<T> Send for Handle<T> {}
