//! The context window a session uses: the window the OpenAI-compatible server serves (each
//! discovery endpoint answered with the JSON its docs show, asked once per runtime and model),
//! the window named by an overflow error, the session's `context_window` override, and the
//! `CONTEXT_WINDOW_ASSUMED` warning (once per session) when nothing is known.

use robota_engine::sdk::events;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::host_session::{runtime, Host};

fn compatible(server: &FakeServer) -> Value {
    let mut p = server.provider_config("openai-compatible");
    p["max_retries"] = json!(0);
    p
}

/// One turn on a fresh session of `server` with model `local`; returns the host.
fn one_turn(
    rt: &robota_engine::sdk::runtime::Runtime,
    server: &FakeServer,
    session: Value,
) -> Host {
    server.enqueue(Reply::openai(&Turn::text(["ok"])));
    let mut s = json!({"model": "local", "tools": []});
    for (k, v) in session.as_object().cloned().unwrap_or_default() {
        s[k] = v;
    }
    let host = Host::open(rt, s).unwrap();
    host.turn(json!({"text": "hi"})).unwrap();
    host
}

fn window(host: &Host) -> Value {
    host.last_completed()["context_state"]["max_tokens"].clone()
}

fn assumed(host: &Host) -> usize {
    host.json(events::WARNING)
        .iter()
        .filter(|w| w["code"] == "CONTEXT_WINDOW_ASSUMED")
        .count()
}

#[test]
fn each_server_kind_tells_its_served_window() {
    // (path, docs-shaped answer, window)
    let cases: Vec<(&str, Value, u64)> = vec![
        (
            "/props",
            json!({"default_generation_settings": {"n_ctx": 8192, "n_predict": -1, "model": "local",
                   "params": {"temperature": 0.8}}, "total_slots": 1,
                   "model_path": "models/local.gguf", "chat_template": "{{ messages }}", "build_info": "b5000"}),
            8192,
        ),
        (
            "/v1/models",
            json!({"object": "list", "data": [{"id": "other", "object": "model", "max_model_len": 1024},
                   {"id": "local", "object": "model", "created": 1715000000, "owned_by": "vllm",
                    "root": "meta-llama/Llama-3.1-8B-Instruct", "parent": null, "max_model_len": 32768,
                    "permission": [{"id": "modelperm-1", "object": "model_permission", "allow_sampling": true}]}]}),
            32768,
        ),
        (
            "/api/v0/models",
            json!({"object": "list", "data": [{"id": "local", "object": "model", "type": "llm",
                   "publisher": "lmstudio-community", "arch": "llama", "compatibility_type": "gguf",
                   "quantization": "Q4_K_M", "state": "loaded", "max_context_length": 131072,
                   "loaded_context_length": 4096}]}),
            4096,
        ),
        (
            "/api/show",
            json!({"modelfile": "FROM llama3.2", "parameters": "num_ctx                        16384\nstop                           \"<|eot_id|>\"",
                   "template": "{{ .Prompt }}", "details": {"format": "gguf", "family": "llama", "parameter_size": "3.2B"},
                   "model_info": {"general.architecture": "llama", "llama.context_length": 131072}}),
            16384,
        ),
        (
            "/api/show",
            json!({"modelfile": "FROM llama3.2", "parameters": "stop                           \"<|eot_id|>\"",
                   "details": {"family": "llama"}, "model_info": {"llama.context_length": 131072}}),
            robota_engine::providers::context_window::OLLAMA_DEFAULT_CONTEXT,
        ),
    ];
    for (path, answer, want) in cases {
        let server = FakeServer::start();
        server.route(path, Reply::error(200, &answer.to_string()));
        let rt = runtime(compatible(&server));
        let a = one_turn(&rt, &server, json!({}));
        assert_eq!(window(&a), want, "{path}");
        assert_eq!(assumed(&a), 0, "{path}: the window is known");
        // A second session of the same runtime does not ask again.
        let asked = server.probes().len();
        let b = one_turn(&rt, &server, json!({}));
        assert_eq!(window(&b), want, "{path}");
        assert_eq!(
            server.probes().len(),
            asked,
            "{path}: asked once per runtime"
        );
        let last = server.probes().last().cloned().unwrap();
        assert_eq!(last.path, path, "{path}");
        if path == "/api/show" {
            assert_eq!(last.method, "POST");
            assert_eq!(last.body, json!({"model": "local"}));
        }
        assert_eq!(
            last.header("authorization"),
            Some("Bearer test-key"),
            "{path}"
        );
    }
}

