//! Record/replay (added in ABI 1.1): a session recorded against the fake server with tools and
//! permissions is replayed with the server gone, reproducing the same events, tool calls and
//! history; strict replay names the first difference; bad recordings are refused at session
//! creation naming the line.

use robota::ffi::{robota_runtime_free, robota_session_free, ROBOTA_E_INVALID_CONFIG};
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{
    self as ffi, events_until_any, messages, respond, runtime, session_new, submit,
};

/// Keys whose values differ between two runs by nature (ids, times), dropped before comparing.
const VOLATILE: [&str; 9] = [
    "id",
    "timestamp",
    "request_id",
    "duration_ms",
    "durationMs",
    "executionId",
    "execution_id",
    "created_at",
    "updated_at",
];

fn normalized(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !VOLATILE.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), normalized(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
        other => other.clone(),
    }
}

/// Runs the two turns of the scenario on a pull session, allowing every permission request;
/// returns the events of both turns and the final history.
fn run_scenario(
    rt: *mut robota::ffi::robota_runtime,
    cfg: &Value,
    first: &str,
) -> (Vec<Value>, Value) {
    let s = session_new(rt, &cfg.to_string()).unwrap();
    let mut events = Vec::new();
    for text in [first, "again"] {
        submit(s, text);
        loop {
            let got = events_until_any(s, &["turn_completed", "permission_request", "error"]);
            let last = got.last().cloned().unwrap();
            events.extend(got);
            match last["type"].as_str() {
                Some("permission_request") => respond(
                    rt,
                    last["request_id"].as_u64().unwrap(),
                    r#"{"decision":"allow"}"#,
                ),
                Some("error") => continue,
                _ => break,
            }
        }
    }
    let history = messages(s);
    robota_session_free(s);
    (events, history)
}

