//! How a turn ends on the model's own stop (refusal, `max_tokens`), the round separator, that
//! no hidden model call follows a round in which no tool ran, and the turn's summed usage.

use crate::support::engine as common;

use std::sync::Arc;

use common::*;
use robota_engine::core::execution::{
    RunStop, MAX_TOKENS_CUT_CALL, MAX_TOKENS_NOT_RUN, NO_RESPONSE_TEXT,
};
use robota_engine::core::message::Role;
use robota_engine::core::tool::Tool;
use serde_json::json;

fn deltas(cap: &Capture) -> Vec<String> {
    cap.deltas.lock().unwrap().clone()
}

#[tokio::test]
async fn a_tool_only_first_round_gives_no_leading_separator() {
    let p = scripted(json!([
        {"tool_calls":[{"id":"a","name":"t"}]},
        {"deltas":["Found ","it"]}
    ]));
    let cap = Capture::default();
    let a = agent(
        p,
        vec![TestTool::new("t", Ok(json!("ok"))) as Arc<dyn Tool>],
        |_| {},
    );
    let r = a.run("go", cap.options()).await.unwrap();
    assert_eq!(deltas(&cap), vec!["Found ", "it"]);
    assert_eq!(r.response, "Found it");
}

#[tokio::test]
async fn text_tool_text_streams_exactly_one_separator() {
    let p = scripted(json!([
        {"deltas":["Looking"],"tool_calls":[{"id":"a","name":"t"}]},
        {"tool_calls":[{"id":"b","name":"t"}]},
        {"deltas":["Found ","it"]}
    ]));
    let cap = Capture::default();
    let a = agent(
        p,
        vec![TestTool::new("t", Ok(json!("ok"))) as Arc<dyn Tool>],
        |_| {},
    );
    a.run("go", cap.options()).await.unwrap();
    assert_eq!(deltas(&cap), vec!["Looking", "\n\n", "Found ", "it"]);
    // Never recorded in history.
    assert!(a.messages().iter().all(|m| !m.content.contains("\n\n")));
}

#[tokio::test]
async fn the_forced_summary_is_separated_only_from_earlier_text() {
    for (first, want) in [
        (
            json!({"deltas":["Looking"],"tool_calls":[{"id":"a","name":"t"}]}),
            vec!["Looking", "\n\n", "sum"],
        ),
        (json!({"tool_calls":[{"id":"a","name":"t"}]}), vec!["sum"]),
    ] {
        let p = scripted(json!([first, {"deltas":["sum"]}]));
        let cap = Capture::default();
        let t = TestTool::new("t", Ok(json!("ok")));
        let a = agent(p, vec![t as Arc<dyn Tool>], |c| {
            c.max_execution_rounds = Some(1)
        });
        let r = a.run("go", cap.options()).await.unwrap();
        assert_eq!(r.stop, RunStop::MaxRounds);
        assert_eq!(deltas(&cap), want);
    }
}

#[tokio::test]
async fn an_empty_first_round_makes_no_hidden_call() {
    let p = scripted(json!([{"text":""}, {"text":"hidden"}]));
    let a = agent(p.clone(), vec![], |_| {});
    let r = a.run("go", Default::default()).await.unwrap();
    assert_eq!(p.call_count(), 1, "no forced summary without a tool round");
    assert_eq!(r.stop, RunStop::Complete);
    assert_eq!(r.response, NO_RESPONSE_TEXT);
}

#[tokio::test]
async fn an_empty_answer_after_tool_rounds_still_gets_the_summary() {
    let p = scripted(json!([
        {"tool_calls":[{"id":"a","name":"t"}]},
        {"text":""},
        {"text":"summary"}
    ]));
    let a = agent(
        p.clone(),
        vec![TestTool::new("t", Ok(json!("ok"))) as Arc<dyn Tool>],
        |_| {},
    );
    let r = a.run("go", Default::default()).await.unwrap();
    assert_eq!(p.call_count(), 3);
    assert_eq!(r.response, "summary");
}

