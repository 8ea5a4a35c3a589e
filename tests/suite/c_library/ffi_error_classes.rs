//! Provider failures keep their taxonomy class all the way to the host, through the C ABI, in
//! every delivery mode: the `ERROR` event, `TURN_COMPLETED.error_details` and the details of the
//! `robota_error` that `robota_session_wait` returns all carry the same
//! `code` / `category` / `recoverable`.

use std::ffi::{c_char, c_void, CStr, CString};
use std::net::TcpListener;
use std::ptr::null_mut;
use std::sync::{Condvar, Mutex};

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply};
use crate::support_ffi::runtime;

#[derive(Default)]
struct Seen {
    events: Mutex<Vec<Value>>,
    cond: Condvar,
}

unsafe extern "C" fn on_event(
    ud: *mut c_void,
    _s: *mut robota_session,
    kind: u32,
    _turn: u64,
    p: *const c_char,
    n: usize,
) {
    // SAFETY: `ud` is the `Seen` the test keeps alive past the session; the payload is `n`
    // readable bytes for the duration of the callback.
    let (seen, payload) = unsafe { crate::support_ffi::callback_args::<Seen>(ud, p, n) };
    if kind == ROBOTA_EVENT_ERROR || kind == ROBOTA_EVENT_TURN_COMPLETED {
        let mut v: Value = serde_json::from_slice(payload).unwrap();
        v["type"] = json!(if kind == ROBOTA_EVENT_ERROR {
            "error"
        } else {
            "turn_completed"
        });
        seen.events.lock().unwrap().push(v);
        seen.cond.notify_all();
    }
}

