//! Session hooks around tools and stops: PreToolUse blocks and matchers, hook timeouts,
//! StopFailure, and extra executors next to command hooks.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use robota_engine::core::hooks::{
    HookDefinition, HookEvent, HookExecutor, HookGroup, HookResult, HooksConfig,
};
use robota_engine::core::message::Message;
use robota_engine::core::permissions::PermissionMode;
use robota_engine::core::tool::Tool;
use robota_engine::session::{Session, SessionRunOptions};
use serde_json::{json, Value};
use session_support::*;
use tokio_util::sync::CancellationToken;

use super::{logging_hooks, names, read_log};
use crate::support::session as session_support;

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
