//! Session basics: construction outside a runtime, echo run, history, ids, context state.

mod session_support;

use robota::core::message::{Message, Role};
use robota::session::{Session, SessionOptions, SessionRunOptions};
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
