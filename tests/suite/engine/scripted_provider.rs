//! The scripted provider: config validation, streaming, errors, fallbacks; the offline scenario.

use crate::support::engine as common;

use std::sync::Arc;

use common::*;
use robota_engine::core::agent::RunOptions;
use robota_engine::core::events::TextDeltaFn;
use robota_engine::core::execution::RunStop;
use robota_engine::providers::scripted::ScriptedProvider;
use serde_json::json;

#[test]
fn bad_scripts_get_clear_errors() {
    let err = ScriptedProvider::from_json(&json!({"turns":[{"txt":"typo"}]}))
        .err()
        .unwrap();
    assert_eq!(err.code(), "CONFIGURATION_ERROR");
    assert!(err.to_string().contains("unknown field `txt`"), "{err}");
    let err = ScriptedProvider::from_json(&json!({"turns":"nope"}))
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .starts_with("Configuration Error: scripted provider: invalid script"),
        "{err}"
    );
    let err = ScriptedProvider::from_json(&json!({"fallback":"loop"}))
        .err()
        .unwrap();
    assert!(err.to_string().contains("\"fallback\" must be"), "{err}");
}

#[tokio::test]
async fn verify_offline_scenario() {
    // agent-core verify-offline: echo of the last message.
    let p = scripted_with(json!([]), "echo");
    let a = agent(p, vec![], |_| {});
    assert_eq!(
        a.run("verify-run", RunOptions::default())
            .await
            .unwrap()
            .response,
        "offline:verify-run"
    );
    // runStream: chunks concatenate to the answer.
    let p = scripted(json!([{"deltas":["stream:","verify-stream"]}]));
    let a = agent(p, vec![], |_| {});
    let chunks = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let c2 = chunks.clone();
    let on_text: TextDeltaFn = Arc::new(move |d: &str| c2.lock().unwrap().push(d.to_string()));
    let r = a
        .run(
            "verify-stream",
            RunOptions {
                on_text_delta: Some(on_text),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        chunks.lock().unwrap().clone(),
        vec!["stream:".to_string(), "verify-stream".to_string()]
    );
    assert_eq!(r.response, "stream:verify-stream");
}

#[tokio::test]
async fn thinking_deltas_reach_the_thinking_callback_only() {
    let p = scripted(json!([{"thinking":["hmm ","ok"],"text":"answer"}]));
    let a = agent(p, vec![], |_| {});
    let thinking = Arc::new(std::sync::Mutex::new(String::new()));
    let t2 = thinking.clone();
    let on_thinking: TextDeltaFn = Arc::new(move |d: &str| t2.lock().unwrap().push_str(d));
    let r = a
        .run(
            "x",
            RunOptions {
                on_thinking_delta: Some(on_thinking),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(thinking.lock().unwrap().as_str(), "hmm ok");
    assert_eq!(r.response, "answer");
}

#[tokio::test]
async fn error_kinds_map_to_the_taxonomy_and_fallbacks_work() {
    let p = scripted_with(
        json!([{"error":{"kind":"auth","message":"bad key"}}]),
        "error",
    );
    let a = agent(p, vec![], |_| {});
    let r = a.run("x", RunOptions::default()).await.unwrap();
    assert_eq!(r.stop, RunStop::Error);
    assert_eq!(r.response, "Request failed: Authentication Error: bad key");
    let r = a.run("y", RunOptions::default()).await.unwrap();
    assert_eq!(
        r.response,
        "Request failed: Provider Error (scripted): scripted provider has no turn 2"
    );

    let p = scripted_with(json!([{"text":"same"}]), "repeat_last");
    let a = agent(p.clone(), vec![], |_| {});
    a.run("1", RunOptions::default()).await.unwrap();
    assert_eq!(
        a.run("2", RunOptions::default()).await.unwrap().response,
        "same"
    );
    assert_eq!(p.call_count(), 2);
}

#[tokio::test]
async fn a_delta_lends_its_arrival_time_to_the_event_it_emits() {
    use robota_engine::core::event_time::{event_millis, now_millis};
    // The first read of the event time in a delta's callback is the delta's arrival (read once,
    // for the idle timeout), not a new clock read: a callback that waits 3 ms before reading
    // still gets the time it was called at. A second read is the clock's.
    let p = scripted(json!([{"thinking":["t1","t2"],"deltas":["a","b","c"]}]));
    let a = agent(p, vec![], |_| {});
    type Seen = Arc<std::sync::Mutex<Vec<(String, i64, i64)>>>;
    let seen: Seen = Default::default();
    let record = |seen: &Seen| -> TextDeltaFn {
        let seen = seen.clone();
        Arc::new(move |d: &str| {
            let called = now_millis();
            std::thread::sleep(std::time::Duration::from_millis(3));
            let lent = event_millis();
            let again = event_millis();
            assert!(
                lent <= called,
                "{d:?}: {lent} read after the callback began at {called}"
            );
            assert!(again >= called + 3, "{d:?}: a second read is the clock's");
            seen.lock().unwrap().push((d.to_string(), lent, called));
        })
    };
    let before = now_millis();
    a.run(
        "x",
        RunOptions {
            on_text_delta: Some(record(&seen)),
            on_thinking_delta: Some(record(&seen)),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let after = now_millis();
    let seen = seen.lock().unwrap().clone();
    let names: Vec<&str> = seen.iter().map(|(d, ..)| d.as_str()).collect();
    assert_eq!(names, ["t1", "t2", "a", "b", "c"]);
    for pair in seen.windows(2) {
        // Each delta's own time: after the previous callback's 3 ms wait.
        assert!(pair[1].1 - pair[0].1 >= 3, "{pair:?}");
    }
    assert!(seen[0].1 >= before && seen[4].1 <= after);
    // Outside a callback nothing is lent.
    assert!(event_millis() >= after);
}

/// Counts, during each call, how many holders the request's first message has.
struct CountingProvider {
    inner: ScriptedProvider,
    holders: std::sync::Mutex<Vec<usize>>,
}

#[async_trait::async_trait]
impl robota_engine::core::provider::Provider for CountingProvider {
    fn name(&self) -> &str {
        "counting"
    }

    async fn chat(
        &self,
        request: robota_engine::core::provider::ChatRequest<'_>,
        sink: &mut dyn robota_engine::core::provider::StreamSink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<robota_engine::core::provider::ChatResponse, robota_engine::core::errors::RobotaError>
    {
        self.holders
            .lock()
            .unwrap()
            .push(Arc::strong_count(&request.messages[0]));
        self.inner.chat(request, sink, cancel).await
    }
}

#[tokio::test]
async fn a_request_shares_the_history_instead_of_copying_it_each_round() {
    // A request's messages are the store's own list (a snapshot, O(1)), not a copy per round:
    // during the call the first message has exactly the holders it has in the store at rest
    // (the message list and the history entries). A per-round copy adds one.
    let inner = ScriptedProvider::from_json(&json!({"turns":[], "fallback":"echo"}))
        .unwrap()
        .without_recording();
    let p = Arc::new(CountingProvider {
        inner,
        holders: Default::default(),
    });
    let mut cfg = robota_engine::core::agent::AgentConfig::new(p.clone(), "m");
    cfg.system_message = Some("sys".into());
    let a = robota_engine::core::agent::Agent::new(cfg).unwrap();
    for i in 0..3 {
        let r = a
            .run(format!("q{i}").as_str(), RunOptions::default())
            .await
            .unwrap();
        assert_eq!(r.response, format!("offline:q{i}"));
    }
    let at_rest = Arc::strong_count(&a.messages()[0]) - 1; // less this call's copy
    assert_eq!(a.messages().len(), 7);
    assert_eq!(*p.holders.lock().unwrap(), vec![at_rest; 3]);
    // The store goes on growing after each call: the snapshot was let go before the history
    // changed, so nothing was copied (the answers are there, in order).
    let contents: Vec<String> = a.messages().iter().map(|m| m.content.clone()).collect();
    assert_eq!(
        contents[1..],
        ["q0", "offline:q0", "q1", "offline:q1", "q2", "offline:q2"]
    );
    // A provider without recording keeps nothing; one with it keeps every request.
    assert!(p.inner.requests().is_empty());
    assert_eq!(p.inner.call_count(), 3);
    let recording = scripted_with(json!([]), "echo");
    let a = agent(recording.clone(), vec![], |_| {});
    a.run("x", RunOptions::default()).await.unwrap();
    assert_eq!(recording.requests().len(), 1);
}