#[tokio::test]
async fn a_refusal_ends_the_turn_with_its_text() {
    // Without text (Anthropic), with text (OpenAI), and after a tool round.
    let cases = [
        (
            json!([{"text":"","stop_reason":"refusal"}, {"text":"hidden"}]),
            "",
            1,
        ),
        (
            json!([{"text":"I can't help.","stop_reason":"refusal"}, {"text":"hidden"}]),
            "I can't help.",
            1,
        ),
        (
            json!([{"text":"Checking.","tool_calls":[{"id":"a","name":"t"}]},
                   {"text":"No.","stop_reason":"refusal"}, {"text":"hidden"}]),
            "No.",
            2,
        ),
    ];
    for (turns, answer, calls) in cases {
        let p = scripted(turns);
        let a = agent(
            p.clone(),
            vec![TestTool::new("t", Ok(json!("ok"))) as Arc<dyn Tool>],
            |_| {},
        );
        let r = a.run("go", Default::default()).await.unwrap();
        assert_eq!(r.stop, RunStop::Refusal);
        assert_eq!(r.response, answer);
        assert_eq!(p.call_count(), calls, "no hidden call after a refusal");
        let last = a.messages().last().unwrap().clone();
        if answer.is_empty() {
            assert_eq!(
                last.role,
                Role::User,
                "an empty refusal leaves no assistant message"
            );
        } else {
            assert_eq!(
                (last.role, last.content.as_str()),
                (Role::Assistant, answer)
            );
        }
    }
}

#[tokio::test]
async fn max_tokens_ends_the_turn_with_the_cut_text() {
    let p = scripted(json!([{"text":"Once upon","stop_reason":"max_tokens"}, {"text":"hidden"}]));
    let a = agent(p.clone(), vec![], |_| {});
    let r = a.run("go", Default::default()).await.unwrap();
    assert_eq!(r.stop, RunStop::MaxTokens);
    assert_eq!(r.response, "Once upon");
    assert_eq!(p.call_count(), 1);
}

#[tokio::test]
async fn a_tool_call_cut_at_max_tokens_is_not_run_and_the_turn_stops() {
    let p = scripted(json!([
        {"text":"Writing both.","stop_reason":"max_tokens","tool_calls":[
            {"id":"c1","name":"t","arguments":"{\"a\":1}"},
            {"id":"c2","name":"t","arguments":"{\"a\": \"unfini"}
        ]},
        {"text":"hidden"}
    ]));
    let t = TestTool::new("t", Ok(json!("ok")));
    let a = agent(p.clone(), vec![t.clone() as Arc<dyn Tool>], |_| {});
    let r = a.run("go", Default::default()).await.unwrap();
    assert_eq!(r.stop, RunStop::MaxTokens);
    assert_eq!(r.response, "Writing both.");
    assert_eq!(p.call_count(), 1, "no new round after the cut");
    assert_eq!(t.call_count(), 0, "nothing from a cut output runs");
    assert!(r.tools_executed.is_empty());
    let results: Vec<(String, String)> = a
        .messages()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| (m.tool_call_id.clone().unwrap(), m.content.clone()))
        .collect();
    assert_eq!(
        results,
        vec![
            ("c1".to_string(), format!("Error: {MAX_TOKENS_NOT_RUN}")),
            ("c2".to_string(), format!("Error: {MAX_TOKENS_CUT_CALL}")),
        ]
    );
    assert!(MAX_TOKENS_CUT_CALL.starts_with("output was cut at max_tokens"));
    assert!(!results[1].1.contains("invalid JSON"));
    let meta = a.messages().last().unwrap().metadata.clone().unwrap();
    assert_eq!(meta["errorCode"], "max_tokens");
}

#[tokio::test]
async fn usage_is_summed_over_the_turns_calls() {
    let p = scripted(json!([
        {"tool_calls":[{"id":"a","name":"t"}],
         "usage":{"input_tokens":10,"output_tokens":2,"cache_read_tokens":4}},
        {"text":"done","usage":{"input_tokens":20,"output_tokens":3,"cache_creation_tokens":5}}
    ]));
    let a = agent(
        p,
        vec![TestTool::new("t", Ok(json!("ok"))) as Arc<dyn Tool>],
        |_| {},
    );
    let r = a.run("go", Default::default()).await.unwrap();
    let u = r.usage.unwrap();
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.cache_read_tokens,
            u.cache_creation_tokens,
            u.total()
        ),
        // The total counts the cached prompt tokens: (10 + 4 + 2) + (20 + 5 + 3).
        (30, 5, 4, 5, 44)
    );
    // Each assistant message keeps its own call's usage.
    let first = a
        .messages()
        .iter()
        .find(|m| m.role == Role::Assistant)
        .unwrap()
        .clone();
    // The whole prompt of that call: 10 uncached + 4 read from the cache.
    assert_eq!(first.meta("inputTokens"), Some(&json!(14)));
}
