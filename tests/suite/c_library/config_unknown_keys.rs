//! Every JSON document the C ABI takes refuses an unknown key with the status its other
//! validation errors use and a message naming the document and the key
//! (`<document>: field "<key>" is not a known field (known: …)`), while the correct spelling
//! still works: the runtime config, provider entries (every kind), the session JSON (new,
//! resume, fork, query) and its nested objects, the submit input, `command_json`,
//! `tool_json`, `template_json`, the messages and store queries and request answers.

use std::ffi::c_char;
use std::ptr::null_mut;

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};
use serde_json::{json, Value};

use crate::support_ffi::{self as ffi, c, failure, Failure};

const SCRIPTED: &str = r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#;

fn free_string(p: *mut c_char) {
    if !p.is_null() {
        robota_string_free(p);
    }
}

/// Asserts `r` failed with `status` and a message holding every one of `parts`.
fn assert_refused<T: std::fmt::Debug>(
    r: Result<T, Failure>,
    status: robota_status,
    parts: &[&str],
) {
    let f = r.expect_err("the document should be refused");
    assert_eq!(f.status, status, "{f:?}");
    for p in parts {
        assert!(f.message.contains(p), "{:?} lacks {p:?}", f.message);
    }
}

/// `robota_runtime_new`: the runtime on success.
fn runtime_new(config: &str) -> Result<*mut robota_runtime, Failure> {
    let mut rt = null_mut();
    let mut e = null_mut();
    match robota_runtime_new(c(config).as_ptr(), &mut rt, &mut e) {
        ROBOTA_OK => Ok(rt),
        st => Err(failure(st, e)),
    }
}

fn session_json(extra: Value) -> String {
    let mut cfg = json!({"v":1,"provider":"s","model":"m","delivery":"pull"});
    for (k, v) in extra.as_object().unwrap() {
        cfg[k] = v.clone();
    }
    cfg.to_string()
}

fn close(s: *mut robota_session) {
    robota_session_free(s);
}

