//! Hook wiring through a real Session (port of hook-wiring.test.ts + the deliberate
//! differences): SessionStart once, UserPromptSubmit before Stop and able to block the turn,
//! PreToolUse block text, PostToolUse output, StopFailure, timeouts, injection, secrets.

use crate::support::session as session_support;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use robota_engine::core::hooks::{
    HookDefinition, HookEvent, HookExecutor, HookGroup, HookResult, HooksConfig,
};
use robota_engine::core::message::{Message, Role};
use robota_engine::core::permissions::PermissionMode;
use robota_engine::core::tool::Tool;
use robota_engine::session::{Session, SessionRunError, SessionRunOptions};
use serde_json::{json, Value};
use session_support::*;
use tokio_util::sync::CancellationToken;

/// A hooks config where every listed event appends its stdin JSON (one line) to `log`.
fn logging_hooks(log: &Path, events: &[HookEvent]) -> HooksConfig {
    let mut c = HooksConfig::new();
    for e in events {
        c = c.with_group(
            *e,
            HookGroup::new(
                "",
                vec![HookDefinition::command(format!(
                    "cat >> {0}; echo >> {0}",
                    log.display()
                ))],
            ),
        );
    }
    c
}

fn read_log(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn names(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|e| e["hook_event_name"].as_str().unwrap().to_string())
        .collect()
}

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
fn pre_tool_use_block_becomes_the_tool_result() {
    let dir = tempfile::tempdir().unwrap();
    let bash = RecTool::new("Bash");
    let obs = Arc::new(RecObserver::default());
    let mut o = options(
        scripted(call_then_answer(
            "Bash",
            json!({"command":"rm -rf /"}),
            "ok",
        )),
        dir.path(),
        vec![bash.clone() as Arc<dyn Tool>],
    );
    o.permission_mode = PermissionMode::BypassPermissions;
    o.observer = Some(obs.clone());
    o.hooks = HooksConfig::new().with_group(
        HookEvent::PreToolUse,
        HookGroup::new(
            "Bash",
            vec![HookDefinition::command(
                "echo 'rm is not allowed here' >&2; exit 2",
            )],
        ),
    );
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(bash.count(), 0);
    assert_eq!(
        tool_message(&s),
        r#"{"success":false,"output":"","error":"Blocked by hook: rm is not allowed here"}"#
    );
    assert_eq!(
        obs.lines.lock().unwrap().clone(),
        vec!["start call_1 Bash", "end call_1 Bash Denied"]
    );
}

#[test]
fn pre_tool_use_matcher_limits_the_block_to_matching_tools() {
    let dir = tempfile::tempdir().unwrap();
    let read = RecTool::new("Read");
    let mut o = options(
        scripted(call_then_answer("Read", json!({"filePath":"x"}), "ok")),
        dir.path(),
        vec![read.clone() as Arc<dyn Tool>],
    );
    o.hooks = HooksConfig::new().with_group(
        HookEvent::PreToolUse,
        HookGroup::new("Edit|Write|Bash", vec![HookDefinition::command("exit 2")]),
    );
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(read.count(), 1);
    assert_eq!(tool_message(&s), "ran:Read");
}

#[test]
fn a_hook_past_its_timeout_is_killed_and_the_turn_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("hook.pid");
    let read = RecTool::new("Read");
    let obs = Arc::new(RecObserver::default());
    let mut o = options(
        scripted(call_then_answer(
            "Read",
            json!({"filePath":"x"}),
            "finished",
        )),
        dir.path(),
        vec![read.clone() as Arc<dyn Tool>],
    );
    o.observer = Some(obs.clone());
    let cmd = format!("sleep 300 & echo $! > {}; wait", pid_file.display());
    o.hooks = HooksConfig::new().with_group(
        HookEvent::PreToolUse,
        HookGroup::new(
            "",
            vec![HookDefinition::command(cmd.clone()).with("timeout", json!(2))],
        ),
    );
    let s = Session::new(o).unwrap();
    let r = rt()
        .block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(r.response, "finished");
    assert_eq!(read.count(), 1, "the tool still ran");
    assert_eq!(
        obs.warnings.lock().unwrap().clone(),
        vec![format!(
            "PreToolUse hook \"{cmd}\" exited with code 1: Hook timed out"
        )]
    );
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    let mut gone = false;
    for _ in 0..300 {
        if !crate::support::process::alive(&pid) {
            gone = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(gone, "the hook's child process was not killed");
}

#[test]
fn stop_failure_fires_on_provider_error_and_not_stop() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let mut o = options(
        scripted(json!([{"error":{"kind":"provider","message":"upstream exploded"}}])),
        dir.path(),
        vec![],
    );
    o.hooks = logging_hooks(&log, &[HookEvent::Stop, HookEvent::StopFailure]);
    let s = Session::new(o).unwrap();
    let r = rt()
        .block_on(s.run(Message::user("hi"), SessionRunOptions::default()))
        .unwrap();
    assert!(r.response.starts_with("Request failed:"), "{}", r.response);
    let entries = read_log(&log);
    assert_eq!(names(&entries), vec!["StopFailure"]);
    assert!(entries[0]["reason"]
        .as_str()
        .unwrap()
        .contains("upstream exploded"));
    assert_eq!(entries[0]["stop_hook_active"], false);
}

