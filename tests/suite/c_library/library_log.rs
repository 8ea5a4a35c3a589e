//! The library log reaches the host through `robota_set_log_callback` from every layer: a
//! provider retry (providers), a permission decision (session), never a secret.

use std::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;

use robota::ffi::*;
use robota_engine::core::message::Message;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::fake_server::FakeServer;
use crate::support::log::sink_lock;
use crate::support::provider_cases as cases;

/// Log lines `(level, target, message)` collected by [`collect`].
type Lines = Mutex<Vec<(i32, String, String)>>;

unsafe extern "C" fn collect(
    user_data: *mut c_void,
    level: i32,
    target: *const c_char,
    message: *const c_char,
    _len: usize,
) {
    // SAFETY: `user_data` is the `Lines` that `install` registered; it outlives the sink.
    let lines = unsafe { &*(user_data as *const Lines) };
    // SAFETY: the library passes NUL-terminated strings valid for the call.
    let target = unsafe { CStr::from_ptr(target) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: as above.
    let message = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    lines.lock().unwrap().push((level, target, message));
}

/// Installs [`collect`] over `lines` at DEBUG; removed by [`uninstall`].
fn install(lines: &Lines) {
    let st = robota_set_log_callback(
        Some(collect),
        lines as *const Lines as *mut c_void,
        None,
        ROBOTA_LOG_DEBUG,
        std::ptr::null_mut(),
    );
    assert_eq!(st, ROBOTA_OK);
}

fn uninstall() {
    let st = robota_set_log_callback(
        None,
        std::ptr::null_mut(),
        None,
        ROBOTA_LOG_DEBUG,
        std::ptr::null_mut(),
    );
    assert_eq!(st, ROBOTA_OK);
}

#[test]
fn a_provider_retry_is_logged_at_debug_without_the_key() {
    let _sink = sink_lock();
    let server = FakeServer::start();
    let base = server.base_url();
    drop(server);
    // Leaked: a log call racing with `uninstall` on another thread may still reach it.
    let lines: &'static Lines = Box::leak(Box::default());
    install(lines);
    let client = robota_engine::providers::new_http_client().unwrap();
    let p = robota_engine::providers::create_provider(
        "retrying",
        &json!({"kind": "anthropic", "base_url": base, "api_key": "sk-secret-key-42",
                "max_retries": 1, "retry_base_delay_ms": 1}),
        &client,
    )
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let e = rt
        .block_on(cases::chat(
            p.as_ref(),
            &mut cases::Rec::default(),
            CancellationToken::new(),
        ))
        .unwrap_err();
    uninstall();
    assert_eq!(e.code(), "NETWORK_ERROR");
    let lines = lines.lock().unwrap().clone();
    let retries: Vec<_> = lines
        .iter()
        .filter(|(_, t, m)| t == "robota::providers" && m.contains("\"retrying\""))
        .collect();
    assert_eq!(retries.len(), 1, "{lines:?}");
    assert_eq!(retries[0].0, ROBOTA_LOG_DEBUG);
    assert_eq!(
        retries[0].2,
        "provider \"retrying\": attempt 1 failed (NETWORK_ERROR), retry 1 of 1 in 0 ms"
    );
    assert!(lines
        .iter()
        .all(|(_, _, m)| !m.contains("sk-secret-key-42")));
}

#[test]
fn a_permission_decision_is_logged_at_debug() {
    use crate::support::session::*;
    use robota_engine::core::tool::Tool;
    use robota_engine::session::{Session, SessionRunOptions};
    use std::sync::Arc;
    let _sink = sink_lock();
    let dir = tempfile::tempdir().unwrap();
    // Leaked: a log call racing with `uninstall` on another thread may still reach it.
    let lines: &'static Lines = Box::leak(Box::default());
    install(lines);
    let t = RecTool::new("Custom");
    let mut o = options(
        scripted(call_then_answer("Custom", json!({}), "done")),
        dir.path(),
        vec![t.clone() as Arc<dyn Tool>],
    );
    o.session_id = Some("log-perm-session".into());
    let session = Session::new(o).unwrap();
    rt().block_on(session.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    uninstall();
    let lines = lines.lock().unwrap().clone();
    let decisions: Vec<_> = lines
        .iter()
        .filter(|(_, t, m)| t == "robota::permissions" && m.starts_with("log-perm-session "))
        .map(|(l, _, m)| (*l, m.as_str()))
        .collect();
    assert_eq!(
        decisions,
        vec![(ROBOTA_LOG_DEBUG, "log-perm-session Custom: denied")],
        "{lines:?}"
    );
    assert_eq!(t.count(), 0);
}
