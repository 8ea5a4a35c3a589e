//! Structured output through the C ABI: `output_schema` on `robota_session_submit` gives the
//! validated answer as `turn_completed.output` (the vendor request carries the schema); a bad
//! schema is `ROBOTA_E_INVALID_CONFIG` naming the field; `robota_query` returns `output`, and a
//! model that never complies fails the query with `ROBOTA_E_PROVIDER` and `SCHEMA_ERROR`
//! details.

use std::ffi::CStr;
use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{self as ffi, c, failure, Failure};

fn city_schema() -> Value {
    json!({"type":"object","properties":{"city":{"type":"string"}},
           "required":["city"],"additionalProperties":false})
}

fn submit_json(s: *mut robota_session, input: &Value) -> Result<u64, Failure> {
    let mut turn = 0;
    let mut e = null_mut();
    match robota_session_submit(s, c(&input.to_string()).as_ptr(), &mut turn, &mut e) {
        ROBOTA_OK => Ok(turn),
        st => Err(failure(st, e)),
    }
}

#[test]
fn turn_completed_carries_the_validated_output() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["{\"city\":\"Oslo\"}"])));
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("openai")}}).to_string(),
    );
    let s = ffi::session_new(
        rt,
        r#"{"v":1,"provider":"p","model":"gpt-4o","delivery":"pull","tools":[]}"#,
    )
    .unwrap();
    let bad = submit_json(s, &json!({"text":"Where?","output_schema":[1]})).unwrap_err();
    assert_eq!(bad.status, ROBOTA_E_INVALID_CONFIG);
    assert!(
        bad.message
            .contains("field \"output_schema\" must be a JSON Schema object"),
        "{}",
        bad.message
    );
    let turn = submit_json(s, &json!({"text":"Where?","output_schema": city_schema()})).unwrap();
    let events = ffi::events_until(s, "turn_completed");
    assert_eq!(robota_session_wait(s, turn, 30_000, null_mut()), ROBOTA_OK);
    let done = events.last().unwrap();
    assert_eq!(done["stop_reason"], "complete");
    assert_eq!(done["output"], json!({"city":"Oslo"}));
    let body = &server.requests()[0].body;
    assert_eq!(
        body["response_format"],
        json!({"type":"json_schema","json_schema":
               {"name":"final_answer","schema": city_schema(),"strict": true}})
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

/// `robota_query` with `output_schema`: `Ok` with `output`, or the failure's status and details.
fn query(rt: *mut robota_runtime, doc: &Value) -> Result<Value, (robota_status, Value)> {
    let q = c(&doc.to_string());
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_query(rt, q.as_ptr(), None, null_mut(), None, &mut out, &mut e);
    if st == ROBOTA_OK {
        // SAFETY: the library wrote an owned NUL-terminated string.
        let text = unsafe { CStr::from_ptr(out) }
            .to_string_lossy()
            .into_owned();
        robota_string_free(out);
        return Ok(serde_json::from_str(&text).unwrap());
    }
    let details_ptr = robota_error_details(e);
    // SAFETY: non-NULL details are NUL-terminated JSON valid until robota_error_free.
    let details =
        serde_json::from_str(&unsafe { CStr::from_ptr(details_ptr) }.to_string_lossy()).unwrap();
    robota_error_free(e);
    Err((st, details))
}

#[test]
fn a_query_returns_the_output_or_fails_with_schema_error() {
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["{\"city\":\"Oslo\"}"])));
    server.enqueue(Reply::anthropic(&Turn::text(["Oslo"])));
    server.enqueue(Reply::anthropic(&Turn::text(["{\"city\":7}"])));
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("anthropic")}}).to_string(),
    );
    let doc = json!({"v":1,"provider":"p","model":"claude-sonnet-4-5","tools":[],
                     "prompt":"Where?","output_schema": city_schema()});
    let out = query(rt, &doc).unwrap();
    assert_eq!(out["output"], json!({"city":"Oslo"}));
    assert_eq!(out["stop_reason"], "complete");
    assert_eq!(
        server.requests()[0].body["output_config"]["format"]["schema"],
        city_schema()
    );
    let (status, details) = query(rt, &doc).unwrap_err();
    assert_eq!(status, ROBOTA_E_PROVIDER);
    assert_eq!(details["code"], "SCHEMA_ERROR");
    assert_eq!(
        details["errors"],
        json!(["Parameter \"city\" must be a string, got number"])
    );
    robota_runtime_free(rt);
}
