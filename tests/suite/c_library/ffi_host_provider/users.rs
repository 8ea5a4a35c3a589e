//! Every user of a provider profile reaches a host provider: a session run on the host's
//! thread, a subagent, a team template's child, a `prompt` hook, compaction and `robota_query`;
//! each call document names the session asking.

use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use super::{last_text, register};
use crate::support_ffi::{c, command, events_until, failure, run_turn, runtime, session_new};

fn text(t: &str) -> Vec<Value> {
    vec![json!({"type":"text","text":t}), json!({"type":"done"})]
}

fn tool_call(id: &str, name: &str, args: Value) -> Vec<Value> {
    vec![
        json!({"type":"tool_call","id":id,"name":name,"arguments":args}),
        json!({"type":"done"}),
    ]
}

/// The role of a call document's last message.
fn last_role(doc: &Value) -> &str {
    doc["messages"].as_array().unwrap().last().unwrap()["role"]
        .as_str()
        .unwrap()
}

/// The `turn_completed` event of the running turn (pull delivery).
fn wait_done(s: *mut robota_session) -> Value {
    events_until(s, "turn_completed").pop().unwrap()
}

fn session(rt: *mut robota_runtime, extra: Value) -> *mut robota_session {
    let mut cfg = json!({"v":1,"provider":"local","model":"tiny","session_id":"parent",
                         "permission_mode":"bypassPermissions","delivery":"pull"});
    if let (Value::Object(m), Value::Object(x)) = (&mut cfg, extra) {
        m.extend(x);
    }
    session_new(rt, &cfg.to_string()).unwrap()
}

#[test]
fn a_session_run_on_the_hosts_thread_streams_from_the_host_provider() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let host = register(rt, "local", Some(r#"{"max_output_tokens":99}"#), |d| {
        text(&format!("you said {}", last_text(d)))
    });
    let s = session(rt, json!({"tools":[],"temperature":0.2}));
    let (turn, outcome) = run_turn(s, "hi");
    outcome.unwrap();
    assert_eq!(turn, 1);
    let calls = host.calls();
    assert_eq!(
        calls,
        [
            json!({"v":1,"type":"call","provider":"local","model":"tiny","session_id":"parent",
                "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
                "tools":[],"tool_choice":"auto","max_tokens":99,"temperature":0.2,
                "thinking_budget":null,"attempt":1})
        ]
    );
    let messages = crate::support_ffi::messages(s);
    let last = messages["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (last["role"].clone(), last["content"].clone()),
        (json!("assistant"), json!("you said hi"))
    );
    robota_session_free(s);
    robota_runtime_free(rt);
    assert_eq!(host.wait_freed(), 1);
    assert!(host.failed_pushes.lock().unwrap().is_empty());
}

#[test]
fn a_subagent_calls_the_host_provider_with_its_own_session() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let host = register(rt, "local", None, |d| {
        if d["session_id"] != "parent" {
            return text("child found it");
        }
        if last_role(d) == "tool" {
            return text(&format!("parent got: {}", last_text(d)));
        }
        tool_call(
            "a1",
            "Agent",
            json!({"prompt":"sub-task","subagent_type":"Explore"}),
        )
    });
    let s = session(rt, json!({"tools":["Read","Agent"]}));
    crate::support_ffi::submit(s, "delegate");
    let done = wait_done(s);
    let calls = host.calls();
    assert_eq!(calls.len(), 3, "{calls:#?}");
    let child = &calls[1];
    assert_ne!(child["session_id"], "parent");
    assert!(child["session_id"].is_string());
    assert_eq!(last_text(child), "sub-task");
    assert_eq!(last_role(&calls[2]), "tool");
    assert_eq!(
        done["response"],
        format!("parent got: {}", last_text(&calls[2]))
    );
    assert_eq!(last_text(&calls[2]), "child found it");
    robota_session_free(s);
    robota_runtime_free(rt);
    assert!(host.failed_pushes.lock().unwrap().is_empty());
}

#[test]
fn a_prompt_hook_asks_the_host_provider_and_its_answer_blocks_the_tool() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let host = register(rt, "local", None, |d| {
        if last_text(d).starts_with("Is this tool call safe?") {
            return text(r#"{"ok":false,"reason":"not today"}"#);
        }
        if last_role(d) == "tool" {
            return text("blocked");
        }
        tool_call("g1", "Glob", json!({"pattern":"*.txt"}))
    });
    let hook = json!({"type":"prompt","prompt":"Is this tool call safe?","model":"judge"});
    let s = session(
        rt,
        json!({"tools":["Glob"],
               "hooks":{"PreToolUse":[{"matcher":"Glob","hooks":[hook]}]}}),
    );
    crate::support_ffi::submit(s, "list");
    assert_eq!(wait_done(s)["response"], "blocked");
    let calls = host.calls();
    assert_eq!(calls.len(), 3, "{calls:#?}");
    let ask = &calls[1];
    assert_eq!(ask["model"], "judge");
    assert_eq!(ask["tools"], json!([]));
    assert_eq!(ask["messages"].as_array().unwrap().len(), 1);
    assert!(
        last_text(ask).ends_with("Respond with JSON: { \"ok\": boolean, \"reason\"?: string }"),
        "{ask}"
    );
    assert_eq!(
        calls[2]["messages"].as_array().unwrap().last().unwrap()["content"],
        r#"{"success":false,"output":"","error":"Blocked by hook: not today"}"#,
        "{:#}",
        calls[2]
    );
    robota_session_free(s);
    robota_runtime_free(rt);
    assert!(host.failed_pushes.lock().unwrap().is_empty());
}

