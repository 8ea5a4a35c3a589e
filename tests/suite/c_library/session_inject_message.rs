//! `robota_session_inject_message`: a message appended between turns without a model call —
//! reported as `message` + `context_update`, in the transcript and the saved session, sent to
//! the model with the next turn; bad documents, a running turn and a closed session refused.

use std::time::Duration;

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{
    events_until, inject, messages, next_event, runtime, save, session_new, state, submit, Failure,
};

fn open(server: &FakeServer, cwd: &std::path::Path) -> (*mut robota_runtime, *mut robota_session) {
    let rt =
        runtime(&json!({"v":1,"providers":{"p": server.provider_config("openai")}}).to_string());
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"p","model":"m","delivery":"pull","tools":[],
                "system_prompt":"S","cwd": cwd,"transcript":"logs"})
        .to_string(),
    )
    .unwrap();
    (rt, s)
}

/// `(role, content)` of messages in a JSON list.
fn roles(list: &Value) -> Vec<(String, String)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn injected_messages_are_reported_kept_and_sent_with_the_next_turn() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["kiwi"])));
    let dir = tempfile::tempdir().unwrap();
    let (rt, s) = open(&server, dir.path());
    inject(s, r#"{"role":"user","content":"The code word is kiwi."}"#).unwrap();
    inject(s, r#"{"role":"assistant","content":"Noted."}"#).unwrap();
    // No model call was made.
    assert!(server.requests().is_empty());
    let evs: Vec<Value> = (0..4).map(|_| next_event(s)).collect();
    let kinds: Vec<(&str, u64)> = evs
        .iter()
        .map(|e| (e["type"].as_str().unwrap(), e["turn_id"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("message", 0),
            ("context_update", 0),
            ("message", 0),
            ("context_update", 0)
        ]
    );
    assert_eq!(evs[0]["kind"], ROBOTA_EVENT_MESSAGE);
    assert_eq!(evs[0]["role"], "user");
    assert_eq!(evs[0]["content"], "The code word is kiwi.");
    assert_eq!(evs[2]["role"], "assistant");
    assert_eq!(evs[2]["content"], "Noted.");
    assert_eq!(evs[3], {
        let mut meter = state(s)["context_state"].clone();
        meter["v"] = json!(1);
        meter["kind"] = json!(ROBOTA_EVENT_CONTEXT_UPDATE);
        meter["type"] = json!("context_update");
        meter["turn_id"] = json!(0);
        meter
    });
    assert!(evs[1]["used_tokens"].as_u64() < evs[3]["used_tokens"].as_u64());
    // In the conversation and the chat view; saved with the session.
    let want = pairs(&[
        ("system", "S"),
        ("user", "The code word is kiwi."),
        ("assistant", "Noted."),
    ]);
    assert_eq!(roles(&messages(s)["messages"]), want);
    assert_eq!(roles(&save(s)["messages"]), want);
    // The next turn sends them to the model, each once, before the new prompt.
    submit(s, "What is the code word?");
    let turn = events_until(s, "turn_completed");
    assert_eq!(turn.last().unwrap()["response"], "kiwi");
    let sent = roles(&server.requests()[0].body["messages"]);
    assert_eq!(
        sent,
        pairs(&[
            ("system", "S"),
            ("user", "The code word is kiwi."),
            ("assistant", "Noted."),
            ("user", "What is the code word?"),
        ])
    );
    let reported: Vec<&Value> = turn.iter().filter(|e| e["type"] == "message").collect();
    // The new prompt and the answer only.
    assert_eq!(reported.len(), 2, "{turn:?}");
    // The transcript keeps the injected messages. Its writer is a background thread: freeing
    // the runtime waits for every line handed over (freeing a session does not).
    let sid = state(s)["session_id"].as_str().unwrap().to_string();
    robota_session_free(s);
    robota_runtime_free(rt);
    let file = dir.path().join("logs").join(format!("{sid}.jsonl"));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("The code word is kiwi."), "{text}");
    assert!(text.contains("Noted."), "{text}");
}

#[test]
fn bad_documents_a_running_turn_and_a_closed_session_are_refused() {
    let server = FakeServer::start();
    server.enqueue(Reply::hang());
    let dir = tempfile::tempdir().unwrap();
    let (rt, s) = open(&server, dir.path());
    let fail = |status, message: &str| {
        Err(Failure {
            status,
            message: message.to_string(),
        })
    };
    let cases = [
        ("{nope", ROBOTA_E_INVALID_JSON, "message_json is not JSON: key must be a string at line 1 column 2"),
        ("[1]", ROBOTA_E_INVALID_CONFIG, "message_json must be a JSON object"),
        (r#"{"content":"x"}"#, ROBOTA_E_INVALID_CONFIG, "message_json: missing required field \"role\""),
        (r#"{"role":"user"}"#, ROBOTA_E_INVALID_CONFIG, "message_json: missing required field \"content\""),
        (r#"{"role":"user","content":3}"#, ROBOTA_E_INVALID_CONFIG, "message_json: field \"content\" must be a string"),
        (r#"{"role":"robot","content":"x"}"#, ROBOTA_E_INVALID_CONFIG, "message_json: field \"role\" must be \"user\", \"assistant\" or \"system\" (got \"robot\")"),
        (r#"{"role":"tool","content":"x"}"#, ROBOTA_E_INVALID_CONFIG, "message_json: role \"tool\" cannot be injected (a tool result answers a tool call of the model)"),
        (r#"{"role":"user","content":"x","text":"y"}"#, ROBOTA_E_INVALID_CONFIG, "message_json: field \"text\" is not a known field (known: role, content)"),
    ];
    for (doc, status, message) in cases {
        assert_eq!(inject(s, doc), fail(status, message), "{doc}");
    }
    let mut e = std::ptr::null_mut();
    assert_eq!(
        robota_session_inject_message(s, std::ptr::null(), &mut e),
        ROBOTA_E_NULL_ARG
    );
    robota_error_free(e);
    assert_eq!(
        robota_session_inject_message(std::ptr::null_mut(), c"{}".as_ptr(), std::ptr::null_mut()),
        ROBOTA_E_NULL_ARG
    );
    // Nothing was added.
    assert_eq!(roles(&messages(s)["messages"]), pairs(&[("system", "S")]));
    let turn = submit(s, "think");
    server.wait_for_requests(1, Duration::from_secs(30));
    assert_eq!(
        inject(s, r#"{"role":"user","content":"x"}"#),
        fail(
            ROBOTA_E_BUSY,
            "a turn or command is running: inject messages between turns"
        )
    );
    assert_eq!(robota_session_abort(s, turn), ROBOTA_OK);
    events_until(s, "turn_completed");
    assert_eq!(robota_session_close(s), ROBOTA_OK);
    assert_eq!(
        inject(s, r#"{"role":"user","content":"x"}"#),
        fail(ROBOTA_E_CLOSED, "the session is closed")
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}
