//! `ROBOTA_EVENT_REQUEST_CANCELLED`: each of the five host request kinds, left waiting while
//! its turn is aborted, the session closed or freed, or the request times out, is reported
//! once with exact fields, after its own event and before `TURN_COMPLETED`
//! (`SESSION_CLOSED`); answering it afterwards is `ROBOTA_E_STALE`.

use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use super::{pull_session, scripted_runtime, types, write_call};
use crate::support_ffi::{c, events_until, submit};

/// One request kind: how to make a turn wait on it and how to answer it.
struct Case {
    kind: &'static str,
    /// The scripted model's first call.
    call: Value,
    /// Extra session fields.
    session: Value,
    /// The prompt.
    input: &'static str,
    /// The request's event and its id field.
    event: &'static str,
    id_field: &'static str,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            kind: "permission",
            call: write_call(),
            session: json!({}),
            input: "write it",
            event: "permission_request",
            id_field: "request_id",
        },
        Case {
            kind: "hook",
            call: write_call(),
            session: json!({"permission_mode":"bypassPermissions","hooks":{"PreToolUse":[
                {"matcher":"Write","hooks":[{"type":"host"}]}]}}),
            input: "write it",
            event: "hook_request",
            id_field: "request_id",
        },
        Case {
            kind: "host_io",
            call: json!({"name":"Read","arguments":{"filePath":"/vfs/a.txt"}}),
            session: json!({"host_io":true,"tools":["Read"],"cwd":"/vfs"}),
            input: "read it",
            event: "host_io",
            id_field: "io_id",
        },
        Case {
            kind: "command",
            call: write_call(),
            session: json!({"commands":[{"name":"deploy","description":"Ship it"}]}),
            input: "/deploy prod",
            event: "command_request",
            id_field: "request_id",
        },
        Case {
            kind: "tool_call",
            call: json!({"name":"add","arguments":{"a":1,"b":2}}),
            session: json!({"tools":["add"],"permission_mode":"bypassPermissions"}),
            input: "add",
            event: "tool_call",
            id_field: "call_id",
        },
    ]
}

