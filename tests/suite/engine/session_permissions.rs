//! Permission gate through a real Session (port of permission-mode / permission-gate tests):
//! every mode × tool decision, approvals (allow / deny / allow always), deny beats allow in
//! every mode, plan-mode texts, and the exact denial results.

use crate::support::session as session_support;

use std::sync::Arc;

use robota_engine::core::message::Message;
use robota_engine::core::permissions::{PermissionLists, PermissionMode};
use robota_engine::core::tool::Tool;
use robota_engine::session::{
    failure_json, ApprovalDecision, Session, SessionRunOptions, PERMISSION_DENIED,
};
use serde_json::json;
use session_support::*;

const TOOLS: [&str; 9] = [
    "Read",
    "Glob",
    "Grep",
    "WebFetch",
    "WebSearch",
    "Write",
    "Edit",
    "Bash",
    "Custom",
];

/// Expected decision: 'a' auto, 'p' approve, 'd' deny (read-only tools always auto; Write/Edit
/// auto from acceptEdits; Bash and unknown tools auto only in bypassPermissions; plan denies).
fn expected(mode: PermissionMode, tool: &str) -> char {
    let class = match tool {
        "Read" | "Glob" | "Grep" | "WebFetch" | "WebSearch" => 0,
        "Write" | "Edit" => 1,
        "Bash" => 2,
        _ => 3,
    };
    match (mode, class) {
        (_, 0) => 'a',
        (PermissionMode::Plan, _) => 'd',
        (PermissionMode::Default, _) => 'p',
        (PermissionMode::AcceptEdits, 1) => 'a',
        (PermissionMode::AcceptEdits, _) => 'p',
        (PermissionMode::BypassPermissions, _) => 'a',
    }
}

struct Outcome {
    ran: bool,
    asked: usize,
    tool_message: String,
}

fn run_one(
    mode: PermissionMode,
    tool: &str,
    approval: Option<ApprovalDecision>,
    lists: PermissionLists,
    args: serde_json::Value,
) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let t = RecTool::new(tool);
    let handler = approval.map(FixedApproval::new);
    let mut o = options(
        scripted(call_then_answer(tool, args, "done")),
        dir.path(),
        vec![t.clone() as Arc<dyn Tool>],
    );
    o.permission_mode = mode;
    o.permissions = lists;
    o.approval_handler = handler.clone().map(|h| h as _);
    let session = Session::new(o).unwrap();
    let r = rt()
        .block_on(session.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(r.response, "done");
    Outcome {
        ran: t.count() == 1,
        asked: handler.map_or(0, |h| h.count()),
        tool_message: tool_message(&session),
    }
}

