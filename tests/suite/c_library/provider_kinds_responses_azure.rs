//! The `openai-responses` and `azure-openai` provider kinds through the C ABI's runtime JSON:
//! a `robota_query` answered by the fake server on each kind's exact path, query and key header,
//! and the config errors `robota_runtime_new` gives for a bad Azure entry. Also Anthropic behind
//! a gateway: a `base_url` with a path prefix and the gateway's own auth in `headers`.

use std::ffi::CStr;
use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{c, failure, runtime, Failure};

/// A runtime with provider `p` = `entry`, or the failure `robota_runtime_new` reported.
fn runtime_new(entry: &Value) -> Result<*mut robota_runtime, Failure> {
    let config = json!({"v":1,"providers":{"p": entry}}).to_string();
    let mut rt = null_mut();
    let mut e = null_mut();
    match robota_runtime_new(c(&config).as_ptr(), &mut rt, &mut e) {
        ROBOTA_OK => Ok(rt),
        st => Err(failure(st, e)),
    }
}

/// One `robota_query` of `prompt` with model `model` on provider `p`; its output JSON.
fn query(rt: *mut robota_runtime, model: &str, prompt: &str) -> Value {
    query_doc(
        rt,
        json!({"v":1,"provider":"p","model":model,"tools":[],"prompt":prompt}),
    )
}

/// One `robota_query` of `doc`; its output JSON.
fn query_doc(rt: *mut robota_runtime, doc: Value) -> Value {
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_query(
        rt,
        c(&doc.to_string()).as_ptr(),
        None,
        null_mut(),
        None,
        &mut out,
        &mut e,
    );
    assert_eq!(st, ROBOTA_OK, "{:?}", failure(st, e));
    // SAFETY: the library wrote an owned NUL-terminated string.
    let text = unsafe { CStr::from_ptr(out) }
        .to_string_lossy()
        .into_owned();
    robota_string_free(out);
    serde_json::from_str(&text).unwrap()
}

#[test]
fn an_openai_responses_runtime_answers_a_query() {
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(
        "openai-responses",
        &Turn::text(["fi", "ne"]).thinking(["hm"]).usage(7, 2),
    ));
    let rt = runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("openai-responses")}}).to_string(),
    );
    let out = query(rt, "o4-mini", "how are you");
    robota_runtime_free(rt);
    assert_eq!(out["response"], "fine");
    assert_eq!(out["stop_reason"], "complete");
    assert_eq!(out["usage"]["input_tokens"], 7);
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/responses");
    assert_eq!(req.header("authorization"), Some("Bearer test-key"));
    assert_eq!(
        req.body["input"],
        json!([{"role":"user","content":"how are you"}])
    );
    assert_eq!(req.body["store"], false);
}

fn azure(server: &FakeServer, fields: Value) -> Value {
    let mut entry = json!({"kind":"azure-openai","endpoint": server.base_url(),
                           "api_key":"az-key","max_retries":0});
    for (k, v) in fields.as_object().unwrap() {
        entry[k] = v.clone();
    }
    entry
}

#[test]
fn azure_deployment_url_with_api_version_and_api_key_header() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["hello"])));
    let rt = runtime_new(&azure(
        &server,
        json!({"deployment":"my-gpt-4o","api_version":"2024-10-21"}),
    ))
    .unwrap();
    let out = query_doc(
        rt,
        json!({"v":1,"provider":"p","model":"gpt-4o","tools":[],"prompt":"hi","max_tokens":50}),
    );
    robota_runtime_free(rt);
    assert_eq!(out["response"], "hello");
    let req = &server.requests()[0];
    // Azure's current API versions take OpenAI's field (reasoning models refuse `max_tokens`).
    assert_eq!(req.body["max_completion_tokens"], 50);
    assert_eq!(req.body.get("max_tokens"), None);
    assert_eq!(
        req.path,
        "/openai/deployments/my-gpt-4o/chat/completions?api-version=2024-10-21"
    );
    assert_eq!(req.header("api-key"), Some("az-key"));
    assert_eq!(req.header("authorization"), None);
}

#[test]
fn azure_v1_endpoint_takes_the_model_as_deployment() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["hello"])));
    let rt = runtime_new(&azure(&server, json!({"api_version":"v1"}))).unwrap();
    let out = query(rt, "my-deployment", "hi");
    robota_runtime_free(rt);
    assert_eq!(out["response"], "hello");
    let req = &server.requests()[0];
    assert_eq!(req.path, "/openai/v1/chat/completions");
    assert_eq!(req.header("api-key"), Some("az-key"));
    assert_eq!(req.body["model"], "my-deployment");
}

#[test]
fn bad_azure_entries_are_config_errors_naming_the_field() {
    let server = FakeServer::start();
    for (fields, message) in [
        (
            json!({"api_version":"2024-10-21"}),
            "provider \"p\": field \"deployment\" is required for kind \"azure-openai\"",
        ),
        (
            json!({"deployment":"d"}),
            "provider \"p\": field \"api_version\" is required for kind \"azure-openai\"",
        ),
        (
            json!({"deployment":"d","api_version":"v1"}),
            "provider \"p\": field \"deployment\" is not used with \"api_version\": \"v1\"",
        ),
        (
            json!({"deployment":"d","api_version":"1","deployment_id":"x"}),
            "provider \"p\": field \"deployment_id\" is not a known field",
        ),
    ] {
        let f = runtime_new(&azure(&server, fields.clone())).unwrap_err();
        assert_eq!(f.status, ROBOTA_E_INVALID_CONFIG, "{fields}: {f:?}");
        assert!(f.message.contains(message), "{fields}: {}", f.message);
    }
    let f = runtime_new(&json!({"kind":"azure-openai","deployment":"d","api_version":"1"}))
        .unwrap_err();
    assert!(
        f.message.contains("field \"endpoint\" is required"),
        "{}",
        f.message
    );
    let f = runtime_new(&json!({"kind":"openai","deployment":"d"})).unwrap_err();
    assert!(
        f.message
            .contains("field \"deployment\" is only supported for kind \"azure-openai\""),
        "{}",
        f.message
    );
}

#[test]
fn anthropic_on_a_gateway_sends_its_headers_to_the_prefixed_path() {
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["via gateway"])));
    let rt = runtime_new(&json!({"kind":"anthropic",
        "base_url": format!("{}/gw/v1/acct/anthropic", server.base_url()),
        "headers": {"cf-aig-authorization": "Bearer gw-token", "x-team": "agents"},
        "max_retries": 0}))
    .unwrap();
    let out = query(rt, "claude-sonnet-4-5", "hi");
    robota_runtime_free(rt);
    assert_eq!(out["response"], "via gateway");
    let req = &server.requests()[0];
    assert_eq!(req.path, "/gw/v1/acct/anthropic/v1/messages");
    assert_eq!(req.header("cf-aig-authorization"), Some("Bearer gw-token"));
    assert_eq!(req.header("x-team"), Some("agents"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        req.header("x-api-key"),
        None,
        "no key configured: none sent"
    );
}
