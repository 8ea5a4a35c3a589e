//! `clear` reports the emptied context to the host: a `context_update` event right after the
//! command, with the estimate of the empty conversation.

use robota::ffi::{robota_runtime_free, robota_session_free, ROBOTA_EVENT_CONTEXT_UPDATE};
use serde_json::json;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{command, events_until, next_event, runtime, session_new, state, submit};

#[test]
fn clear_emits_a_context_update_for_the_empty_conversation() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text([
        "a fairly long answer that fills the context a little",
    ])));
    let rt =
        runtime(&json!({"v":1,"providers":{"p": server.provider_config("openai")}}).to_string());
    let s = session_new(
        rt,
        r#"{"v":1,"provider":"p","model":"m","delivery":"pull","tools":[],"context_window":1000}"#,
    )
    .unwrap();
    submit(s, "hello there, please answer at length");
    let turn = events_until(s, "turn_completed");
    let before = turn
        .iter()
        .rev()
        .find(|e| e["type"] == "context_update")
        .unwrap()["used_tokens"]
        .as_u64()
        .unwrap();
    assert!(before > 0, "{turn:?}");
    let done = command(s, r#"{"name":"clear"}"#).unwrap();
    assert_eq!(done["message"], "Conversation cleared.");
    let ev = next_event(s);
    // The meter of the emptied conversation (the estimate's floor), as the state reports it.
    let meter = state(s)["context_state"].clone();
    assert_eq!(meter["used_tokens"], 1);
    assert!(before > 1, "{turn:?}");
    assert_eq!(
        ev,
        json!({"v":1,"kind":ROBOTA_EVENT_CONTEXT_UPDATE,"type":"context_update","turn_id":0,
               "used_tokens":1,"max_tokens":1000,"used_percentage":0.1,"remaining_percentage":99.9})
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}
