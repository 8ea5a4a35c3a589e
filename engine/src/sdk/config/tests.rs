//! Unit tests of [`super`] (the runtime and session documents).

use super::*;

#[test]
fn runtime_config_errors_name_the_problem() {
    let e = parse_runtime_config("{nope").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidJson);
    assert!(e.message.starts_with("config_json is not valid JSON"));
    let e = parse_runtime_config(r#"{"v":1}"#).unwrap_err();
    assert_eq!(
        e.message,
        "runtime config: missing required field \"providers\""
    );
    let e = parse_runtime_config(r#"{"v":1,"providers":{"x":{"kind":"nope"}}}"#).unwrap_err();
    assert_eq!(e.message, "runtime config: provider \"x\": unknown kind \"nope\" (expected one of: anthropic, openai, openai-compatible, openai-responses, azure-openai, gemini, scripted, replay)");
    let e = parse_runtime_config(r#"{"v":2,"providers":{}}"#).unwrap_err();
    assert_eq!(e.code, ErrorCode::VersionMismatch);
    // Unknown keys are refused with or without "strict" (the first one is named).
    for doc in [
        r#"{"v":1,"strict":true,"providers":{},"zz":1,"aa":2}"#,
        r#"{"v":1,"providers":{},"zz":1}"#,
    ] {
        let e = parse_runtime_config(doc).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidConfig);
        assert_eq!(
            e.message,
            "runtime config: field \"zz\" is not a known field (known: env, strict, providers, worker_threads, session_dir, request_timeout_ms, request_timeout_decision, plugin_dirs)"
        );
    }
    let e = parse_runtime_config(r#"{"v":1,"providers":{},"worker_threads":65}"#).unwrap_err();
    assert_eq!(
        e.message,
        "runtime config: field \"worker_threads\" must be at most 64, got 65"
    );
    let ok = parse_runtime_config(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(ok.worker_threads, None);
    assert_eq!(super::default_worker_threads(), cores.min(64));
    let two = parse_runtime_config(r#"{"v":1,"providers":{},"worker_threads":2}"#).unwrap();
    assert_eq!(two.worker_threads, Some(2));
    assert_eq!(ok.providers["s"].0, ProviderKind::Scripted);
}

#[test]
fn session_config_requires_provider_and_model() {
    let e = parse_session_config(r#"{"v":1,"model":"m"}"#).unwrap_err();
    assert_eq!(
        e.message,
        "session config: missing required field \"provider\""
    );
    let e = parse_session_config(r#"{"v":1,"provider":"p"}"#).unwrap_err();
    assert_eq!(
        e.message,
        "session config: missing required field \"model\""
    );
    let s =
        parse_session_config(r#"{"v":1,"provider":"p","model":"m","delivery":"pull"}"#).unwrap();
    assert_eq!(s.delivery, Delivery::Pull);
    assert_eq!(s.permission_mode, PermissionMode::Default);
}

#[test]
fn a_session_without_cwd_takes_the_process_cwd_already_resolved() {
    // Without "cwd": the process's working directory, which is what resolving it would give
    // (so the session does not resolve it again).
    let s = parse_session_config(r#"{"v":1,"provider":"p","model":"m"}"#).unwrap();
    let real = std::fs::canonicalize(std::env::current_dir().unwrap()).unwrap();
    assert_eq!(s.cwd, real.to_str().unwrap());
    assert!(s.cwd_is_canonical);
    // A given cwd is resolved by the session as before.
    let s = parse_session_config(r#"{"v":1,"provider":"p","model":"m","cwd":"."}"#).unwrap();
    assert_eq!(s.cwd, ".");
    assert!(!s.cwd_is_canonical);
}