#[test]
fn a_team_template_names_the_host_provider() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let template = r#"{"id":"mine","name":"Mine","description":"Helps","provider":"local","model":"small","systemMessage":"You help."}"#;
    let mut e = null_mut();
    let st = robota_runtime_register_template(rt, c(template).as_ptr(), &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    let host = register(rt, "local", None, |d| {
        if d["model"] == "small" {
            return text("did it");
        }
        if last_role(d) == "tool" {
            return text("team done");
        }
        tool_call(
            "t1",
            "assignTask",
            json!({"templateId":"mine","jobDescription":"do it"}),
        )
    });
    let s = session(rt, json!({"tools":[],"team":true}));
    crate::support_ffi::submit(s, "use the team");
    let done = wait_done(s);
    assert_eq!(done["response"], "team done");
    let calls = host.calls();
    assert_eq!(calls.len(), 3, "{calls:#?}");
    let child = &calls[1];
    assert_eq!(child["model"], "small");
    assert_eq!(
        child["messages"][0],
        json!({"role":"system","content":"You help."})
    );
    assert_eq!(last_text(child), "do it");
    assert!(
        last_text(&calls[2]).contains("did it"),
        "{}",
        last_text(&calls[2])
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn compaction_and_robota_query_call_the_host_provider() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let host = register(rt, "local", None, |d| match last_text(d).as_str() {
        "hi" => text("hello"),
        "hey" => text("hello query"),
        _ => text("SUMMARY"),
    });
    let s = session(rt, json!({"tools":["Read"]}));
    crate::support_ffi::submit(s, "hi");
    assert_eq!(wait_done(s)["response"], "hello");
    let out = command(s, r#"{"name":"compact"}"#).unwrap();
    assert!(
        out["message"]
            .as_str()
            .unwrap()
            .starts_with("Context compacted: "),
        "{out}"
    );
    let calls = host.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1]["session_id"], "parent");
    assert_eq!(calls[1]["tools"], json!([]));
    assert_eq!(calls[1]["messages"].as_array().unwrap().len(), 1);
    assert_eq!(calls[1]["messages"][0]["role"], "user");
    robota_session_free(s);

    let query = json!({"v":1,"provider":"local","model":"tiny","tools":[],"prompt":"hey"});
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_query(
        rt,
        c(&query.to_string()).as_ptr(),
        None,
        null_mut(),
        None,
        &mut out,
        &mut e,
    );
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    // SAFETY: the library wrote a NUL-terminated result string; freed right after.
    let result = unsafe { std::ffi::CStr::from_ptr(out) }
        .to_string_lossy()
        .into_owned();
    robota_string_free(out);
    let result: Value = serde_json::from_str(&result).unwrap();
    assert_eq!(result["response"], "hello query");
    let calls = host.calls();
    assert_eq!(calls.len(), 3);
    assert!(calls[2]["session_id"].is_string());
    assert_eq!(last_text(&calls[2]), "hey");
    robota_runtime_free(rt);
    assert_eq!(host.wait_freed(), 1);
}

/// A host provider has no native structured-output form: once the model answers in prose, one
/// more call forces the `final_answer` tool (whose input schema is the output schema); its
/// input is the turn's `output`, recorded as the assistant's JSON answer.
#[test]
fn a_host_provider_gives_structured_output_through_the_forced_final_answer_tool() {
    let schema = json!({"type":"object","properties":{"city":{"type":"string"}},
                        "required":["city"],"additionalProperties":false});
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    let host = register(rt, "local", None, |d| {
        if d["tool_choice"] == json!({"name":"final_answer"}) {
            tool_call("fa", "final_answer", json!({"city":"Oslo"}))
        } else {
            text("It is Oslo.")
        }
    });
    let s = session(rt, json!({"tools":[]}));
    let input = json!({"text":"Where?","output_schema": schema}).to_string();
    let mut turn = 0;
    let mut e = null_mut();
    let st = robota_session_submit(s, c(&input).as_ptr(), &mut turn, &mut e);
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    let done = wait_done(s);
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(done["output"], json!({"city":"Oslo"}));
    assert_eq!(done["response"], "{\"city\":\"Oslo\"}");
    let calls = host.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["tools"], json!([]));
    assert_eq!(calls[0]["tool_choice"], "auto");
    assert_eq!(
        calls[1]["tools"],
        json!([{"name":"final_answer",
                "description":"Give your final answer: its input is the answer.",
                "input_schema": schema}])
    );
    let roles: Vec<String> = crate::support_ffi::messages(s)["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{}: {}", m["role"].as_str().unwrap(), m["content"]))
        .collect();
    assert_eq!(
        roles,
        [
            "user: \"Where?\"",
            "assistant: \"It is Oslo.\"",
            "assistant: \"{\\\"city\\\":\\\"Oslo\\\"}\""
        ]
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}
