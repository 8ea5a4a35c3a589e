//! Session hooks over a session's life: lifecycle order, SessionStart once, UserPromptSubmit
//! blocking the turn and seeing the raw input, and env secrets kept out of hook input.

use std::collections::BTreeMap;
use std::sync::Arc;

use robota_engine::core::hooks::{HookDefinition, HookEvent, HookGroup, HooksConfig};
use robota_engine::core::message::{Message, Role};
use robota_engine::core::tool::Tool;
use robota_engine::session::{Session, SessionRunError, SessionRunOptions};
use serde_json::json;
use session_support::*;

use super::{logging_hooks, names, read_log};
use crate::support::session as session_support;

#[test]
fn lifecycle_order_and_common_keys() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let tool = RecTool::new("Read");
    let mut o = options(
        scripted(call_then_answer(
            "Read",
            json!({"filePath":"a.txt"}),
            "all done",
        )),
        dir.path(),
        vec![tool.clone() as Arc<dyn Tool>],
    );
    o.hooks = logging_hooks(
        &log,
        &[
            HookEvent::SessionStart,
            HookEvent::UserPromptSubmit,
            HookEvent::PreToolUse,
            HookEvent::PostToolUse,
            HookEvent::Stop,
            HookEvent::StopFailure,
            HookEvent::SessionEnd,
        ],
    );
    o.session_id = Some("sess-1".into());
    let s = Session::new(o).unwrap();
    let rt = rt();
    rt.block_on(s.run(Message::user("hello"), SessionRunOptions::default()))
        .unwrap();
    rt.block_on(s.end("other"));
    rt.block_on(s.end("other"));
    let entries = read_log(&log);
    assert_eq!(
        names(&entries),
        vec![
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "SessionEnd"
        ]
    );
    let cwd = s.cwd().to_string_lossy().to_string();
    for e in &entries {
        assert_eq!(e["session_id"], "sess-1");
        assert_eq!(e["cwd"], cwd.as_str());
        assert_eq!(e["permission_mode"], "default");
    }
    let env = json!({"CLAUDE_PROJECT_DIR": cwd, "CLAUDE_SESSION_ID": "sess-1"});
    assert_eq!(entries[0]["env"], env);
    assert_eq!(entries[1]["user_message"], "hello");
    assert_eq!(entries[1]["prompt"], "hello");
    assert_eq!(entries[1]["env"], env);
    assert_eq!(entries[2]["tool_name"], "Read");
    assert_eq!(entries[2]["tool_input"], json!({"filePath":"a.txt"}));
    assert!(entries[2].get("tool_output").is_none());
    assert_eq!(entries[3]["tool_output"], "ran:Read");
    assert_eq!(entries[4]["response"], "all done");
    assert_eq!(entries[4]["last_assistant_message"], "all done");
    assert_eq!(entries[4]["stop_hook_active"], false);
    assert_eq!(entries[5]["reason"], "other");
}

#[test]
fn session_start_fires_once_and_its_stdout_reaches_only_the_first_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([{"text":"a"},{"text":"b"}]));
    let mut o = options(provider.clone(), dir.path(), vec![]);
    o.hooks = HooksConfig::new()
        .with_group(
            HookEvent::SessionStart,
            HookGroup::new("", vec![HookDefinition::command("echo project rules")]),
        )
        .with_group(
            HookEvent::UserPromptSubmit,
            HookGroup::new("", vec![HookDefinition::command("echo today is tuesday")]),
        );
    let s = Session::new(o).unwrap();
    let rt = rt();
    rt.block_on(s.run(Message::user("first"), SessionRunOptions::default()))
        .unwrap();
    rt.block_on(s.run(Message::user("second"), SessionRunOptions::default()))
        .unwrap();
    let users: Vec<String> = s
        .messages()
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(
        users,
        vec![
            "<system-reminder>\nproject rules\ntoday is tuesday\n</system-reminder>\nfirst"
                .to_string(),
            "<system-reminder>\ntoday is tuesday\n</system-reminder>\nsecond".to_string(),
        ]
    );
    // The provider saw exactly that.
    let sent = &provider.requests()[0].messages;
    assert_eq!(sent.last().unwrap().content, users[0]);
}

#[test]
fn user_prompt_submit_exit_2_blocks_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let provider = scripted(json!([{"text":"never"}]));
    let mut o = options(provider.clone(), dir.path(), vec![]);
    o.hooks = logging_hooks(&log, &[HookEvent::Stop, HookEvent::StopFailure]).with_group(
        HookEvent::UserPromptSubmit,
        HookGroup::new(
            "",
            vec![HookDefinition::command(
                "grep -q password && { echo 'prompt contains a password' >&2; exit 2; }; exit 0",
            )],
        ),
    );
    let s = Session::new(o).unwrap();
    let before = s.messages();
    let rt = rt();
    let err = rt
        .block_on(s.run(
            Message::user("my password is hunter2"),
            SessionRunOptions::default(),
        ))
        .unwrap_err();
    match &err {
        SessionRunError::PromptBlocked { reason } => {
            assert_eq!(reason, "prompt contains a password")
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "Prompt blocked by hook: prompt contains a password"
    );
    assert_eq!(provider.call_count(), 0, "the prompt is not sent");
    assert_eq!(s.messages().len(), before.len(), "history unchanged");
    assert!(
        read_log(&log).is_empty(),
        "no Stop/StopFailure for a blocked prompt"
    );
    // The next, harmless prompt goes through.
    let r = rt
        .block_on(s.run(Message::user("hello"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(r.response, "never");
}

#[test]
fn raw_input_is_what_user_prompt_submit_sees() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let mut o = options(scripted(json!([])), dir.path(), vec![]);
    o.hooks = logging_hooks(&log, &[HookEvent::UserPromptSubmit]);
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(
        Message::user("Expanded skill prompt"),
        SessionRunOptions {
            raw_input: Some("/skill review".into()),
            ..Default::default()
        },
    ))
    .unwrap();
    let e = &read_log(&log)[0];
    assert_eq!(e["prompt"], "/skill review");
    assert_eq!(e["user_message"], "/skill review");
}

#[test]
fn env_secrets_never_reach_hook_input_or_the_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let provider = scripted(json!([]));
    let mut o = options(provider.clone(), dir.path(), vec![]);
    let mut env = BTreeMap::new();
    env.insert(
        "API_TOKEN".to_string(),
        "$ENV:ROBOTA_SESSION_TEST_SECRET".to_string(),
    );
    o.hook_env = env;
    // The secret is passed explicitly: the process environment is never touched.
    o.env_vars = robota_engine::core::env_ref::EnvVars::with_vars(BTreeMap::from([(
        "ROBOTA_SESSION_TEST_SECRET".to_string(),
        "very-secret-token-42".to_string(),
    )]));
    o.hooks = HooksConfig::new().with_group(
        HookEvent::UserPromptSubmit,
        HookGroup::new(
            "",
            vec![HookDefinition::command(format!(
                "cat >> {}; echo; echo \"token is $API_TOKEN\"",
                log.display()
            ))],
        ),
    );
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("hi"), SessionRunOptions::default()))
        .unwrap();
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(!logged.contains("very-secret-token-42"));
    let user = s
        .messages()
        .iter()
        .find(|m| m.role == Role::User)
        .unwrap()
        .content
        .clone();
    assert_eq!(
        user,
        "<system-reminder>\ntoken is [REDACTED]\n</system-reminder>\nhi"
    );
    let sent =
        serde_json::to_string(&provider.requests()[0].messages.last().unwrap().content).unwrap();
    assert!(!sent.contains("very-secret-token-42"));
}
