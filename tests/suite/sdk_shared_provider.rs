//! Providers a runtime shares between its sessions: `anthropic` and `openai*` profiles are
//! built once per runtime (they keep no per-conversation state); `gemini`, `scripted` and
//! `replay` are built per session. Sharing changes nothing a host can see.

use robota::ffi::{robota_runtime_free, robota_session_free};
use robota::sdk::runtime::Runtime;
use serde_json::json;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::ffi::{events_until, runtime, session_new, submit};

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
    let rt = runtime(&json!({"v":1,"providers":{"p": profile}}).to_string());
    let doc = json!({"v":1,"provider":"p","model":"m","tools":[],"delivery":"pull"}).to_string();
    let one = session_new(rt, &doc).unwrap();
    let two = session_new(rt, &doc).unwrap();
    let mut sent = Vec::new();
    for (s, key) in [(one, "key-1"), (two, "key-2"), (one, "key-3")] {
        // Only this test reads the variable.
        std::env::set_var(VAR, key);
        server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
        submit(s, "hi");
        let evs = events_until(s, "turn_completed");
        assert_eq!(evs.last().unwrap()["response"], "ok", "{evs:?}");
        sent.push(
            server
                .requests()
                .last()
                .unwrap()
                .header("x-api-key")
                .map(str::to_string),
        );
    }
    std::env::remove_var(VAR);
    assert_eq!(
        sent,
        ["key-1", "key-2", "key-3"].map(|k| Some(k.to_string()))
    );
    robota_session_free(one);
    robota_session_free(two);
    robota_runtime_free(rt);
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