/// `(name, reply or None for a refused connection, code, category, recoverable)`.
fn classes() -> Vec<(
    &'static str,
    Option<Reply>,
    &'static str,
    &'static str,
    bool,
)> {
    vec![
        (
            "401",
            Some(Reply::error(
                401,
                r#"{"error":{"message":"invalid x-api-key"}}"#,
            )),
            "AUTHENTICATION_ERROR",
            "user",
            false,
        ),
        (
            "403",
            Some(Reply::error(403, r#"{"error":{"message":"forbidden"}}"#)),
            "AUTHENTICATION_ERROR",
            "user",
            false,
        ),
        (
            "429",
            Some(Reply::error(429, r#"{"error":{"message":"slow down"}}"#)),
            "RATE_LIMIT_ERROR",
            "provider",
            true,
        ),
        ("refused", None, "NETWORK_ERROR", "system", true),
        (
            "unknown model",
            Some(Reply::error(
                404,
                r#"{"error":{"message":"The model `nope` does not exist"}}"#,
            )),
            "MODEL_NOT_AVAILABLE",
            "user",
            false,
        ),
        (
            "validation 500",
            Some(Reply::error(
                500,
                r#"{"error":{"message":"1 validation error: messages.1.content Input should be a valid string"}}"#,
            )),
            "PROVIDER_ERROR",
            "provider",
            false,
        ),
        (
            "400",
            Some(Reply::error(400, r#"{"error":{"message":"bad field"}}"#)),
            "PROVIDER_ERROR",
            "provider",
            false,
        ),
    ]
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn take_details(e: *mut robota_error) -> Value {
    let d = robota_error_details(e);
    assert!(!d.is_null(), "wait's error has details");
    // SAFETY: non-NULL details are a NUL-terminated string valid until `robota_error_free`.
    let v = serde_json::from_str(&unsafe { CStr::from_ptr(d) }.to_string_lossy()).unwrap();
    robota_error_free(e);
    v
}

/// Runs one failing turn in `delivery` mode and returns (ERROR payload, TURN_COMPLETED
/// payload, wait's error details).
fn failing_turn(base_url: &str, kind: &str, delivery: &str) -> (Value, Value, Value) {
    let cfg = json!({"v":1,"providers":{"p":{"kind":kind,"base_url":base_url,"api_key":"k-123",
        "max_retries":0,"retry_base_delay_ms":1}}});
    let rt = runtime(&cfg.to_string());
    let seen = Seen::default();
    let sj = CString::new(
        json!({"v":1,"provider":"p","model":"nope","delivery":delivery,"tools":[]}).to_string(),
    )
    .unwrap();
    let mut s = null_mut();
    let pull = delivery == "pull";
    let (cb, ud): (robota_event_fn, *mut c_void) = if pull {
        (None, null_mut())
    } else {
        (Some(on_event as _), &seen as *const Seen as *mut c_void)
    };
    assert_eq!(
        robota_session_new(rt, sj.as_ptr(), cb, ud, None, &mut s, null_mut()),
        ROBOTA_OK
    );
    let input = CString::new(r#"{"text":"hi"}"#).unwrap();
    let mut turn = 0;
    assert_eq!(
        robota_session_submit(s, input.as_ptr(), &mut turn, null_mut()),
        ROBOTA_OK
    );
    let mut e = null_mut();
    assert_eq!(
        robota_session_wait(s, turn, 30_000, &mut e),
        ROBOTA_E_PROVIDER
    );
    let waited = take_details(e);
    let events: Vec<Value> = match delivery {
        "pull" => {
            let mut out = Vec::new();
            loop {
                let ev = crate::support_ffi::next_event(s);
                let t = ev["type"].as_str().unwrap_or("").to_string();
                if t == "error" || t == "turn_completed" {
                    out.push(ev.get("payload").cloned().map_or(ev.clone(), |p| {
                        let mut p = p;
                        p["type"] = json!(t);
                        p
                    }));
                }
                if t == "turn_completed" {
                    break out;
                }
            }
        }
        "pump" => {
            while seen.events.lock().unwrap().len() < 2 {
                robota_session_dispatch(s, 100, 1000);
            }
            seen.events.lock().unwrap().clone()
        }
        _ => {
            let mut ev = seen.events.lock().unwrap();
            while ev.len() < 2 {
                ev = seen.cond.wait(ev).unwrap();
            }
            ev.clone()
        }
    };
    robota_session_free(s);
    robota_runtime_free(rt);
    let error = events
        .iter()
        .find(|e| e["type"] == "error")
        .unwrap()
        .clone();
    let done = events
        .iter()
        .find(|e| e["type"] == "turn_completed")
        .unwrap()
        .clone();
    (error, done, waited)
}

#[test]
fn every_failure_keeps_its_class_in_every_delivery_mode() {
    for kind in ["anthropic", "openai", "gemini"] {
        for (name, reply, code, category, recoverable) in classes() {
            for delivery in ["thread", "pump", "pull"] {
                let server = FakeServer::start();
                let base = match &reply {
                    Some(r) => {
                        server.enqueue(r.clone());
                        server.base_url_for(kind)
                    }
                    None => format!("http://127.0.0.1:{}", closed_port()),
                };
                let (error, done, waited) = failing_turn(&base, kind, delivery);
                let at = format!("{kind} {name} {delivery}");
                for (what, v) in [
                    ("ERROR", &error),
                    ("TURN_COMPLETED.error_details", &done["error_details"]),
                    ("wait", &waited),
                ] {
                    assert_eq!(v["code"], code, "{at}: {what}: {v}");
                    assert_eq!(v["category"], category, "{at}: {what}: {v}");
                    assert_eq!(v["recoverable"], recoverable, "{at}: {what}: {v}");
                }
                assert_eq!(done["stop_reason"], "error", "{at}");
                assert_eq!(done["error"], error["message"], "{at}");
                assert!(
                    !error["message"].as_str().unwrap().contains("k-123"),
                    "{at}"
                );
                if reply.is_some() {
                    assert_eq!(server.requests().len(), 1, "{at}: not retried");
                }
            }
        }
    }
}