/// Answers request `id` of `kind` the way its host would; the status.
fn answer(rt: *mut robota_runtime, kind: &str, id: u64) -> robota_status {
    let mut e = null_mut();
    let st = match kind {
        "host_io" => robota_host_io_complete(rt, id, c(r#"{"content":"x"}"#).as_ptr(), &mut e),
        "tool_call" => robota_tool_call_complete(rt, id, c("3").as_ptr(), 0, &mut e),
        "hook" => robota_request_respond(
            rt,
            id,
            c(r#"{"exit_code":0,"stdout":"","stderr":""}"#).as_ptr(),
            &mut e,
        ),
        "command" => robota_request_respond(rt, id, c(r#"{"message":"ok"}"#).as_ptr(), &mut e),
        _ => robota_request_respond(rt, id, c(r#"{"decision":"allow"}"#).as_ptr(), &mut e),
    };
    robota_error_free(e);
    st
}

/// Opens `case`'s session, submits its prompt and reads the events up to its request; returns
/// the runtime, the session, the turn and the request id.
fn waiting_on(
    case: &Case,
    dir: &std::path::Path,
) -> (*mut robota_runtime, *mut robota_session, u64, u64) {
    eprintln!("case {}", case.kind);
    let rt = scripted_runtime(case.call.clone());
    let s = pull_session(rt, dir, case.session.clone());
    let turn = submit(s, case.input);
    let asked = crate::support_ffi::events_until_any(s, &[case.event, "turn_completed"]);
    assert_eq!(
        asked.last().unwrap()["type"],
        case.event,
        "{}: {asked:?}",
        case.kind
    );
    let id = asked.last().unwrap()[case.id_field].as_u64().unwrap();
    assert!(id > 0, "{}: {asked:?}", case.kind);
    (rt, s, turn, id)
}

/// The `request_cancelled` event the library must send for `case`'s request.
fn cancelled(case: &Case, turn: u64, id: u64, reason: &str) -> Value {
    json!({"v":1,"kind":21,"type":"request_cancelled","turn_id":turn,"request_id":id,
           "request_kind":case.kind,"reason":reason})
}

/// What follows each kind's request up to `turn_completed`. The tool's end and the round's
/// messages come first when the request's waiter was dropped or blocks on a thread (the
/// permission gate, host I/O): the turn's end reports it; a host tool call reports
/// `tool_call_cancelled` before `request_cancelled`; a command turn has no tool.
fn expected_tails() -> Vec<(&'static str, Vec<&'static str>)> {
    let after_tool = vec![
        "tool_end",
        "context_update",
        "message",
        "message",
        "request_cancelled",
        "turn_completed",
    ];
    vec![
        ("permission", after_tool.clone()),
        (
            "hook",
            // `tool_start` follows the PreToolUse hooks, so it comes after the voided hook.
            vec![
                "request_cancelled",
                "tool_start",
                "tool_end",
                "context_update",
                "message",
                "message",
                "turn_completed",
            ],
        ),
        ("host_io", after_tool),
        ("command", vec!["request_cancelled", "turn_completed"]),
        (
            "tool_call",
            vec![
                "tool_call_cancelled",
                "request_cancelled",
                "tool_end",
                "context_update",
                "message",
                "message",
                "turn_completed",
            ],
        ),
    ]
}

/// Runs every case to `until` after `end(s)`; checks the `request_cancelled` event (reason
/// `reason`), the stop reason and the stale answer; returns each kind's event types.
fn end_each_case(
    end: impl Fn(*mut robota_session, u64),
    until: &str,
    reason: &str,
) -> Vec<(&'static str, Vec<String>)> {
    let mut tails = Vec::new();
    for case in cases() {
        let dir = tempfile::tempdir().unwrap();
        let (rt, s, turn, id) = waiting_on(&case, dir.path());
        end(s, turn);
        let rest = events_until(s, until);
        let seen: Vec<String> = types(&rest).iter().map(|t| t.to_string()).collect();
        if let Some(at) = seen.iter().position(|t| t == "request_cancelled") {
            assert_eq!(
                rest[at],
                cancelled(&case, turn, id, reason),
                "{}",
                case.kind
            );
        }
        if case.kind == "tool_call" {
            assert_eq!(
                rest[0],
                json!({"v":1,"kind":8,"type":"tool_call_cancelled","turn_id":turn,"call_id":id})
            );
        }
        let done = rest.iter().find(|e| e["type"] == "turn_completed").unwrap();
        assert_eq!(done["stop_reason"], "aborted", "{}", case.kind);
        // A tool whose hook or permission request was voided does not run.
        assert!(
            !dir.path().join("out.txt").exists(),
            "{}: the ended turn still ran Write",
            case.kind
        );
        if matches!(case.kind, "hook" | "permission") {
            let end = rest.iter().find(|e| e["type"] == "tool_end").unwrap();
            assert_eq!(end["result"], "denied", "{}: {end}", case.kind);
        }
        assert_eq!(answer(rt, case.kind, id), ROBOTA_E_STALE, "{}", case.kind);
        robota_session_free(s);
        robota_runtime_free(rt);
        tails.push((case.kind, seen));
    }
    tails
}

fn owned(tails: Vec<(&'static str, Vec<&'static str>)>) -> Vec<(&'static str, Vec<String>)> {
    tails
        .into_iter()
        .map(|(k, t)| (k, t.into_iter().map(String::from).collect()))
        .collect()
}

#[test]
fn aborting_the_turn_cancels_each_kind_of_request_before_turn_completed() {
    let tails = end_each_case(
        |s, turn| assert_eq!(robota_session_abort(s, turn), ROBOTA_OK),
        "turn_completed",
        "aborted",
    );
    assert_eq!(tails, owned(expected_tails()));
}

#[test]
fn closing_the_session_cancels_each_kind_of_request_before_session_closed() {
    let tails = end_each_case(
        |s, _| assert_eq!(robota_session_close(s), ROBOTA_OK),
        "session_closed",
        "session_closed",
    );
    let mut expected = expected_tails();
    for (_, t) in &mut expected {
        t.push("session_closed");
    }
    assert_eq!(tails, owned(expected));
}

#[test]
fn a_request_of_a_freed_session_is_stale() {
    for case in cases() {
        let dir = tempfile::tempdir().unwrap();
        let (rt, s, _turn, id) = waiting_on(&case, dir.path());
        robota_session_free(s);
        assert_eq!(answer(rt, case.kind, id), ROBOTA_E_STALE, "{}", case.kind);
        robota_runtime_free(rt);
    }
}

#[test]
fn a_request_that_times_out_is_cancelled_with_reason_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // A permission request with the session's request timeout: denied, the turn goes on.
    let case = &cases()[0];
    let rt = scripted_runtime(case.call.clone());
    let s = pull_session(rt, dir.path(), json!({"request_timeout_ms": 50}));
    let turn = submit(s, case.input);
    let asked = events_until(s, "permission_request");
    let id = asked.last().unwrap()["request_id"].as_u64().unwrap();
    let rest = events_until(s, "turn_completed");
    assert_eq!(
        types(&rest),
        [
            "request_cancelled",
            "warning",
            "tool_end",
            "message",
            "message",
            "text_delta",
            "context_update",
            "message",
            "turn_completed"
        ],
        "{rest:?}"
    );
    assert_eq!(rest[0], cancelled(case, turn, id, "timeout"));
    assert_eq!(rest.last().unwrap()["stop_reason"], "complete");
    assert_eq!(answer(rt, "permission", id), ROBOTA_E_STALE);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn a_command_request_outside_any_turn_is_cancelled_when_the_session_closes() {
    let dir = tempfile::tempdir().unwrap();
    let rt = scripted_runtime(write_call());
    let s = pull_session(
        rt,
        dir.path(),
        json!({"commands":[{"name":"deploy","description":"Ship it"}]}),
    );
    // `robota_session_command` blocks for the host's answer: run it on its own thread.
    let addr = s as usize;
    let caller = std::thread::spawn(move || {
        let mut out = null_mut();
        let mut e = null_mut();
        let st = robota_session_command(
            addr as *mut robota_session,
            c(r#"{"name":"deploy","args":"prod"}"#).as_ptr(),
            &mut out,
            &mut e,
        );
        let message = crate::support_ffi::failure(st, e).message;
        (st, message, super::take_string(out))
    });
    let asked = events_until(s, "command_request");
    let request = asked.last().unwrap();
    let id = request["request_id"].as_u64().unwrap();
    let turn = request["turn_id"].as_u64().unwrap();
    assert_eq!(robota_session_close(s), ROBOTA_OK);
    let rest = events_until(s, "session_closed");
    assert_eq!(
        types(&rest),
        ["request_cancelled", "session_closed"],
        "{rest:?}"
    );
    assert_eq!(
        rest[0],
        json!({"v":1,"kind":21,"type":"request_cancelled","turn_id":turn,"request_id":id,
               "request_kind":"command","reason":"session_closed"})
    );
    let (st, message, out) = caller.join().unwrap();
    // The command's own call ends as a failed command, not as a failed call.
    assert_eq!((st, message.as_str()), (ROBOTA_OK, ""));
    assert_eq!(
        serde_json::from_str::<Value>(&out.unwrap()).unwrap(),
        json!({"v":1,"success":false,
               "message":"Command \"deploy\" failed: the command request was cancelled"})
    );
    assert_eq!(answer(rt, "command", id), ROBOTA_E_STALE);
    robota_session_free(s);
    robota_runtime_free(rt);
}