#[test]
fn stop_failure_reports_an_aborted_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let mut o = options(scripted(json!([{"text":"x"}])), dir.path(), vec![]);
    o.hooks = logging_hooks(&log, &[HookEvent::Stop, HookEvent::StopFailure]);
    let s = Session::new(o).unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let r = rt()
        .block_on(s.run(
            Message::user("hi"),
            SessionRunOptions {
                cancel: Some(cancel),
                ..Default::default()
            },
        ))
        .unwrap();
    assert!(r.interrupted);
    let entries = read_log(&log);
    assert_eq!(names(&entries), vec!["StopFailure"]);
    assert_eq!(entries[0]["reason"], "Aborted");
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

struct HostHook {
    calls: Mutex<Vec<Value>>,
}

#[async_trait]
impl HookExecutor for HostHook {
    fn kind(&self) -> &str {
        "host"
    }
    async fn execute(
        &self,
        def: &HookDefinition,
        input: &Value,
        _c: CancellationToken,
    ) -> HookResult {
        self.calls.lock().unwrap().push(input.clone());
        if def.str_field("verdict") == Some("block") {
            HookResult::new(2, "", "host policy")
        } else {
            HookResult::new(0, "host ok", "")
        }
    }
}

#[test]
fn extra_executors_work_through_the_session_next_to_command_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let host = Arc::new(HostHook {
        calls: Mutex::new(Vec::new()),
    });
    let write = RecTool::new("Write");
    let mut o = options(
        scripted(call_then_answer("Write", json!({"filePath":"f"}), "ok")),
        dir.path(),
        vec![write.clone() as Arc<dyn Tool>],
    );
    o.permission_mode = PermissionMode::AcceptEdits;
    o.extra_hook_executors = vec![host.clone()];
    o.hooks = HooksConfig::new()
        .with_group(
            HookEvent::UserPromptSubmit,
            HookGroup::new(
                "",
                vec![
                    HookDefinition::command("echo from-command"),
                    HookDefinition::new("host"),
                ],
            ),
        )
        .with_group(
            HookEvent::PreToolUse,
            HookGroup::new(
                "Write",
                vec![HookDefinition::new("host").with("verdict", json!("block"))],
            ),
        );
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(write.count(), 0);
    assert_eq!(
        tool_message(&s),
        r#"{"success":false,"output":"","error":"Blocked by hook: host policy"}"#
    );
    let calls = host.calls.lock().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["hook_event_name"], "UserPromptSubmit");
    assert_eq!(calls[1]["tool_name"], "Write");
    let first_user = s.messages()[1].content.clone();
    assert!(first_user.starts_with("<system-reminder>\nfrom-command\nhost ok\n</system-reminder>"));

    // Registering an executor for a built-in kind is a configuration error.
    struct Fake;
    #[async_trait]
    impl HookExecutor for Fake {
        fn kind(&self) -> &str {
            "command"
        }
        async fn execute(
            &self,
            _d: &HookDefinition,
            _i: &Value,
            _c: CancellationToken,
        ) -> HookResult {
            HookResult::default()
        }
    }
    let mut o = options(scripted(json!([])), dir.path(), vec![]);
    o.extra_hook_executors = vec![Arc::new(Fake)];
    let err = Session::new(o).err().unwrap().to_string();
    assert!(
        err.contains("hook executor kind \"command\" is a built-in executor"),
        "{err}"
    );
}
