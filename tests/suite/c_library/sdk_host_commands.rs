//! Host-registered commands (session JSON `commands`): listed by `help` (not in the system
//! prompt: the model cannot invoke them), run by `robota_session_command` and by `/name args` input through
//! `ROBOTA_EVENT_COMMAND_REQUEST` → `robota_request_respond`.

use std::ffi::CString;
use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support::fake_server::{without_cache_marks, FakeServer, Reply, Turn};
use crate::support_ffi::{
    command, events_until, next_event, respond, runtime, session_new, submit,
};

const COMMANDS: &str = r#"[{"name":"deploy","description":"Ship it","argument_hint":"<env>"},
                           {"name":"ns:status","description":"Show status"}]"#;

fn open(server: &FakeServer, root: &std::path::Path) -> (*mut robota_runtime, *mut robota_session) {
    let rt = runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("anthropic")},
                "env":{"ROBOTA_HOME": root.join("rh"), "HOME": root.join("h")}})
        .to_string(),
    );
    let commands: Value = serde_json::from_str(COMMANDS).unwrap();
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"p","model":"m","tools":[],"delivery":"pull",
                "settings":"project","cwd":root,"commands":commands})
        .to_string(),
    )
    .unwrap();
    (rt, s)
}

#[test]
fn help_lists_host_commands_and_the_system_prompt_does_not() {
    let root = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
    let (rt, s) = open(&server, root.path());
    let help = command(s, r#"{"name":"help"}"#).unwrap();
    let listed = help["data"]["commands"].as_array().unwrap();
    let host: Vec<&Value> = listed.iter().filter(|c| c["source"] == "host").collect();
    assert_eq!(
        host,
        vec![
            &json!({"name":"deploy","description":"Ship it","argument_hint":"<env>","source":"host"}),
            &json!({"name":"ns:status","description":"Show status","source":"host"})
        ]
    );
    assert!(
        help["message"]
            .as_str()
            .unwrap()
            .ends_with("\nHost commands:\n  /deploy — Ship it\n  /ns:status — Show status"),
        "{help}"
    );
    submit(s, "hi");
    events_until(s, "turn_completed");
    let system = server.requests()[0].system_text().to_string();
    assert!(
        !system.contains("deploy") && !system.contains("cancel_queue"),
        "{system}"
    );
    assert!(
        system.ends_with("- **Trust level:** moderate\n- **Mode:** default"),
        "{system}"
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn session_command_waits_for_the_hosts_answer() {
    let root = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    let (rt, s) = open(&server, root.path());
    let addr = s as usize;
    let caller = std::thread::spawn(move || {
        command(
            addr as *mut robota_session,
            r#"{"name":"deploy","args":" prod "}"#,
        )
        .unwrap()
    });
    let req = next_event(s);
    assert_eq!(req["type"], "command_request");
    assert_eq!(req["kind"], ROBOTA_EVENT_COMMAND_REQUEST);
    assert_eq!(
        (&req["name"], &req["args"]),
        (&json!("deploy"), &json!(" prod "))
    );
    let id = req["request_id"].as_u64().unwrap();
    // A response of the wrong shape is refused and the request keeps waiting.
    let mut e = null_mut();
    let bad = CString::new(r#"{"message":5}"#).unwrap();
    assert_eq!(
        robota_request_respond(rt, id, bad.as_ptr(), &mut e),
        ROBOTA_E_INVALID_CONFIG
    );
    robota_error_free(e);
    respond(rt, id, r#"{"message":"Deployed prod.","data":{"url":"u"}}"#);
    assert_eq!(
        caller.join().unwrap(),
        json!({"v":1,"message":"Deployed prod.","success":true,"data":{"url":"u"}})
    );
    assert!(server.requests().is_empty(), "no model call");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn slash_input_runs_the_command_and_its_prompt_becomes_the_turn() {
    let root = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["deploying"])));
    let (rt, s) = open(&server, root.path());
    submit(s, "/deploy prod");
    let started = next_event(s);
    assert_eq!(started["type"], "turn_started");
    let req = next_event(s);
    assert_eq!(req["type"], "command_request");
    assert_eq!(
        (&req["name"], &req["args"]),
        (&json!("deploy"), &json!("prod"))
    );
    respond(
        rt,
        req["request_id"].as_u64().unwrap(),
        r#"{"prompt":"Deploy to prod now."}"#,
    );
    let evs = events_until(s, "turn_completed");
    assert_eq!(evs.last().unwrap()["response"], "deploying");
    let msgs = without_cache_marks(&server.requests()[0].body["messages"]);
    assert_eq!(
        msgs,
        json!([{"role":"user","content":[{"type":"text","text":"Deploy to prod now."}]}])
    );

    // Without a prompt the turn completes with the command's message, no model call.
    submit(s, "/ns:status");
    events_until(s, "turn_started");
    let req = next_event(s);
    assert_eq!(
        (&req["name"], &req["args"]),
        (&json!("ns:status"), &json!(""))
    );
    respond(
        rt,
        req["request_id"].as_u64().unwrap(),
        r#"{"message":"All green."}"#,
    );
    let done = events_until(s, "turn_completed");
    let last = done.last().unwrap();
    assert_eq!(
        (&last["stop_reason"], &last["response"]),
        (&json!("complete"), &json!("All green."))
    );
    // success:false fails the turn with the host's message.
    submit(s, "/deploy moon");
    events_until(s, "turn_started");
    let req = next_event(s);
    respond(
        rt,
        req["request_id"].as_u64().unwrap(),
        r#"{"message":"no such env","success":false}"#,
    );
    let done = events_until(s, "turn_completed");
    let err = done.iter().find(|e| e["type"] == "error").unwrap();
    assert_eq!(
        (&err["code"], &err["message"]),
        (&json!("COMMAND_FAILED"), &json!("no such env"))
    );
    assert_eq!(server.requests().len(), 1);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn bad_command_definitions_are_invalid_config() {
    let server = FakeServer::start();
    let rt =
        runtime(&json!({"v":1,"providers":{"p": server.provider_config("anthropic")}}).to_string());
    for (commands, msg) in [
        (json!([{"name":"help","description":"x"}]),
         "session config: command \"help\" is already defined (built-in commands and earlier entries keep their names)"),
        (json!([{"name":"a b","description":"x"}]),
         "session config: command name \"a b\" must be letters, digits, '_', '-' or ':'"),
        (json!([{"name":"x"}]),
         "session config: field \"commands\" must be an array of {\"name\",\"description\",\"argument_hint\"?}"),
    ] {
        let e = session_new(
            rt,
            &json!({"v":1,"provider":"p","model":"m","commands":commands}).to_string(),
        )
        .unwrap_err();
        assert_eq!(e.status, ROBOTA_E_INVALID_CONFIG);
        assert_eq!(e.message, msg);
    }
    robota_runtime_free(rt);
}