#[test]
fn nothing_told_means_the_default_with_one_warning_per_session() {
    let server = FakeServer::start();
    let rt = runtime(compatible(&server));
    let host = one_turn(&rt, &server, json!({}));
    server.enqueue(Reply::openai(&Turn::text(["again"])));
    host.turn(json!({"text": "more"})).unwrap();
    assert_eq!(
        window(&host),
        robota_engine::core::models::DEFAULT_CONTEXT_WINDOW
    );
    let warnings: Vec<Value> = host
        .json(events::WARNING)
        .into_iter()
        .filter(|w| w["code"] == "CONTEXT_WINDOW_ASSUMED")
        .collect();
    assert_eq!(warnings.len(), 1, "once per session");
    assert_eq!(warnings[0]["max_tokens"], 200_000);
    assert!(warnings[0]["message"]
        .as_str()
        .unwrap()
        .contains("model \"local\""));
    // A known model needs no warning; an override needs no question.
    let known = one_turn(&rt, &server, json!({"model": "claude-sonnet-4-5"}));
    assert_eq!(assumed(&known), 0);
    let probes = server.probes().len();
    let set = one_turn(&rt, &server, json!({"context_window": 1234}));
    assert_eq!(window(&set), 1234);
    assert_eq!(assumed(&set), 0);
    assert_eq!(server.probes().len(), probes, "the override is not asked");
}

#[test]
fn an_overflow_error_ends_the_turn_with_context_limit_and_teaches_the_window() {
    let server = FakeServer::start();
    let rt = runtime(compatible(&server));
    let host = Host::open(&rt, json!({"model": "local", "tools": []})).unwrap();
    server.enqueue(Reply::error(
        400,
        r#"{"error":{"message":"This model's maximum context length is 2048 tokens. However, you requested 3100 tokens (3000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
    ));
    let e = host
        .turn(json!({"text": "a very long prompt"}))
        .unwrap_err();
    let details = e.details.as_deref().cloned().unwrap();
    assert_eq!(details["code"], "PROVIDER_ERROR");
    assert_eq!(details["recoverable"], false);
    let done = host.last_completed();
    assert_eq!(done["stop_reason"], "context_limit");
    let error = done["error"].as_str().unwrap();
    assert!(
        error.contains(
            "the prompt does not fit the context window (2048 tokens) of model \"local\""
        ),
        "{error}"
    );
    assert_eq!(host.json(events::ERROR).len(), 1);
    assert_eq!(server.requests().len(), 1, "not retried");
    // The next turn works and uses the learned window.
    server.enqueue(Reply::openai(&Turn::text(["short"])));
    host.turn(json!({"text": "short"})).unwrap();
    assert_eq!(window(&host), 2048);
    assert_eq!(host.last_completed()["response"], "short");
}

#[test]
fn an_empty_stream_is_asked_again_without_streaming_and_its_overflow_error_is_used() {
    // llama-cpp-python answers a streamed request whose prompt exceeds its window with HTTP 200
    // and an empty event stream; asked without streaming it names the window.
    let server = FakeServer::start();
    let rt = runtime(compatible(&server));
    let host = Host::open(&rt, json!({"model": "local", "tools": []})).unwrap();
    server.enqueue(Reply::sse(Vec::new()));
    server.enqueue(Reply::error(
        400,
        r#"{"error":{"message":"This model's maximum context length is 512 tokens. However, you requested 3327 tokens (3322 in the messages, 5 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
    ));
    host.turn(json!({"text": "long"})).unwrap_err();
    let done = host.last_completed();
    assert_eq!(done["stop_reason"], "context_limit");
    assert!(done["error"].as_str().unwrap().contains("(512 tokens)"));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].body["stream"], true);
    assert_eq!(reqs[1].body["stream"], false);
    assert!(reqs[1].body.get("stream_options").is_none());
    // A plain answer to the second ask is the turn's answer.
    server.enqueue(Reply::sse(Vec::new()));
    server.enqueue(Reply::error(
        200,
        r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"fine"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#,
    ));
    host.turn(json!({"text": "short"})).unwrap();
    assert_eq!(host.last_completed()["response"], "fine");
    assert_eq!(window(&host), 512);
}
