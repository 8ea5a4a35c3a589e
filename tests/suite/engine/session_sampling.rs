//! The session JSON's `temperature` and `max_tokens` reach every model request.

use robota_engine::sdk::error::ErrorCode;
use serde_json::json;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::host_session::{runtime, Host};

#[test]
fn temperature_and_max_tokens_reach_the_request() {
    let server = FakeServer::start();
    let rt = runtime(server.provider_config("openai"));
    let host = Host::open(&rt, json!({"tools": [], "temperature": 0, "max_tokens": 7})).unwrap();
    server.enqueue(Reply::openai(&Turn::text(["ok"])));
    host.turn(json!({"text": "hi"})).unwrap();
    let body = server.requests()[0].body.clone();
    assert_eq!(body["temperature"], json!(0.0));
    assert_eq!(body["max_completion_tokens"], json!(7));
    for bad in [json!({"temperature": 3}), json!({"max_tokens": 0})] {
        let e = Host::open(&rt, bad.clone()).err().unwrap();
        assert_eq!(e.code, ErrorCode::InvalidConfig, "{bad}");
    }
}
