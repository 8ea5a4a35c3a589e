//! Structured output (`output_schema`): the schema in each vendor's request, the validated
//! answer as `turn_completed.output`, the repair round, `schema_error` for a model that never
//! complies, the session's schema and a turn's override, bad schemas refused naming the field,
//! and the forced `final_answer` tool on a provider without a native form.

use robota_engine::core::agent::RunOptions;
use robota_engine::core::execution::{RunStop, FINAL_ANSWER_KEY, REPAIR_KEY};
use robota_engine::core::message::Role;
use robota_engine::core::output_schema::{OutputSchema, FINAL_ANSWER_INSTRUCTION};
use robota_engine::core::tool_choice::ToolChoice;
use robota_engine::sdk::error::ErrorCode;
use robota_engine::sdk::events;
use robota_engine::sdk::interactive::TurnInput;
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

use crate::support::engine::{agent, scripted};
use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::host_session::{recorded_session, runtime, Host};

fn city_schema() -> Value {
    json!({"type":"object","properties":{"city":{"type":"string"}},
           "required":["city"],"additionalProperties":false})
}

/// Where each vendor's request carries the schema.
fn sent_schema(kind: &str, body: &Value) -> Value {
    match kind {
        "anthropic" => body["output_config"]["format"]["schema"].clone(),
        "openai" => body["response_format"]["json_schema"]["schema"].clone(),
        "openai-responses" => body["text"]["format"]["schema"].clone(),
        _ => body["generationConfig"]["responseJsonSchema"].clone(),
    }
}

/// The messages of a vendor request as (role, text) pairs, for the kinds used here.
fn last_user_text(body: &Value) -> String {
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user");
    last["content"].as_str().unwrap().to_string()
}

/// A session on `server` as a provider of `kind`, with its runtime (kept alive with it).
fn host(server: &FakeServer, kind: &str, session: Value) -> (Runtime, Host) {
    let rt = runtime(server.provider_config(kind));
    let h = Host::open(&rt, session).unwrap();
    (rt, h)
}

#[test]
fn a_matching_answer_is_the_output_on_every_vendor() {
    for kind in ["anthropic", "openai", "openai-responses", "gemini"] {
        let server = FakeServer::start();
        server.enqueue(Reply::for_kind(
            kind,
            &Turn::text(["{\"city\":", " \"Oslo\"}"]),
        ));
        let (_rt, h) = host(&server, kind, json!({"tools": []}));
        h.turn(json!({"text": "Where?", "output_schema": city_schema()}))
            .unwrap();
        let done = h.last_completed();
        assert_eq!(done["stop_reason"], "complete", "{kind}");
        assert_eq!(done["response"], "{\"city\": \"Oslo\"}", "{kind}");
        assert_eq!(done["output"], json!({"city": "Oslo"}), "{kind}");
        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{kind}: no extra call");
        assert_eq!(
            sent_schema(kind, &requests[0].body),
            city_schema(),
            "{kind}"
        );
        assert!(h.json(events::ERROR).is_empty(), "{kind}");
    }
}

#[test]
fn a_turn_without_a_schema_has_no_output_and_sends_none() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["{\"city\":\"Oslo\"}"])));
    let (_rt, h) = host(&server, "openai", json!({"tools": []}));
    h.turn(json!({"text": "Where?"})).unwrap();
    assert!(h.last_completed().get("output").is_none());
    assert!(server.requests()[0].body.get("response_format").is_none());
}

#[test]
fn the_repair_round_sends_the_problems_and_its_answer_counts() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["{\"town\":\"Oslo\"}"])));
    server.enqueue(Reply::openai(&Turn::text(["{\"city\":\"Oslo\"}"])));
    let (_rt, h) = host(&server, "openai", json!({"tools": []}));
    h.turn(json!({"text": "Where?", "output_schema": city_schema()}))
        .unwrap();
    let done = h.last_completed();
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(done["output"], json!({"city": "Oslo"}));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let repair = "Your answer does not match the required output schema: Missing required parameter: city; Unknown parameter: town. Reply again with only the corrected JSON answer.";
    assert_eq!(last_user_text(&requests[1].body), repair);
    // The repair round carries the schema too.
    assert_eq!(sent_schema("openai", &requests[1].body), city_schema());
    // History: the question, the first answer, the repair message, the corrected answer.
    let history: Vec<(Role, String)> = h
        .session
        .conversation()
        .iter()
        .map(|m| (m.role, m.content.clone()))
        .collect();
    assert_eq!(
        history,
        vec![
            (Role::User, "Where?".to_string()),
            (Role::Assistant, "{\"town\":\"Oslo\"}".to_string()),
            (Role::User, repair.to_string()),
            (Role::Assistant, "{\"city\":\"Oslo\"}".to_string()),
        ]
    );
    let marked = h.session.conversation()[2].metadata.as_ref().unwrap()[REPAIR_KEY].clone();
    assert_eq!(marked, json!(true));
}

