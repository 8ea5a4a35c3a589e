//! One budget over the whole delegation tree, through the exported C functions and a host
//! provider: a subagent's model calls count on its parent's `max_model_calls`; the child that
//! would cross it stops with `stop_reason:"budget"` and so does the parent's turn.

use std::ptr::null_mut;

use robota::ffi::*;
use serde_json::{json, Value};

use super::{last_text, register};
use crate::support_ffi::{c, events_until, failure, messages, runtime, session_new, submit};

fn answer(events: Vec<Value>) -> Vec<Value> {
    let mut e = events;
    e.push(json!({"type":"done"}));
    e
}

fn last_role(doc: &Value) -> &str {
    doc["messages"].as_array().unwrap().last().unwrap()["role"]
        .as_str()
        .unwrap()
}

#[test]
fn a_subagent_that_would_overrun_max_model_calls_stops_the_parents_turn_with_budget() {
    let rt = runtime(r#"{"v":1,"providers":{}}"#);
    // Parent: delegates, then answers. Child: reads a file, then answers. Unbudgeted, that is
    // four calls; on one budget of two, the child's second call is refused.
    let host = register(rt, "local", None, |d| {
        let child = d["session_id"] != "parent";
        answer(match (child, last_role(d) == "tool") {
            (false, false) => vec![json!({"type":"tool_call","id":"a1","name":"Agent",
                "arguments":{"prompt":"read it","subagent_type":"general-purpose"}})],
            (true, false) => vec![json!({"type":"tool_call","id":"r1","name":"Read",
                "arguments":{"filePath":"/nonexistent/robota-budget.txt"}})],
            (true, true) => vec![json!({"type":"text","text":"child done"})],
            (false, true) => vec![json!({"type":"text","text":"parent done"})],
        })
    });
    let cfg = json!({"v":1,"provider":"local","model":"tiny","session_id":"parent",
        "permission_mode":"bypassPermissions","delivery":"pull","tools":["Read","Agent"],
        "budget":{"max_model_calls":2}});
    let s = session_new(rt, &cfg.to_string()).unwrap();
    let turn = submit(s, "delegate");
    let events = events_until(s, "turn_completed");
    let calls = host.calls();
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert_ne!(calls[1]["session_id"], "parent");
    assert_eq!(last_text(&calls[1]), "read it");
    let limit = "budget exceeded: max_model_calls is 2 and 2 were used";
    // The child stopped on the budget (its relayed turn_completed)…
    let child_done: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "subagent" && e["event"]["type"] == "turn_completed")
        .collect();
    assert_eq!(child_done.len(), 1, "{events:#?}");
    assert_eq!(child_done[0]["event"]["stop_reason"], "budget");
    // …and the parent's turn reports it: ERROR naming the limit, then turn_completed "budget".
    let own: Vec<&Value> = events.iter().filter(|e| e["type"] != "subagent").collect();
    let error = own
        .iter()
        .find(|e| e["type"] == "error")
        .expect("an error event");
    assert_eq!(
        (
            &error["code"],
            &error["limit"],
            &error["max"],
            &error["used"]
        ),
        (
            &json!("BUDGET_EXCEEDED"),
            &json!("max_model_calls"),
            &json!(2),
            &json!(2)
        )
    );
    assert_eq!(error["message"], limit);
    let done = own.last().unwrap();
    assert_eq!(
        (done["turn_id"].as_u64(), &done["stop_reason"]),
        (Some(turn), &json!("budget"))
    );
    // The model's record of the delegation says why it ended.
    let msgs = messages(s);
    let tool = msgs["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("the Agent tool's result");
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains(&format!("Sub-agent error: {limit}")),
        "{tool}"
    );
    // The session stays out of budget.
    let mut id = 0;
    let mut e = null_mut();
    let st = robota_session_submit(s, c(r#"{"text":"more"}"#).as_ptr(), &mut id, &mut e);
    let f = failure(st, e);
    assert_eq!((f.status, f.message.as_str()), (ROBOTA_E_BUDGET, limit));
    robota_session_free(s);
    robota_runtime_free(rt);
    assert!(host.failed_pushes.lock().unwrap().is_empty());
}