fn replies() -> Vec<Reply> {
    vec![
        Reply::anthropic(
            &Turn::text(["Let me ", "look."])
                .thinking(["plan", "ning"])
                .tool("t1", "Read", r#"{"filePath":"a.txt"}"#)
                .usage(120, 30),
        ),
        // One tool per round: the order of concurrent tools' events is not the model's.
        Reply::anthropic(
            &Turn::default()
                .tool("t2", "Write", r#"{"filePath":"b.txt","content":"new"}"#)
                .usage(160, 20),
        ),
        Reply::anthropic(
            &Turn::default()
                .tool("t3", "Bash", r#"{"command":"rm -rf b.txt"}"#)
                .usage(200, 10),
        ),
        Reply::anthropic(&Turn::text(["All ", "done."]).usage(260, 5)),
        Reply::anthropic(&Turn::text(["second"]).usage(300, 2)),
    ]
}

#[test]
fn a_recorded_session_replays_byte_for_byte_offline() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let rec = dir.path().join("rec.jsonl");
    let server = FakeServer::start();
    for r in replies() {
        server.enqueue(r);
    }
    let mut live = server.provider_config("anthropic");
    live["api_key"] = json!("sk-secret-never-written");
    live["headers"] = json!({"x-private": "header-never-written"});
    let rt = runtime(
        &json!({"v":1,"providers":{
            "live": live,
            "rep": {"kind":"replay","file": rec},
            "strict": {"kind":"replay","file": rec,"strict":true}}})
        .to_string(),
    );
    let base = json!({"v":1,"model":"claude-sonnet-4-5","cwd":dir.path(),"delivery":"pull",
        "session_id":"rr-1","tools":["Read","Write","Bash"],"permission_mode":"default",
        "permissions":{"deny":["Bash(rm *)"]}});
    let mut cfg = base.clone();
    cfg["provider"] = json!("live");
    cfg["record"] = json!("rec.jsonl");
    let (rec_events, rec_history) = run_scenario(rt, &cfg, "tidy up");
    assert_eq!(server.requests().len(), 5);
    drop(server);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.txt")).unwrap(),
        "new"
    );
    std::fs::remove_file(dir.path().join("b.txt")).unwrap();

    let text = std::fs::read_to_string(&rec).unwrap();
    assert!(!text.contains("sk-secret") && !text.contains("never-written"));
    assert!(
        !text.contains("127.0.0.1"),
        "the server address was written"
    );
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert_eq!(lines[0]["robota_recording"], 1);
    let x0 = &lines[1]["exchange"];
    assert_eq!(x0["request"]["tools"], json!(["Read", "Write", "Bash"]));
    assert_eq!(
        x0["stream"],
        json!([{"thinking":"plan"},{"thinking":"ning"},{"text":"Let me "},{"text":"look."}])
    );
    assert_eq!(x0["response"]["tool_calls"][0]["function"]["name"], "Read");
    assert_eq!(x0["response"]["usage"]["input_tokens"], 120);

    for provider in ["rep", "strict"] {
        let mut cfg = base.clone();
        cfg["provider"] = json!(provider);
        let (events, history) = run_scenario(rt, &cfg, "tidy up");
        assert_eq!(
            normalized(&json!(events)),
            normalized(&json!(rec_events)),
            "{provider}"
        );
        assert_eq!(normalized(&history), normalized(&rec_history), "{provider}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("b.txt")).unwrap(),
            "new"
        );
        std::fs::remove_file(dir.path().join("b.txt")).unwrap();
    }
    let tools: Vec<&Value> = rec_events
        .iter()
        .filter(|e| e["type"] == "tool_end")
        .collect();
    assert_eq!(tools.len(), 3, "{rec_events:?}");
    assert_eq!(tools[2]["result"], "denied");

    // Strict: another first prompt fails the turn naming message, role and field.
    let mut cfg = base.clone();
    cfg["provider"] = json!("strict");
    let s = session_new(rt, &cfg.to_string()).unwrap();
    submit(s, "something else");
    let evs = ffi::events_until(s, "turn_completed");
    let err = evs.iter().find(|e| e["type"] == "error").unwrap();
    assert_eq!(
        err["message"].as_str().unwrap(),
        "Provider Error (strict): replay: request 1 differs from the recording (line 2): message 0 (role user): field \"content\": recorded \"tidy up\", got \"something else\""
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn bad_recordings_are_refused_at_session_creation_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsonl");
    let rt =
        runtime(&json!({"v":1,"providers":{"rep": {"kind":"replay","file": file}}}).to_string());
    let cfg = json!({"v":1,"provider":"rep","model":"m","delivery":"pull"}).to_string();
    let e = session_new(rt, &cfg).unwrap_err();
    assert_eq!(e.status, ROBOTA_E_INVALID_CONFIG);
    assert!(
        e.message.contains("cannot read the recording"),
        "{}",
        e.message
    );
    std::fs::write(&file, "{\"robota_recording\":1}\n{\"exchange\":{\"request\":{\"model\":\"m\",\"messages\":[]},\"response\":{\"content\":\"x\",\"stop_reason\":\"end_turn\"}}}\n{\"exchange\":oops}\n").unwrap();
    let e = session_new(rt, &cfg).unwrap_err();
    assert_eq!(e.status, ROBOTA_E_INVALID_CONFIG);
    assert!(e.message.contains("bad.jsonl\" line 3: "), "{}", e.message);
    std::fs::write(&file, "{\"robota_recording\":7,\"library\":\"9.0.0\"}\n").unwrap();
    let e = session_new(rt, &cfg).unwrap_err();
    assert!(
        e.message.contains(
            "line 1: recording format version 7 (written by robota 9.0.0) is not supported"
        ),
        "{}",
        e.message
    );
    // Recording into a file of another version is refused too.
    let scripted = runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#);
    let cfg =
        json!({"v":1,"provider":"s","model":"m","delivery":"pull","record": file}).to_string();
    let e = session_new(scripted, &cfg).unwrap_err();
    assert_eq!(e.status, ROBOTA_E_INVALID_CONFIG);
    assert!(
        e.message.contains("field \"record\": recording"),
        "{}",
        e.message
    );
    robota_runtime_free(scripted);
    robota_runtime_free(rt);
}