#[test]
fn a_model_that_never_complies_ends_with_schema_error() {
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["Oslo"]).usage(10, 1)));
    server.enqueue(Reply::anthropic(&Turn::text(["It is Oslo."]).usage(30, 4)));
    let (_rt, h) = host(&server, "anthropic", json!({"tools": []}));
    let err = h
        .turn(json!({"text": "Where?", "output_schema": city_schema()}))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Provider);
    assert_eq!(server.requests().len(), 2, "one repair round, no more");
    let errors = h.json(events::ERROR);
    assert_eq!(errors.len(), 1);
    let e = &errors[0];
    assert_eq!(e["code"], "SCHEMA_ERROR");
    assert_eq!(e["category"], "provider");
    assert_eq!(e["recoverable"], true);
    let problems = e["errors"].as_array().unwrap();
    assert_eq!(problems.len(), 1);
    let problem = problems[0].as_str().unwrap();
    assert!(
        problem.starts_with("the answer is not valid JSON"),
        "{problem}"
    );
    assert_eq!(
        e["message"],
        format!("the answer does not match output_schema: {problem}")
    );
    let done = h.last_completed();
    assert_eq!(done["stop_reason"], "schema_error");
    assert_eq!(done["response"], "It is Oslo.");
    assert!(done.get("output").is_none());
    assert_eq!(done["error_details"]["errors"], e["errors"]);
    assert_eq!(done["usage"]["input_tokens"], 40);
    // The waiting host gets the same details.
    assert_eq!(err.details.unwrap()["code"], "SCHEMA_ERROR");
}

#[test]
fn the_sessions_schema_holds_unless_the_turn_gives_one() {
    let list = json!({"type":"array","items":{"type":"integer"}});
    let server = FakeServer::start();
    server.enqueue(Reply::gemini(&Turn::text(["[2, 3, 5]"])));
    server.enqueue(Reply::gemini(&Turn::text(["{\"city\":\"Oslo\"}"])));
    let (_rt, h) = host(
        &server,
        "gemini",
        json!({"tools": [], "output_schema": list}),
    );
    h.turn(json!({"text": "Primes?"})).unwrap();
    assert_eq!(h.last_completed()["output"], json!([2, 3, 5]));
    h.turn(json!({"text": "Where?", "output_schema": city_schema()}))
        .unwrap();
    assert_eq!(h.last_completed()["output"], json!({"city": "Oslo"}));
    let requests = server.requests();
    assert_eq!(sent_schema("gemini", &requests[0].body), list);
    assert_eq!(sent_schema("gemini", &requests[1].body), city_schema());
    assert_eq!(
        requests[0].body["generationConfig"]["responseMimeType"],
        "application/json"
    );
}

