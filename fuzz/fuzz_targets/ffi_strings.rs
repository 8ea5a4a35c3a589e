//! The C ABI's string-taking entry points, called through the `extern "C"` functions with the
//! fuzz input as a NUL-terminated string: runtime/session/resume/fork configs, submit, commands,
//! message views, store list/delete and tool registration. Every call must return a status
//! (an error with a message on bad input), never crash; owned strings and errors are freed.
//! Inputs mentioning hooks are skipped: a fuzzed hook would run fuzzed shell commands (hook
//! configs are covered by `hook_output`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota::ffi::*;
use std::ffi::{c_char, CString};
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

struct Rt(usize);

fn runtime() -> *mut robota_runtime {
    static RT: OnceLock<Rt> = OnceLock::new();
    RT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("robota-fuzz-ffi-{}", std::process::id()));
        let cfg = serde_json::json!({
            "providers": {"s": {"kind": "scripted", "fallback": "echo"}},
            "session_dir": dir.join("sessions"),
            "worker_threads": 1,
        });
        let c = CString::new(cfg.to_string()).unwrap_or_default();
        let mut rt = null_mut();
        let st = robota_runtime_new(c.as_ptr(), &mut rt, null_mut());
        assert_eq!(st, ROBOTA_OK, "fuzz runtime");
        Rt(rt as usize)
    })
    .0 as *mut robota_runtime
}

/// Checks the error contract: a failing call wrote an error with a message.
fn check(st: robota_status, err: *mut robota_error) {
    if st == ROBOTA_OK {
        assert!(err.is_null(), "an error was written for ROBOTA_OK");
        return;
    }
    assert!(!err.is_null(), "status {st} without an error object");
    assert!(!robota_error_message(err).is_null());
    robota_error_free(err);
}

fn new_session(rt: *mut robota_runtime, json: &str) -> *mut robota_session {
    let Ok(c) = CString::new(json) else {
        return null_mut();
    };
    let mut s = null_mut();
    let mut err = null_mut();
    let st = robota_session_new(rt, c.as_ptr(), None, null_mut(), None, &mut s, &mut err);
    check(st, err);
    s
}

fn take_string(p: *mut c_char) {
    if !p.is_null() {
        robota_string_free(p);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    // Interior NULs cannot cross the C ABI; the invalid-UTF-8 path is part of the target.
    let Ok(text) = CString::new(rest) else {
        return;
    };
    if rest.windows(4).any(|w| w.eq_ignore_ascii_case(b"hook")) {
        return;
    }
    let p = text.as_ptr();
    let rt = runtime();
    let mut err = null_mut();
    let mut out: *mut c_char = null_mut();
    match sel % 10 {
        0 => {
            let mut r = null_mut();
            let st = robota_runtime_new(p, &mut r, &mut err);
            check(st, err);
            robota_runtime_free(r);
        }
        1 => robota_session_free(new_session(rt, &String::from_utf8_lossy(rest))),
        2 => {
            let mut s = null_mut();
            let st = robota_session_resume(rt, p, None, null_mut(), None, &mut s, &mut err);
            check(st, err);
            robota_session_free(s);
        }
        3 => {
            let s = new_session(rt, r#"{"provider":"s","delivery":"pull"}"#);
            let mut f = null_mut();
            let st = robota_session_fork(s, p, None, null_mut(), None, &mut f, &mut err);
            check(st, err);
            robota_session_free(f);
            robota_session_free(s);
        }
        4 => {
            let s = new_session(rt, r#"{"provider":"s","delivery":"pull"}"#);
            let mut turn = 0u64;
            let st = robota_session_submit(s, p, &mut turn, &mut err);
            check(st, err);
            if st == ROBOTA_OK {
                let mut err = null_mut();
                let st = robota_session_wait(s, turn, -1, &mut err);
                check(st, err);
            }
            robota_session_free(s);
        }
        5 => {
            let s = new_session(rt, r#"{"provider":"s","delivery":"pull"}"#);
            let st = robota_session_command(s, p, &mut out, &mut err);
            check(st, err);
            take_string(out);
            robota_session_free(s);
        }
        6 => {
            let s = new_session(rt, r#"{"provider":"s","delivery":"pull"}"#);
            let st = robota_session_messages(s, p, &mut out, &mut err);
            check(st, err);
            take_string(out);
            robota_session_free(s);
        }
        7 => {
            let st = robota_store_list(rt, p, &mut out, &mut err);
            check(st, err);
            take_string(out);
        }
        8 => {
            let st = robota_store_delete(rt, p, &mut err);
            // The fuzz runtime's session_dir holds nothing: nothing may ever be deleted.
            assert_ne!(st, ROBOTA_OK, "store_delete deleted something");
            check(st, err);
        }
        _ => {
            let mut r = null_mut();
            let cfg = c"{\"providers\":{\"s\":{\"kind\":\"scripted\"}},\"worker_threads\":1}";
            let st = robota_runtime_new(cfg.as_ptr(), &mut r, null_mut());
            assert_eq!(st, ROBOTA_OK);
            let st = robota_runtime_register_tool(r, p, None, null_mut(), None, &mut err);
            check(st, err);
            robota_runtime_free(r);
        }
    }
    let _ = null::<c_char>();
});
