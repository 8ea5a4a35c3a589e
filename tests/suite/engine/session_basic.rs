//! Session basics: construction outside a runtime, echo run, history, ids, context state.

use crate::support::session as session_support;

use robota_engine::core::message::{Message, Role};
use robota_engine::session::{Session, SessionOptions, SessionRunOptions};
use serde_json::json;
use session_support::*;

#[test]
fn session_is_built_outside_a_runtime_and_runs_the_offline_verify_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([]));
    let session = Session::new(options(provider.clone(), dir.path(), vec![])).unwrap();
    assert!(session.session_id().starts_with("session_"));
    let result = rt()
        .block_on(session.run(
            Message::user("verify-session-run"),
            SessionRunOptions::default(),
        ))
        .unwrap();
    assert_eq!(result.response, "offline:verify-session-run");
    let roles: Vec<Role> = session.messages().iter().map(|m| m.role).collect();
    assert_eq!(roles, vec![Role::System, Role::User, Role::Assistant]);
    assert_eq!(session.messages()[0].content, "You are a test assistant.");
    assert_eq!(provider.call_count(), 1);
}

#[test]
fn given_session_id_is_kept_and_bad_options_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(scripted(json!([])), dir.path(), vec![]);
    o.session_id = Some("my-session".into());
    assert_eq!(Session::new(o).unwrap().session_id(), "my-session");

    let mut o = options(scripted(json!([])), dir.path(), vec![]);
    o.max_turns = Some(-1);
    let err = Session::new(o).err().unwrap().to_string();
    assert!(
        err.contains("maxTurns must be a non-negative integer"),
        "{err}"
    );

    let mut o = SessionOptions::new(scripted(json!([])), "m");
    o.cwd = dir.path().join("missing");
    let err = Session::new(o).err().unwrap().to_string();
    assert!(err.contains("is not accessible"), "{err}");
}

#[test]
fn call_options_reach_the_agent_config() {
    let dir = tempfile::tempdir().unwrap();
    let o = options(scripted(json!([])), dir.path(), vec![]);
    let c = Session::new(o).unwrap().agent().config();
    assert!(
        c.conversation_id.starts_with("conv_"),
        "{}",
        c.conversation_id
    );
    assert_eq!(
        (c.temperature, c.max_tokens, c.thinking_budget),
        (None, None, None)
    );
    assert!(!c.native_web_tools.web_search);

    let mut o = SessionOptions::in_dir(scripted(json!([])), "m", dir.path().to_path_buf());
    o.conversation_id = Some("conv_given".into());
    o.temperature = Some(0.5);
    o.max_tokens = Some(900);
    o.thinking_budget = Some(2048);
    o.native_web_search = true;
    let s = Session::new(o).unwrap();
    let c = s.agent().config();
    assert_eq!(c.conversation_id, "conv_given");
    assert_eq!(c.temperature, Some(0.5));
    assert_eq!(c.max_tokens, Some(900));
    assert_eq!(c.thinking_budget, Some(2048));
    assert!(c.native_web_tools.web_search);
    assert_eq!(c.model, "m");
}

fn assert_send_sync<T: Send + Sync>(_: &T) {}
fn assert_send<T: Send>(_: &T) {}

#[test]
fn session_and_its_run_future_can_move_across_threads() {
    let dir = tempfile::tempdir().unwrap();
    let session = std::sync::Arc::new(
        Session::new(options(scripted(json!([])), dir.path(), vec![])).unwrap(),
    );
    assert_send_sync(&*session);
    let fut = session.run(Message::user("x"), SessionRunOptions::default());
    assert_send(&fut);
    drop(fut);
    // Spawned on a runtime from another thread.
    let s2 = session.clone();
    let r = rt()
        .block_on(async move {
            tokio::spawn(async move {
                s2.run(Message::user("spawned"), SessionRunOptions::default())
                    .await
            })
            .await
            .unwrap()
        })
        .unwrap();
    assert_eq!(r.response, "offline:spawned");
}

#[test]
fn a_second_concurrent_run_is_rejected_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let session = std::sync::Arc::new(
        Session::new(options(
            scripted(json!([{"deltas":["slow"],"hang":true}])),
            dir.path(),
            vec![],
        ))
        .unwrap(),
    );
    let cancel = tokio_util::sync::CancellationToken::new();
    let rt = rt();
    let s1 = session.clone();
    let c1 = cancel.clone();
    let first = rt.spawn(async move {
        s1.run(
            Message::user("one"),
            SessionRunOptions {
                cancel: Some(c1),
                ..Default::default()
            },
        )
        .await
    });
    rt.block_on(async {
        while !session.is_running() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    });
    let err = rt
        .block_on(session.run(Message::user("two"), SessionRunOptions::default()))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Validation Error: Another run is already in progress on this session"
    );
    cancel.cancel();
    let r = rt.block_on(first).unwrap().unwrap();
    assert!(r.interrupted);
}
