//! The user's own `MESSAGE` event comes right after `TURN_STARTED`, before any model request:
//! with `inline` delivery each callback runs on the turn's own thread, so the number of
//! requests the fake server has received when a callback runs is exact.

use std::ffi::{c_char, c_void};

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{callback_args, run_turn, runtime, session_with_events};

/// The server and, per event, `(type, role of a message, requests received so far)`.
struct Probe {
    server: FakeServer,
    seen: std::sync::Mutex<Vec<(String, Value, usize)>>,
}

unsafe extern "C" fn on_event(
    ud: *mut c_void,
    _s: *mut robota_session,
    kind: u32,
    _turn: u64,
    p: *const c_char,
    n: usize,
) {
    // SAFETY: `ud` is the `Probe` the test keeps alive past the session; the payload is `n`
    // readable bytes for the duration of the callback.
    let (probe, payload) = unsafe { callback_args::<Probe>(ud, p, n) };
    let requests = probe.server.requests().len();
    let (name, role) = if kind == ROBOTA_EVENT_TEXT_DELTA {
        ("text_delta".to_string(), Value::Null)
    } else {
        let ev: Value = serde_json::from_slice(payload).unwrap();
        (ev["type"].as_str().unwrap().to_string(), ev["role"].clone())
    };
    probe.seen.lock().unwrap().push((name, role, requests));
}

#[test]
fn the_user_message_is_delivered_before_the_first_model_request() {
    let probe = Probe {
        server: FakeServer::start(),
        seen: Default::default(),
    };
    probe
        .server
        .enqueue(Reply::anthropic(&Turn::text(["Hel", "lo"])));
    let rt = runtime(
        &json!({"v":1,"providers":{"p": probe.server.provider_config("anthropic")}}).to_string(),
    );
    let s = session_with_events(
        rt,
        r#"{"v":1,"provider":"p","model":"m","tools":[],"delivery":"inline"}"#,
        Some(on_event),
        &probe as *const Probe as *mut c_void,
    );
    run_turn(s, "hi").1.unwrap();
    robota_session_free(s);
    let seen = probe.seen.lock().unwrap().clone();
    let up_to_first_request: Vec<(String, Value, usize)> = seen
        .iter()
        .take_while(|(_, _, n)| *n == 0)
        .cloned()
        .collect();
    assert_eq!(
        up_to_first_request,
        [
            ("turn_started".to_string(), Value::Null, 0),
            ("message".to_string(), json!("user"), 0),
            ("warning".to_string(), Value::Null, 0),
            ("context_update".to_string(), Value::Null, 0),
        ],
        "{seen:?}"
    );
    let after: Vec<&str> = seen[up_to_first_request.len()..]
        .iter()
        .map(|(t, _, _)| t.as_str())
        .collect();
    assert_eq!(
        after,
        [
            "text_delta",
            "text_delta",
            "context_update",
            "message",
            "turn_completed"
        ],
        "{seen:?}"
    );
    robota_runtime_free(rt);
}
