//! Through the C ABI: text that is not JSON is `ROBOTA_E_INVALID_JSON` at every entry point that
//! reads a document (runtime config, session config, resume, a snapshot given as text, a
//! saved session file read by resume, fork), and valid JSON with the wrong content stays
//! `ROBOTA_E_INVALID_CONFIG`.

use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::json;

use crate::support_ffi as ffi;

/// `robota_runtime_new` on `json`: the status and message of its failure.
fn runtime_failure(json: &str) -> ffi::Failure {
    let j = ffi::c(json);
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_runtime_new(j.as_ptr(), &mut out, &mut e);
    assert!(out.is_null());
    ffi::failure(st, e)
}

fn check(f: Result<*mut robota_session, ffi::Failure>, status: robota_status, message: &str) {
    let Err(f) = f else {
        panic!("the call must fail")
    };
    assert_eq!((f.status, f.message.as_str()), (status, message));
}

#[test]
fn runtime_config_that_is_not_json_is_invalid_json() {
    let f = runtime_failure("{\"v\":1,");
    assert_eq!(
        (f.status, f.message.as_str()),
        (
            ROBOTA_E_INVALID_JSON,
            "config_json is not valid JSON: EOF while parsing a value at line 1 column 7"
        )
    );
    let f = runtime_failure(r#"{"v":1,"providers":5}"#);
    assert_eq!(f.status, ROBOTA_E_INVALID_CONFIG, "{}", f.message);
}

#[test]
fn session_resume_and_fork_documents_that_are_not_json_are_invalid_json() {
    let store = tempfile::tempdir().unwrap();
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"s":{"kind":"scripted"}},"session_dir":store.path()})
            .to_string(),
    );
    check(
        ffi::session_new(rt, "{\"v\":1"),
        ROBOTA_E_INVALID_JSON,
        "session_json is not valid JSON: EOF while parsing an object at line 1 column 6",
    );
    check(
        ffi::session_new(rt, r#"{"v":1,"provider":5}"#),
        ROBOTA_E_INVALID_CONFIG,
        "session config: field \"provider\" must be a string",
    );
    check(
        ffi::session_resume(rt, "not json"),
        ROBOTA_E_INVALID_JSON,
        "resume_json is not valid JSON: expected ident at line 1 column 2",
    );
    // A snapshot given as text that does not parse.
    check(
        ffi::session_resume(
            rt,
            &json!({"v":1,"snapshot":"{\"v\":1,\"kind\""}).to_string(),
        ),
        ROBOTA_E_INVALID_JSON,
        "snapshot is not valid JSON: EOF while parsing an object at line 1 column 13",
    );
    check(
        ffi::session_resume(rt, r#"{"v":1,"snapshot":{"v":1,"kind":"other"}}"#),
        ROBOTA_E_INVALID_CONFIG,
        "snapshot: field \"kind\" must be \"robota.session\"",
    );
    // A saved session file cut short (a crash mid-write by another program) and one that is
    // JSON but not a snapshot.
    std::fs::write(store.path().join("cut.json"), "{\"v\":1,\"kind\":").unwrap();
    check(
        ffi::session_resume(rt, r#"{"v":1,"session_id":"cut"}"#),
        ROBOTA_E_INVALID_JSON,
        "saved session is not valid JSON: EOF while parsing a value at line 1 column 14",
    );
    std::fs::write(store.path().join("bin.json"), [0xff, 0xfe, b'{']).unwrap();
    let f = ffi::session_resume(rt, r#"{"v":1,"session_id":"bin"}"#).unwrap_err();
    assert_eq!(f.status, ROBOTA_E_INVALID_JSON);
    assert_eq!(
        f.message,
        format!(
            "saved session is not valid JSON: {} is not UTF-8 text (invalid utf-8 sequence of 1 bytes from index 0)",
            store.path().join("bin.json").display()
        )
    );
    std::fs::write(store.path().join("odd.json"), "{\"v\":1}").unwrap();
    check(
        ffi::session_resume(rt, r#"{"v":1,"session_id":"odd"}"#),
        ROBOTA_E_INVALID_CONFIG,
        "snapshot: field \"kind\" must be \"robota.session\"",
    );
    let s = ffi::session_new(
        rt,
        r#"{"v":1,"provider":"s","model":"m","delivery":"pull"}"#,
    )
    .unwrap();
    check(
        ffi::session_fork(s, "{\"delivery\":"),
        ROBOTA_E_INVALID_JSON,
        "fork_json is not valid JSON: EOF while parsing a value at line 1 column 12",
    );
    check(
        ffi::session_fork(s, r#"{"delivery":5}"#),
        ROBOTA_E_INVALID_CONFIG,
        "session config: field \"delivery\" must be a string",
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}
