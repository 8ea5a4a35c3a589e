//! Providers a runtime shares between its sessions: `anthropic` and `openai*` profiles are
//! built once per runtime (they keep no per-conversation state); `gemini`, `scripted` and
//! `replay` are built per session. Sharing changes nothing a host can see.

use std::sync::{Arc, Mutex};

use robota::ffi::{robota_runtime_free, robota_session_free};
use robota_engine::core::env_ref::EnvVars;
use robota_engine::core::provider::complete;
use robota_engine::providers::create_provider_in;
use robota_engine::sdk::runtime::Runtime;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{events_until, runtime, session_new, submit};

#[test]
fn stateless_kinds_are_shared_and_stateful_ones_are_not() {
    let rt = Runtime::from_json(
        &json!({"v":1,"providers":{
            "a":{"kind":"anthropic","api_key":"k"},
            "o":{"kind":"openai","api_key":"k"},
            "c":{"kind":"openai-compatible"},
            "g":{"kind":"gemini","api_key":"k"},
            "s":{"kind":"scripted","turns":[{"deltas":["x"]}]}}})
        .to_string(),
    )
    .unwrap();
    let shared = rt.shared();
    for (name, same) in [
        ("a", true),
        ("o", true),
        ("c", true),
        ("g", false),
        ("s", false),
    ] {
        let one = shared.make_provider(name).unwrap();
        let two = shared.make_provider(name).unwrap();
        assert_eq!(std::sync::Arc::ptr_eq(&one, &two), same, "provider {name}");
        assert_eq!(one.name(), name);
    }
    let err = shared.make_provider("nope").err().unwrap();
    assert!(
        err.message.contains("unknown provider \"nope\""),
        "{}",
        err.message
    );
}

#[test]
fn a_shared_provider_resolves_env_keys_at_each_call() {
    const VAR: &str = "ROBOTA_TEST_SHARED_PROVIDER_KEY";
    let server = FakeServer::start();
    let mut profile = server.provider_config("anthropic");
    profile["api_key"] = json!(format!("$ENV:{VAR}"));
    // The variable, changed between calls: injected where the provider looks it up, so the
    // process environment (shared with the tests running alongside) is never touched.
    let value = Arc::new(Mutex::new(String::new()));
    let v2 = value.clone();
    let env = EnvVars::with_lookup(move |name| (name == VAR).then(|| v2.lock().unwrap().clone()));
    // One instance serving two holders, as a runtime shares it between its sessions
    // (`stateless_kinds_are_shared_and_stateful_ones_are_not`).
    let one = create_provider_in("p", &profile, &reqwest::Client::new(), &env).unwrap();
    let two = one.clone();
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut sent = Vec::new();
    for (p, key) in [(&one, "key-1"), (&two, "key-2"), (&one, "key-3")] {
        *value.lock().unwrap() = key.to_string();
        server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
        let answer = tokio
            .block_on(complete(&**p, "m", "hi".into(), CancellationToken::new()))
            .unwrap();
        assert_eq!(answer.content, "ok");
        sent.push(
            server
                .requests()
                .last()
                .unwrap()
                .header("x-api-key")
                .map(str::to_string),
        );
    }
    assert_eq!(
        sent,
        ["key-1", "key-2", "key-3"].map(|k| Some(k.to_string()))
    );
}

#[test]
fn a_scripted_provider_starts_every_session_at_its_first_turn() {
    let rt = runtime(
        &json!({"v":1,"providers":{"s":{"kind":"scripted",
            "turns":[{"deltas":["one"]},{"deltas":["two"]}]}}})
        .to_string(),
    );
    let doc = json!({"v":1,"provider":"s","model":"m","tools":[],"delivery":"pull"}).to_string();
    let answer = |s| {
        submit(s, "hi");
        events_until(s, "turn_completed").last().unwrap()["response"].clone()
    };
    let a = session_new(rt, &doc).unwrap();
    assert_eq!(answer(a), "one");
    let b = session_new(rt, &doc).unwrap();
    assert_eq!(answer(b), "one");
    assert_eq!(answer(a), "two");
    robota_session_free(a);
    robota_session_free(b);
    robota_runtime_free(rt);
}
