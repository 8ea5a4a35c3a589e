//! The fake server's history check catches a tool result that answers nothing, or answers a
//! call twice, in each vendor shape (so every provider test also checks the pairing invariant).

use crate::support::invariants::tool_pairing_violation;
use serde_json::json;

#[test]
fn anthropic_shape() {
    let ok = json!({"messages":[
        {"role":"user","content":"hi"},
        {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]});
    assert_eq!(tool_pairing_violation("/v1/messages", &ok), None);
    let orphan = json!({"messages":[
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"x"}]}]});
    assert_eq!(
        tool_pairing_violation("/v1/messages", &orphan).as_deref(),
        Some("/v1/messages: message 0: tool result for \"t9\" answers no earlier tool call")
    );
}

#[test]
fn openai_shape() {
    let twice = json!({"messages":[
        {"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]},
        {"role":"tool","tool_call_id":"c1","content":"1"},
        {"role":"tool","tool_call_id":"c1","content":"2"}]});
    assert_eq!(
        tool_pairing_violation("/v1/chat/completions", &twice).as_deref(),
        Some("/v1/chat/completions: message 2: tool call \"c1\" answered twice")
    );
}

#[test]
fn gemini_shape() {
    let ok = json!({"contents":[
        {"role":"model","parts":[{"functionCall":{"name":"add","args":{}}}]},
        {"role":"user","parts":[{"functionResponse":{"name":"add","response":{}}}]}]});
    assert_eq!(
        tool_pairing_violation("/v1beta/models/m:streamGenerateContent", &ok),
        None
    );
    let orphan = json!({"contents":[
        {"role":"user","parts":[{"functionResponse":{"name":"add","response":{}}}]}]});
    assert!(tool_pairing_violation("/v1beta/x", &orphan)
        .is_some_and(|v| v.contains("functionResponse \"name:add\" answers no open functionCall")));
}
