//! The Session over the real built-in tools: the gate protects the real file system (plan mode,
//! deny rules, traversal and symlink escapes), approvals reach Bash, and the results are the
//! built-ins' own texts.

use crate::support::session as session_support;

use std::sync::Arc;

use async_trait::async_trait;
use robota_engine::core::message::{Message, Role};
use robota_engine::core::permissions::{PermissionLists, PermissionMode};
use robota_engine::session::{ApprovalDecision, ApprovalHandler, Session, SessionRunOptions};
use robota_engine::tools::builtin_tools;
use serde_json::{json, Value};
use session_support::*;
use tokio_util::sync::CancellationToken;

fn tool_messages(s: &Session) -> Vec<String> {
    s.messages()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.clone())
        .collect()
}

fn calls(list: &[(&str, Value)]) -> Value {
    let tc: Vec<Value> = list
        .iter()
        .enumerate()
        .map(|(i, (n, a))| json!({"id": format!("c{i}"), "name": n, "arguments": a}))
        .collect();
    json!([{ "tool_calls": tc }, {"text": "done"}])
}

#[cfg(unix)]
#[test]
fn deny_rules_and_symlinks_protect_the_real_file_system_in_bypass_mode() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("private")).unwrap();
    std::fs::write(root.join("private/key"), "TOP-SECRET").unwrap();
    std::os::unix::fs::symlink(root.join("private"), root.join("src/link")).unwrap();
    let script = calls(&[
        (
            "Write",
            json!({"filePath":"src/link/stolen.txt","content":"x"}),
        ),
        ("Read", json!({"filePath":"src/link/key"})),
        ("Read", json!({"filePath":"src/../private/key"})),
        ("Write", json!({"filePath":"src/ok.txt","content":"fine"})),
    ]);
    let mut o = options(scripted(script), root, builtin_tools(root));
    o.permission_mode = PermissionMode::BypassPermissions;
    o.permissions = PermissionLists {
        allow: vec!["Read".into(), "Write".into()],
        deny: vec!["Read(private/**)".into(), "Write(private/**)".into()],
    };
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    let msgs = tool_messages(&s);
    assert_eq!(msgs.len(), 4);
    for m in &msgs[..3] {
        assert!(
            m.contains("Permission denied. The user did not approve this action. The deny rule"),
            "{m}"
        );
        assert!(!m.contains("TOP-SECRET"));
    }
    assert!(!root.join("private/stolen.txt").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("src/ok.txt")).unwrap(),
        "fine"
    );
    assert!(msgs[3].contains("\"success\":true"), "{}", msgs[3]);
}

#[test]
fn plan_mode_reads_but_never_writes_or_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("notes.txt"), "hello notes\n").unwrap();
    let script = calls(&[
        ("Read", json!({"filePath":"notes.txt"})),
        (
            "Write",
            json!({"filePath":"notes.txt","content":"overwritten"}),
        ),
        (
            "Edit",
            json!({"filePath":"notes.txt","oldString":"hello","newString":"bye"}),
        ),
        ("Bash", json!({"command":"touch ran-bash"})),
    ]);
    let h = FixedApproval::new(ApprovalDecision::Allow);
    let mut o = options(scripted(script), root, builtin_tools(root));
    o.permission_mode = PermissionMode::Plan;
    o.approval_handler = Some(h.clone());
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    let msgs = tool_messages(&s);
    assert!(msgs[0].contains("hello notes"), "{}", msgs[0]);
    for (m, tool) in msgs[1..].iter().zip(["Write", "Edit", "Bash"]) {
        assert!(
            m.contains(&format!("Tool \\\"{tool}\\\" is not allowed in plan mode")),
            "{m}"
        );
    }
    assert_eq!(h.count(), 0);
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "hello notes\n"
    );
    assert!(!root.join("ran-bash").exists());
}

#[test]
fn default_mode_asks_before_bash_and_runs_it_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let script = calls(&[("Bash", json!({"command":"echo made > made.txt; echo ok"}))]);
    let h = FixedApproval::new(ApprovalDecision::Allow);
    let mut o = options(scripted(script), root, builtin_tools(root));
    o.approval_handler = Some(h.clone());
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(h.count(), 1);
    assert_eq!(
        std::fs::read_to_string(root.join("made.txt")).unwrap(),
        "made\n"
    );
    assert!(tool_messages(&s)[0].contains("ok"));
}

#[test]
fn parallel_calls_ask_once_when_the_answer_is_allow_always() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let script = calls(&[
        ("Bash", json!({"command":"echo one"})),
        ("Bash", json!({"command":"echo two"})),
        ("Bash", json!({"command":"echo three"})),
    ]);
    let h = FixedApproval::new(ApprovalDecision::AllowAlways);
    let mut o = options(scripted(script), root, builtin_tools(root));
    o.approval_handler = Some(h.clone());
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(
        h.count(),
        1,
        "requests are serialized and the first answer covers the rest"
    );
    let msgs = tool_messages(&s);
    assert!(msgs[0].contains("one") && msgs[1].contains("two") && msgs[2].contains("three"));
}

/// Never answers: waits until the turn is cancelled.
struct Hanging {
    asked: Arc<tokio::sync::Notify>,
}

#[async_trait]
impl ApprovalHandler for Hanging {
    async fn request(&self, _t: &str, _a: &Value, cancel: CancellationToken) -> ApprovalDecision {
        self.asked.notify_one();
        cancel.cancelled().await;
        ApprovalDecision::Allow
    }
}

#[test]
fn cancelling_while_waiting_for_approval_refuses_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let asked = Arc::new(tokio::sync::Notify::new());
    let script = calls(&[("Bash", json!({"command":"touch should-not-exist"}))]);
    let mut o = options(scripted(script), root, builtin_tools(root));
    o.approval_handler = Some(Arc::new(Hanging {
        asked: asked.clone(),
    }));
    let s = Session::new(o).unwrap();
    let cancel = CancellationToken::new();
    let r = rt().block_on(async {
        let c2 = cancel.clone();
        let waiter = tokio::spawn(async move {
            asked.notified().await;
            c2.cancel();
        });
        let r = s
            .run(
                Message::user("go"),
                SessionRunOptions {
                    cancel: Some(cancel.clone()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        waiter.await.unwrap();
        r
    });
    assert!(r.interrupted);
    assert!(!root.join("should-not-exist").exists());
    let msgs = tool_messages(&s);
    assert_eq!(msgs.len(), 1);
    assert_eq!(
        msgs[0],
        r#"{"success":false,"output":"","error":"Permission denied. The user did not approve this action. The turn was cancelled."}"#
    );
}