#[test]
fn the_runtime_config_refuses_a_misspelled_key_through_the_c_abi() {
    assert_refused(
        runtime_new(r#"{"v":1,"providers":{},"worker_thread":2}"#),
        ROBOTA_E_INVALID_CONFIG,
        &[
            "runtime config: field \"worker_thread\" is not a known field (known: ",
            "worker_threads",
        ],
    );
    let rt = runtime_new(r#"{"v":1,"providers":{},"worker_threads":2}"#).unwrap();
    robota_runtime_free(rt);
    // `strict` (the old opt-in) is still a known key.
    let rt = runtime_new(r#"{"v":1,"providers":{},"strict":false}"#).unwrap();
    robota_runtime_free(rt);
}

#[test]
fn worker_threads_above_64_is_an_error_naming_the_limit() {
    assert_refused(
        runtime_new(r#"{"v":1,"providers":{},"worker_threads":65}"#),
        ROBOTA_E_INVALID_CONFIG,
        &["runtime config: field \"worker_threads\" must be at most 64, got 65"],
    );
    let rt = runtime_new(r#"{"v":1,"providers":{},"worker_threads":64}"#).unwrap();
    robota_runtime_free(rt);
}

#[test]
fn provider_entries_of_every_kind_refuse_an_unknown_key() {
    for (entry, key) in [
        (r#"{"kind":"scripted","turnz":[]}"#, "turnz"),
        (r#"{"kind":"scripted","api_key":"k"}"#, "api_key"),
        (r#"{"kind":"scripted","turns":[{"txt":"hi"}]}"#, "txt"),
        (r#"{"kind":"anthropic","api_kee":"k"}"#, "api_kee"),
        (r#"{"kind":"openai","timeout":5}"#, "timeout"),
        (
            r#"{"kind":"replay","file":"x.jsonl","strikt":true}"#,
            "strikt",
        ),
    ] {
        let cfg = format!(r#"{{"v":1,"providers":{{"p":{entry}}}}}"#);
        assert_refused(
            runtime_new(&cfg),
            ROBOTA_E_INVALID_CONFIG,
            &[
                "runtime config:",
                "provider \"p\"",
                &format!("field \"{key}\" is not a known field (known: "),
            ],
        );
    }
    let rt = runtime_new(
        r#"{"v":1,"providers":{"p":{"kind":"scripted","turns":[],"fallback":"echo","name":"x"}}}"#,
    )
    .unwrap();
    robota_runtime_free(rt);
}

#[test]
fn the_session_json_refuses_a_misspelled_key_through_the_c_abi() {
    let rt = ffi::runtime(SCRIPTED);
    assert_refused(
        ffi::session_new(rt, &session_json(json!({"delivry":"pump"}))),
        ROBOTA_E_INVALID_CONFIG,
        &[
            "session config: field \"delivry\" is not a known field (known: ",
            "delivery",
        ],
    );
    let s = ffi::session_new(rt, &session_json(json!({"delivery":"pull"}))).unwrap();
    close(s);
    robota_runtime_free(rt);
}

#[test]
fn nested_session_objects_refuse_an_unknown_key() {
    let rt = ffi::runtime(SCRIPTED);
    for (extra, parts) in [
        (
            json!({"budget":{"max_tokns":5}}),
            vec!["session config: field \"budget\": field \"max_tokns\" is not a known field"],
        ),
        (
            json!({"permissions":{"alow":["Read"]}}),
            vec!["session config: field \"permissions\": field \"alow\" is not a known field"],
        ),
        (
            json!({"thinking":{"budget_token":1024}}),
            vec!["session config: field \"thinking\": field \"budget_token\" is not a known field"],
        ),
        (
            json!({"hooks":{"Stop":[{"matcher":"","hook":[]}]}}),
            vec!["session config: field \"hooks\": a \"Stop\" group: field \"hook\" is not a known field"],
        ),
        (
            json!({"tool_config":{"limits":{"maxOutputChar":5}}}),
            vec!["session config: field \"tool_config\"", "field \"maxOutputChar\" is not a known field"],
        ),
        (
            json!({"tool_config":{"limit":{}}}),
            vec!["session config: field \"tool_config\"", "field \"limit\" is not a known field"],
        ),
        (
            json!({"mcp_servers":{"fs":{"command":"x","arg":[]}}}),
            vec!["session config: MCP server \"fs\": field \"arg\" is not a known field"],
        ),
        (
            json!({"commands":[{"name":"deploy","description":"d","hint":"x"}]}),
            vec!["session config: field \"commands\": field \"hint\" is not a known field"],
        ),
        (
            json!({"agents":{"rev":{"description":"d","prompt":"p","modle":"m"}}}),
            vec!["session config: agent \"rev\": field \"modle\" is not a known field"],
        ),
    ] {
        assert_refused(
            ffi::session_new(rt, &session_json(extra)),
            ROBOTA_E_INVALID_CONFIG,
            &parts,
        );
    }
    let s = ffi::session_new(
        rt,
        &session_json(json!({
            "budget":{"max_total_tokens":5000},
            "permissions":{"allow":["Read"],"deny":[]},
            "thinking":{"budget_tokens":1024},
            "hooks":{"Stop":[{"matcher":"","hooks":[]}]},
            "tool_config":{"limits":{"maxOutputChars":500},"env":{}},
            "commands":[{"name":"deploy","description":"d","argument_hint":"x"}],
            "agents":{"rev":{"description":"d","prompt":"p","model":"m"}}
        })),
    )
    .unwrap();
    close(s);
    robota_runtime_free(rt);
}

#[test]
fn resume_and_fork_documents_refuse_an_unknown_key_and_a_snapshot_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let rt = ffi::runtime(SCRIPTED);
    let s = ffi::session_new(
        rt,
        &session_json(json!({"cwd": dir.path(), "budget":{"max_tool_calls":3},
                             "thinking":{"budget_tokens":1024}, "name":"n",
                             "commands":[{"name":"deploy","description":"d"}]})),
    )
    .unwrap();
    ffi::submit(s, "hello");
    ffi::events_until(s, "turn_completed");
    let snap = ffi::save(s);

    // The snapshot the library wrote is accepted, nested and as the document itself.
    let r = ffi::session_resume(rt, &json!({"v":1,"snapshot":snap}).to_string()).unwrap();
    close(r);
    let r = ffi::session_resume(rt, &snap.to_string()).unwrap();
    close(r);
    let r = ffi::session_resume(
        rt,
        &json!({"v":1,"snapshot":snap,"delivery":"pull"}).to_string(),
    )
    .unwrap();
    close(r);
    assert_refused(
        ffi::session_resume(
            rt,
            &json!({"v":1,"snapshot":snap,"delivry":"pump"}).to_string(),
        ),
        ROBOTA_E_INVALID_CONFIG,
        &["resume_json: field \"delivry\" is not a known field (known: "],
    );
    assert_refused(
        ffi::session_resume(rt, &json!({"v":1,"snapshott":snap}).to_string()),
        ROBOTA_E_INVALID_CONFIG,
        &["resume_json: field \"snapshott\" is not a known field"],
    );

    let f = ffi::session_fork(s, r#"{"v":1,"delivery":"pull"}"#).unwrap();
    close(f);
    assert_refused(
        ffi::session_fork(s, r#"{"v":1,"delivry":"pump"}"#),
        ROBOTA_E_INVALID_CONFIG,
        &["fork_json: field \"delivry\" is not a known field (known: "],
    );
    assert_refused(
        ffi::session_fork(s, r#"{"budget":{"max_tokns":5}}"#),
        ROBOTA_E_INVALID_CONFIG,
        &["session config: field \"budget\": field \"max_tokns\" is not a known field"],
    );
    close(s);
    robota_runtime_free(rt);
}

#[test]
fn the_submit_input_and_command_json_refuse_an_unknown_key() {
    let rt = ffi::runtime(SCRIPTED);
    let s = ffi::session_new(rt, &session_json(json!({}))).unwrap();
    for submit in [robota_session_submit, robota_session_run] {
        let mut turn = 0;
        let mut e = null_mut();
        let st = submit(
            s,
            c(r#"{"text":"hi","raw_inpt":"x"}"#).as_ptr(),
            &mut turn,
            &mut e,
        );
        assert_refused(
            Err::<(), _>(failure(st, e)),
            ROBOTA_E_INVALID_CONFIG,
            &["input_json: field \"raw_inpt\" is not a known field (known: text, display_input, raw_input, tool_choice, output_schema, images)"],
        );
    }
    ffi::submit(s, "hi");
    ffi::events_until(s, "turn_completed");

    assert_refused(
        ffi::command(s, r#"{"name":"help","arg":""}"#),
        ROBOTA_E_INVALID_CONFIG,
        &["command_json: field \"arg\" is not a known field (known: name, args)"],
    );
    ffi::command(s, r#"{"name":"help","args":""}"#).unwrap();

    // The messages query.
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_session_messages(s, c(r#"{"veiw":"messages"}"#).as_ptr(), &mut out, &mut e);
    assert_refused(
        Err::<(), _>(failure(st, e)),
        ROBOTA_E_INVALID_CONFIG,
        &["query_json: field \"veiw\" is not a known field (known: view)"],
    );
    let st = robota_session_messages(s, c(r#"{"view":"messages"}"#).as_ptr(), &mut out, &mut e);
    assert_eq!(st, ROBOTA_OK);
    free_string(out);
    close(s);

    // The store listing.
    assert_refused(
        ffi::store_list(rt, Some(r#"{"limt":1}"#)),
        ROBOTA_E_INVALID_CONFIG,
        &["query_json: field \"limt\" is not a known field (known: cwd, limit)"],
    );
    robota_runtime_free(rt);
}

#[test]
fn a_query_refuses_an_unknown_session_key() {
    let rt = ffi::runtime(SCRIPTED);
    let q = r#"{"v":1,"provider":"s","model":"m","prompt":"hi","delivry":"pump"}"#;
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_query(rt, c(q).as_ptr(), None, null_mut(), None, &mut out, &mut e);
    assert_refused(
        Err::<(), _>(failure(st, e)),
        ROBOTA_E_INVALID_CONFIG,
        &["session config: field \"delivry\" is not a known field"],
    );
    robota_runtime_free(rt);
}

fn register_tool(rt: *mut robota_runtime, tool: &str) -> Result<(), Failure> {
    let mut e = null_mut();
    match robota_runtime_register_tool(rt, c(tool).as_ptr(), None, null_mut(), None, &mut e) {
        ROBOTA_OK => Ok(()),
        st => Err(failure(st, e)),
    }
}

fn register_template(rt: *mut robota_runtime, template: &str) -> Result<(), Failure> {
    let mut e = null_mut();
    match robota_runtime_register_template(rt, c(template).as_ptr(), &mut e) {
        ROBOTA_OK => Ok(()),
        st => Err(failure(st, e)),
    }
}

#[test]
fn tool_and_template_definitions_refuse_an_unknown_key() {
    let rt = ffi::runtime(SCRIPTED);
    let schema = r#""input_schema":{"type":"object"}"#;
    assert_refused(
        register_tool(rt, &format!(r#"{{"name":"t1",{schema},"readonly":true}}"#)),
        ROBOTA_E_INVALID_CONFIG,
        &["tool_json: field \"readonly\" is not a known field (known: "],
    );
    assert_refused(
        register_tool(
            rt,
            &format!(r#"{{"name":"t1",{schema},"read_only":"yes"}}"#),
        ),
        ROBOTA_E_INVALID_CONFIG,
        &["tool_json: field \"read_only\" must be a boolean"],
    );
    register_tool(rt, &format!(r#"{{"name":"t1",{schema},"read_only":true}}"#)).unwrap();

    assert_refused(
        register_template(
            rt,
            r#"{"id":"rev","name":"Reviewer","provider":"s","model":"m","systemMessage":"Review.","system_message":"x"}"#,
        ),
        ROBOTA_E_INVALID_CONFIG,
        &["template_json: field \"system_message\" is not a known field (known: "],
    );
    register_template(
        rt,
        r#"{"id":"rev","name":"Reviewer","provider":"s","model":"m","systemMessage":"Review."}"#,
    )
    .unwrap();
    robota_runtime_free(rt);
}

#[test]
fn a_permission_answer_refuses_an_unknown_key_and_the_request_keeps_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let rt = ffi::runtime(
        r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"tool_calls":[{"name":"Write","arguments":{"filePath":"out.txt","content":"hi"}}]},
            {"text":"done"}]}}}"#,
    );
    let s = ffi::session_new(
        rt,
        &session_json(json!({"cwd": dir.path(), "tools":["Write"], "permission_mode":"default"})),
    )
    .unwrap();
    ffi::submit(s, "write it");
    let asked = ffi::events_until(s, "permission_request");
    let id = asked.last().unwrap()["request_id"].as_u64().unwrap();
    let mut e = null_mut();
    let st = robota_request_respond(
        rt,
        id,
        c(r#"{"decision":"deny","remeber":true}"#).as_ptr(),
        &mut e,
    );
    assert_refused(
        Err::<(), _>(failure(st, e)),
        ROBOTA_E_INVALID_CONFIG,
        &["response_json: field \"remeber\" is not a known field (known: decision, remember)"],
    );
    ffi::respond(rt, id, r#"{"decision":"deny","remember":false}"#);
    ffi::events_until(s, "turn_completed");
    close(s);
    robota_runtime_free(rt);
}