#[test]
fn every_mode_and_tool_without_an_approval_handler() {
    for mode in PermissionMode::ALL {
        for tool in TOOLS {
            let out = run_one(mode, tool, None, PermissionLists::default(), json!({}));
            let ctx = format!("{} × {tool}", mode.as_str());
            match expected(mode, tool) {
                'a' => {
                    assert!(out.ran, "{ctx}: should run");
                    assert_eq!(out.tool_message, format!("ran:{tool}"), "{ctx}");
                }
                'd' => {
                    assert!(!out.ran, "{ctx}: must not run");
                    assert_eq!(
                        out.tool_message,
                        failure_json(&format!(
                            "{PERMISSION_DENIED} Tool \"{tool}\" is not allowed in plan mode; an allow rule or another permission mode is needed to use it."
                        )),
                        "{ctx}"
                    );
                }
                _ => {
                    assert!(!out.ran, "{ctx}: must not run without approval");
                    assert_eq!(
                        out.tool_message,
                        failure_json(&format!(
                            "{PERMISSION_DENIED} Tool \"{tool}\" needs approval in {} mode, and no approval handler is configured.",
                            mode.as_str()
                        )),
                        "{ctx}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_mode_and_tool_with_an_allowing_handler_asks_only_for_approve() {
    for mode in PermissionMode::ALL {
        for tool in TOOLS {
            let out = run_one(
                mode,
                tool,
                Some(ApprovalDecision::Allow),
                PermissionLists::default(),
                json!({}),
            );
            let ctx = format!("{} × {tool}", mode.as_str());
            match expected(mode, tool) {
                'a' => assert!(out.ran && out.asked == 0, "{ctx}"),
                'd' => assert!(
                    !out.ran && out.asked == 0,
                    "{ctx}: plan denies without asking"
                ),
                _ => assert!(out.ran && out.asked == 1, "{ctx}"),
            }
        }
    }
}

#[test]
fn handler_deny_gives_the_reference_denial_text() {
    let out = run_one(
        PermissionMode::Default,
        "Bash",
        Some(ApprovalDecision::Deny),
        PermissionLists::default(),
        json!({"command":"ls"}),
    );
    assert!(!out.ran);
    assert_eq!(out.asked, 1);
    assert_eq!(
        out.tool_message,
        r#"{"success":false,"output":"","error":"Permission denied. The user did not approve this action."}"#
    );
}

#[test]
fn handler_receives_tool_name_and_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let t = RecTool::new("Bash");
    let h = FixedApproval::new(ApprovalDecision::Allow);
    let mut o = options(
        scripted(call_then_answer(
            "Bash",
            json!({"command":"make test"}),
            "ok",
        )),
        dir.path(),
        vec![t.clone() as Arc<dyn Tool>],
    );
    o.approval_handler = Some(h.clone());
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(
        h.asked.lock().unwrap().clone(),
        vec![("Bash".to_string(), json!({"command":"make test"}))]
    );
    assert_eq!(t.calls.lock().unwrap()[0], json!({"command":"make test"}));
}

#[test]
fn allow_always_adds_the_tool_to_the_session_list() {
    let dir = tempfile::tempdir().unwrap();
    let bash = RecTool::new("Bash");
    let h = FixedApproval::new(ApprovalDecision::AllowAlways);
    let turns = json!([
        {"tool_calls":[{"id":"c1","name":"Bash","arguments":{"command":"a"}}]},
        {"tool_calls":[{"id":"c2","name":"Bash","arguments":{"command":"b"}}]},
        {"text":"first done"},
        {"tool_calls":[{"id":"c3","name":"Bash","arguments":{"command":"c"}}]},
        {"text":"second done"},
        {"tool_calls":[{"id":"c4","name":"Bash","arguments":{"command":"d"}}]},
        {"text":"third done"}
    ]);
    let mut o = options(
        scripted(turns),
        dir.path(),
        vec![bash.clone() as Arc<dyn Tool>],
    );
    o.approval_handler = Some(h.clone());
    let s = Session::new(o).unwrap();
    let rt = rt();
    assert!(s.session_allowed_tools().is_empty());
    rt.block_on(s.run(Message::user("1"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(bash.count(), 2);
    assert_eq!(h.count(), 1, "asked once, then remembered");
    assert_eq!(s.session_allowed_tools(), vec!["Bash".to_string()]);
    rt.block_on(s.run(Message::user("2"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!((bash.count(), h.count()), (3, 1));
    s.clear_session_allowed_tools();
    assert!(s.session_allowed_tools().is_empty());
    rt.block_on(s.run(Message::user("3"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!((bash.count(), h.count()), (4, 2));
}

#[test]
fn plain_allow_is_not_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let bash = RecTool::new("Bash");
    let h = FixedApproval::new(ApprovalDecision::Allow);
    let turns = json!([
        {"tool_calls":[{"id":"c1","name":"Bash","arguments":{}}]},
        {"tool_calls":[{"id":"c2","name":"Bash","arguments":{}}]},
        {"text":"done"}
    ]);
    let mut o = options(
        scripted(turns),
        dir.path(),
        vec![bash.clone() as Arc<dyn Tool>],
    );
    o.approval_handler = Some(h.clone());
    let s = Session::new(o).unwrap();
    rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!((bash.count(), h.count()), (2, 2));
    assert!(s.session_allowed_tools().is_empty());
}

#[test]
fn deny_beats_allow_in_every_mode_including_bypass() {
    let lists = PermissionLists {
        allow: vec!["Bash".into(), "Bash(rm *)".into()],
        deny: vec!["Bash(rm *)".into()],
    };
    for mode in PermissionMode::ALL {
        let out = run_one(
            mode,
            "Bash",
            Some(ApprovalDecision::Allow),
            lists.clone(),
            json!({"command":"rm -rf /"}),
        );
        assert!(!out.ran, "{}", mode.as_str());
        assert_eq!(out.asked, 0);
        assert_eq!(
            out.tool_message,
            failure_json(&format!(
                "{PERMISSION_DENIED} The deny rule \"Bash(rm *)\" matches this call."
            ))
        );
        // The allow rule still covers other commands, without asking.
        let out = run_one(mode, "Bash", None, lists.clone(), json!({"command":"ls"}));
        assert!(out.ran, "{}", mode.as_str());
    }
}

#[test]
fn plan_mode_runs_write_edit_bash_only_when_an_allow_rule_names_them() {
    let lists = PermissionLists {
        allow: vec!["Bash(pnpm *)".into(), "Edit".into()],
        deny: vec![],
    };
    let out = run_one(
        PermissionMode::Plan,
        "Bash",
        None,
        lists.clone(),
        json!({"command":"pnpm test"}),
    );
    assert!(out.ran);
    let out = run_one(
        PermissionMode::Plan,
        "Bash",
        None,
        lists.clone(),
        json!({"command":"npm test"}),
    );
    assert!(!out.ran);
    assert!(out.tool_message.contains("is not allowed in plan mode"));
    let out = run_one(
        PermissionMode::Plan,
        "Edit",
        None,
        lists.clone(),
        json!({"filePath":"a.txt"}),
    );
    assert!(out.ran);
    let out = run_one(
        PermissionMode::Plan,
        "Write",
        Some(ApprovalDecision::Allow),
        lists,
        json!({"filePath":"a.txt"}),
    );
    assert!(!out.ran && out.asked == 0);
}

#[test]
fn mode_can_change_between_runs() {
    let dir = tempfile::tempdir().unwrap();
    let w = RecTool::new("Write");
    let turns = json!([
        {"tool_calls":[{"id":"c1","name":"Write","arguments":{"filePath":"x"}}]},
        {"text":"one"},
        {"tool_calls":[{"id":"c2","name":"Write","arguments":{"filePath":"x"}}]},
        {"text":"two"}
    ]);
    let mut o = options(
        scripted(turns),
        dir.path(),
        vec![w.clone() as Arc<dyn Tool>],
    );
    o.permission_mode = PermissionMode::Plan;
    let s = Session::new(o).unwrap();
    let rt = rt();
    rt.block_on(s.run(Message::user("1"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(w.count(), 0);
    s.set_permission_mode(PermissionMode::AcceptEdits);
    assert_eq!(s.permission_mode(), PermissionMode::AcceptEdits);
    rt.block_on(s.run(Message::user("2"), SessionRunOptions::default()))
        .unwrap();
    assert_eq!(w.count(), 1);
}

/// The gate consults `Tool::read_only()`: a tool that declares itself read-only runs without a
/// prompt where it would need approval, while plan mode and deny rules still refuse it.
#[test]
fn read_only_tools_run_without_asking_but_plan_mode_and_deny_rules_still_refuse() {
    use robota_engine::tools::FunctionTool;
    let run = |mode: PermissionMode, lists: PermissionLists| {
        let dir = tempfile::tempdir().unwrap();
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let c = calls.clone();
        let tool =
            FunctionTool::new_sync("lookup", "looks up", json!({"type": "object"}), move |_| {
                c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(json!("found"))
            })
            .unwrap()
            .with_read_only(true);
        let handler = FixedApproval::new(ApprovalDecision::Deny);
        let mut o = options(
            scripted(call_then_answer("lookup", json!({}), "done")),
            dir.path(),
            vec![Arc::new(tool) as Arc<dyn Tool>],
        );
        o.permission_mode = mode;
        o.permissions = lists;
        o.approval_handler = Some(handler.clone() as _);
        let session = Session::new(o).unwrap();
        rt().block_on(session.run(Message::user("go"), SessionRunOptions::default()))
            .unwrap();
        (
            calls.load(std::sync::atomic::Ordering::SeqCst),
            handler.count(),
            tool_message(&session),
        )
    };
    for mode in [PermissionMode::Default, PermissionMode::AcceptEdits] {
        assert_eq!(
            run(mode, PermissionLists::default()),
            (1, 0, "found".to_string()),
            "{mode:?}"
        );
    }
    let (ran, asked, msg) = run(PermissionMode::Plan, PermissionLists::default());
    assert_eq!((ran, asked), (0, 0));
    assert!(msg.contains("is not allowed in plan mode"), "{msg}");
    let deny = PermissionLists {
        deny: vec!["lookup".into()],
        ..Default::default()
    };
    let (ran, asked, msg) = run(PermissionMode::Default, deny);
    assert_eq!((ran, asked), (0, 0));
    let error: serde_json::Value = serde_json::from_str(&msg).unwrap();
    assert_eq!(
        error["error"],
        format!("{PERMISSION_DENIED} The deny rule \"lookup\" matches this call.")
    );
}