#[test]
fn a_bad_schema_is_refused_naming_output_schema() {
    let e = TurnInput::from_json(r#"{"text":"x","output_schema":"json"}"#).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidConfig);
    assert_eq!(
        e.message,
        "Configuration Error: input_json: field \"output_schema\" must be a JSON Schema object, got \"json\""
    );
    let e = TurnInput::from_json(r#"{"text":"x","output_schema":{"type":5}}"#).unwrap_err();
    assert!(
        e.message.starts_with(
            "Configuration Error: input_json: field \"output_schema\": Invalid JSON Schema"
        ),
        "{}",
        e.message
    );
    let server = FakeServer::start();
    let rt = runtime(server.provider_config("openai"));
    let e = recorded_session(
        &rt,
        &json!({"provider":"p","model":"m","output_schema":{"type":"objekt"}}),
    )
    .err()
    .unwrap();
    assert_eq!(e.code, ErrorCode::InvalidConfig);
    assert!(
        e.message.contains("field \"output_schema\""),
        "{}",
        e.message
    );
}

/// A provider without a native form (the scripted one): once the model stops calling tools,
/// one call forces `final_answer`, whose input is the answer; the instruction stays out of
/// history and the input is recorded as the assistant's JSON answer.
#[tokio::test]
async fn without_a_native_form_a_forced_final_answer_tool_gives_the_output() {
    let schema = OutputSchema::from_json("t", &city_schema()).unwrap();
    let p = scripted(json!([
        {"text": "The city is Oslo."},
        {"text": "", "tool_calls": [{"id": "fa", "name": "final_answer", "arguments": {"city": "Oslo"}}]}
    ]));
    let a = agent(p.clone(), vec![], |_| {});
    let r = a
        .run(
            "Where?",
            RunOptions {
                output_schema: Some(schema.clone()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(r.stop, RunStop::Complete);
    assert_eq!(r.output, Some(json!({"city": "Oslo"})));
    assert_eq!(r.response, "{\"city\":\"Oslo\"}");
    let requests = p.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[0].tools.is_empty(),
        "no final_answer before the model is done"
    );
    assert_eq!(requests[0].tool_choice, ToolChoice::Auto);
    let forced = &requests[1];
    assert_eq!(forced.tools.len(), 1);
    assert_eq!(forced.tools[0].name, "final_answer");
    assert_eq!(forced.tools[0].parameters, city_schema());
    assert_eq!(
        forced.tool_choice,
        ToolChoice::Tool("final_answer".to_string())
    );
    assert_eq!(
        forced.messages.last().unwrap().content,
        FINAL_ANSWER_INSTRUCTION
    );
    let history = a.messages();
    let contents: Vec<(Role, &str)> = history
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect();
    assert_eq!(
        contents,
        vec![
            (Role::User, "Where?"),
            (Role::Assistant, "The city is Oslo."),
            (Role::Assistant, "{\"city\":\"Oslo\"}"),
        ]
    );
    let meta = history[2].metadata.as_ref().unwrap();
    assert_eq!(meta[FINAL_ANSWER_KEY], json!(true));
    assert!(history[2].tool_calls.is_empty());
}

/// On the forced path an answer text that already matches needs no extra call; a forced
/// answer that does not match gets the repair round, then fails with its problems.
#[tokio::test]
async fn the_forced_path_skips_a_matching_text_and_repairs_once() {
    let schema = OutputSchema::from_json("t", &city_schema()).unwrap();
    let p = scripted(json!([{"text": "{\"city\":\"Oslo\"}"}]));
    let a = agent(p.clone(), vec![], |_| {});
    let opts = || RunOptions {
        output_schema: Some(schema.clone()),
        ..Default::default()
    };
    let r = a.run("Where?", opts()).await.unwrap();
    assert_eq!(r.output, Some(json!({"city": "Oslo"})));
    assert_eq!(p.requests().len(), 1);

    let p = scripted(json!([
        {"text": "Oslo."},
        {"text": "", "tool_calls": [{"name": "final_answer", "arguments": {"city": 1}}]},
        {"text": "Still Oslo."},
        {"text": "", "tool_calls": [{"name": "final_answer", "arguments": {"town": "Oslo"}}]}
    ]));
    let a = agent(p.clone(), vec![], |_| {});
    let r = a.run("Where?", opts()).await.unwrap();
    assert_eq!(r.stop, RunStop::SchemaError);
    assert_eq!(r.output, None);
    assert_eq!(
        r.schema_errors,
        vec![
            "Missing required parameter: city".to_string(),
            "Unknown parameter: town".to_string()
        ]
    );
    let requests = p.requests();
    assert_eq!(requests.len(), 4);
    // The repair message (in history) names the first forced answer's problem.
    let repair = &requests[2].messages.last().unwrap().content;
    assert_eq!(
        repair,
        "Your answer does not match the required output schema: Parameter \"city\" must be a string, got number. Reply again with only the corrected JSON answer."
    );
    assert!(a.messages().iter().any(|m| &m.content == repair));
}

/// The repair round runs even when the first answer used the last round the cap allowed.
#[test]
fn the_repair_round_runs_past_the_round_cap() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["Oslo"])));
    server.enqueue(Reply::openai(&Turn::text(["{\"city\":\"Oslo\"}"])));
    let (_rt, h) = host(&server, "openai", json!({"tools": [], "max_rounds": 1}));
    h.turn(json!({"text": "Where?", "output_schema": city_schema()}))
        .unwrap();
    let done = h.last_completed();
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(done["output"], json!({"city": "Oslo"}));
    assert_eq!(server.requests().len(), 2);
}
