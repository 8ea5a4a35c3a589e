//! `robota_query` from Rust: persisted queries report their session id and land in the store,
//! a failed turn is `ROBOTA_E_PROVIDER` naming why, settings apply to the temporary session.

use std::ffi::{CStr, CString};
use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::runtime;

/// `Ok(out_json)` or `(status, message)`.
fn query(
    rt: *mut robota::ffi::robota_runtime,
    doc: &Value,
) -> Result<Value, (robota_status, String)> {
    query_with_details(rt, doc).map_err(|(st, msg, _)| (st, msg))
}

/// `Ok(out_json)` or `(status, message, details JSON)`.
fn query_with_details(
    rt: *mut robota::ffi::robota_runtime,
    doc: &Value,
) -> Result<Value, (robota_status, String, Value)> {
    let q = CString::new(doc.to_string()).unwrap();
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_query(rt, q.as_ptr(), None, null_mut(), None, &mut out, &mut e);
    if st == ROBOTA_OK {
        // SAFETY: the library wrote an owned NUL-terminated string.
        let text = unsafe { CStr::from_ptr(out) }
            .to_string_lossy()
            .into_owned();
        robota_string_free(out);
        return Ok(serde_json::from_str(&text).unwrap());
    }
    // SAFETY: a non-NULL message is NUL-terminated and valid until robota_error_free.
    let msg = unsafe { CStr::from_ptr(robota_error_message(e)) }
        .to_string_lossy()
        .into_owned();
    let details_ptr = robota_error_details(e);
    let details = if details_ptr.is_null() {
        Value::Null
    } else {
        // SAFETY: non-NULL details are NUL-terminated JSON valid until robota_error_free.
        serde_json::from_str(&unsafe { CStr::from_ptr(details_ptr) }.to_string_lossy()).unwrap()
    };
    robota_error_free(e);
    Err((st, msg, details))
}

#[test]
fn a_persisted_query_reports_its_session_id_and_is_in_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["fine"]).usage(7, 2)));
    let rt = runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("anthropic")},"session_dir": dir.path()})
            .to_string(),
    );
    let out = query(
        rt,
        &json!({"v":1,"provider":"p","model":"m","tools":[],"persist":true,"session_id":"q-1",
                "prompt":"how are you","system_prompt":"S"}),
    )
    .unwrap();
    assert_eq!(out["v"], 1);
    assert_eq!(out["response"], "fine");
    assert_eq!(out["stop_reason"], "complete");
    assert_eq!(out["session_id"], "q-1");
    assert_eq!(out["usage"]["input_tokens"], 7);
    assert_eq!(out["usage"]["output_tokens"], 2);
    let roles: Vec<&str> = out["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, vec!["system", "user", "assistant"]);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("q-1.json")).unwrap())
            .unwrap();
    assert_eq!(saved["message_count"], 1);
    assert_eq!(saved["config"]["permission_mode"], "bypassPermissions");
    robota_runtime_free(rt);
}

#[test]
fn a_failed_query_is_a_provider_error_naming_why() {
    let server = FakeServer::start();
    server.enqueue(Reply::error(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad model name"}}"#,
    ));
    let rt =
        runtime(&json!({"v":1,"providers":{"p": server.provider_config("anthropic")}}).to_string());
    let (st, msg, details) = query_with_details(
        rt,
        &json!({"v":1,"provider":"p","model":"m","tools":[],"prompt":"x"}),
    )
    .unwrap_err();
    assert_eq!(st, ROBOTA_E_PROVIDER);
    assert!(msg.starts_with("the query failed: "), "{msg}");
    assert!(msg.contains("bad model name"), "{msg}");
    // The taxonomy class survives: a 400 validation error is not worth retrying.
    assert_eq!(details["code"], "PROVIDER_ERROR", "{details}");
    assert_eq!(details["category"], "provider", "{details}");
    assert_eq!(details["recoverable"], false, "{details}");
    let (st, msg) = query(rt, &json!({"v":1,"provider":"p","model":"m","prompt":5})).unwrap_err();
    assert_eq!(st, ROBOTA_E_INVALID_CONFIG);
    assert_eq!(msg, "query_json: field \"prompt\" must be a string");
    robota_runtime_free(rt);
}

#[test]
fn a_query_with_project_settings_gets_the_assembled_prompt() {
    let root = tempfile::tempdir().unwrap();
    let proj = root.path().join("proj");
    std::fs::create_dir_all(proj.join(".robota")).unwrap();
    std::fs::write(proj.join("AGENTS.md"), "be kind").unwrap();
    std::fs::write(proj.join(".robota/settings.json"), r#"{"language":"ja"}"#).unwrap();
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
    let rt = runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("anthropic")},
                "env":{"ROBOTA_HOME": root.path().join("rh"), "HOME": root.path().join("h")}})
        .to_string(),
    );
    query(rt, &json!({"v":1,"provider":"p","model":"m","tools":[],"settings":"project","cwd":proj,"prompt":"hi"}))
        .unwrap();
    assert_eq!(
        server.requests()[0].system_text(),
        format!(
            "## Agent Instructions\nbe kind\n\n## Working Directory\n`{}`\n\n## Response Language\nja\n\n## Permission Mode\n- **Trust level:** full\n- **Mode:** bypassPermissions",
            proj.display(),
        )
    );
    robota_runtime_free(rt);
}
