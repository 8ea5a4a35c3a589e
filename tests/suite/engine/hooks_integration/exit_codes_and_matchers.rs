//! The hook runner's exit codes, matchers and group selection, unknown types and group env.

use robota_engine::core::hooks::{
    matcher_matches, run_hooks, HookDefinition, HookEvent, HookExecutorRegistry, HookGroup,
    HooksConfig,
};
use serde_json::{json, Value};

use super::{cfg, cmd, rt, tool_input};

#[test]
fn no_config_or_no_groups_means_not_blocked_and_empty_stdout() {
    let r = rt().block_on(run_hooks(
        &HooksConfig::new(),
        HookEvent::PreToolUse,
        &tool_input("Bash"),
        &HookExecutorRegistry::new(),
    ));
    assert!(!r.blocked);
    assert_eq!(r.reason, None);
    assert_eq!(r.stdout, "");
    assert!(r.warnings.is_empty());
}

#[test]
fn exit_2_blocks_with_stderr_and_stops_later_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("later-ran");
    let c = cfg(
        HookEvent::PreToolUse,
        vec![HookGroup::new(
            "",
            vec![
                cmd("echo first"),
                cmd("echo 'dangerous command' >&2; exit 2"),
                cmd(&format!("touch {}", marker.display())),
            ],
        )],
    );
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::PreToolUse,
        &tool_input("Bash"),
        &HookExecutorRegistry::new(),
    ));
    assert!(r.blocked);
    assert_eq!(r.reason.as_deref(), Some("dangerous command"));
    assert_eq!(r.stdout, "first");
    assert!(!marker.exists(), "hooks after a block must not run");
}

#[test]
fn exit_2_without_stderr_uses_the_default_reason() {
    let c = cfg(
        HookEvent::Stop,
        vec![HookGroup::new("", vec![cmd("exit 2")])],
    );
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::Stop,
        &json!({"session_id":"s"}),
        &HookExecutorRegistry::new(),
    ));
    assert!(r.blocked);
    assert_eq!(r.reason.as_deref(), Some("Blocked by hook"));
}

#[test]
fn exit_0_stdout_is_trimmed_and_joined_blank_stdout_skipped() {
    let c = cfg(
        HookEvent::UserPromptSubmit,
        vec![
            HookGroup::new("", vec![cmd("printf '  one \\n\\n'"), cmd("printf '   '")]),
            HookGroup::new("", vec![cmd("echo two")]),
        ],
    );
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::UserPromptSubmit,
        &json!({"session_id":"s"}),
        &HookExecutorRegistry::new(),
    ));
    assert!(!r.blocked);
    assert_eq!(r.stdout, "one\ntwo");
}

#[test]
fn other_exit_codes_proceed_with_a_warning() {
    let c = cfg(
        HookEvent::PreToolUse,
        vec![HookGroup::new(
            "",
            vec![
                cmd("echo oops >&2; exit 1"),
                cmd("exit 3"),
                cmd("echo after"),
            ],
        )],
    );
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::PreToolUse,
        &tool_input("Read"),
        &HookExecutorRegistry::new(),
    ));
    assert!(!r.blocked);
    assert_eq!(r.stdout, "after");
    assert_eq!(
        r.warnings,
        vec![
            "PreToolUse hook \"echo oops >&2; exit 1\" exited with code 1: oops".to_string(),
            "PreToolUse hook \"exit 3\" exited with code 3".to_string(),
        ]
    );
}

#[test]
fn matcher_is_an_unanchored_regex_with_equality_fallback() {
    assert!(matcher_matches("", None));
    assert!(matcher_matches("", Some("Bash")));
    assert!(!matcher_matches("Bash", None));
    assert!(matcher_matches("Bash", Some("Bash")));
    assert!(matcher_matches("Bash", Some("BashOutput")));
    assert!(matcher_matches("Edit|Write", Some("Write")));
    assert!(!matcher_matches("Edit|Write", Some("Read")));
    assert!(!matcher_matches("^Read$", Some("ReadMany")));
    // Invalid regex: string equality.
    assert!(matcher_matches("Bad(", Some("Bad(")));
    assert!(!matcher_matches("Bad(", Some("Bad")));
}

#[test]
fn groups_are_selected_by_tool_name() {
    let c = cfg(
        HookEvent::PreToolUse,
        vec![
            HookGroup::new("Edit|Write", vec![cmd("echo edit-or-write")]),
            HookGroup::new("Bash", vec![cmd("echo bash")]),
            HookGroup::new("", vec![cmd("echo all")]),
        ],
    );
    let reg = HookExecutorRegistry::new();
    let rt = rt();
    let run = |tool: &str| {
        rt.block_on(run_hooks(
            &c,
            HookEvent::PreToolUse,
            &tool_input(tool),
            &reg,
        ))
        .stdout
    };
    assert_eq!(run("Write"), "edit-or-write\nall");
    assert_eq!(run("BashOutput"), "bash\nall");
    assert_eq!(run("Read"), "all");
}

#[test]
fn non_empty_matcher_without_target_is_skipped() {
    let c = cfg(
        HookEvent::Stop,
        vec![
            HookGroup::new("Bash", vec![cmd("echo targeted")]),
            HookGroup::new("", vec![cmd("echo always")]),
        ],
    );
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::Stop,
        &json!({"session_id":"s"}),
        &HookExecutorRegistry::new(),
    ));
    assert_eq!(r.stdout, "always");
}

#[test]
fn session_end_is_matched_by_reason() {
    let c = cfg(
        HookEvent::SessionEnd,
        vec![
            HookGroup::new("clear", vec![cmd("echo cleared")]),
            HookGroup::new("logout", vec![cmd("echo logged-out")]),
        ],
    );
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::SessionEnd,
        &json!({"session_id":"s","reason":"clear"}),
        &HookExecutorRegistry::new(),
    ));
    assert_eq!(r.stdout, "cleared");
}

#[test]
fn subagent_hooks_are_matched_by_agent_type_then_agent_id() {
    let c = cfg(
        HookEvent::SubagentStart,
        vec![
            HookGroup::new("explore", vec![cmd("echo explorer")]),
            HookGroup::new("agent_7", vec![cmd("echo by-id")]),
        ],
    );
    let reg = HookExecutorRegistry::new();
    let rt = rt();
    let by_type = rt.block_on(run_hooks(
        &c,
        HookEvent::SubagentStart,
        &json!({"agent_id":"agent_7","agent_type":"explore"}),
        &reg,
    ));
    assert_eq!(by_type.stdout, "explorer");
    let by_id = rt.block_on(run_hooks(
        &c,
        HookEvent::SubagentStart,
        &json!({"agent_id":"agent_7"}),
        &reg,
    ));
    assert_eq!(by_id.stdout, "by-id");
}

#[test]
fn unknown_types_are_skipped_with_a_warning() {
    let c = cfg(
        HookEvent::PreToolUse,
        vec![HookGroup::new(
            "",
            vec![
                HookDefinition::new("mystery").with("prompt", json!("x")),
                cmd("echo ran"),
            ],
        )],
    );
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::PreToolUse,
        &tool_input("Bash"),
        &HookExecutorRegistry::new(),
    ));
    assert!(!r.blocked);
    assert_eq!(r.stdout, "ran");
    assert_eq!(
        r.warnings,
        vec!["PreToolUse hook of unknown type \"mystery\" skipped".to_string()]
    );
}

#[test]
fn group_env_is_merged_over_input_env() {
    let dir = tempfile::tempdir().unwrap();
    let stdin_file = dir.path().join("stdin.json");
    let mut group = HookGroup::new(
        "",
        vec![cmd(&format!(
            "cat > {}; echo \"$A-$B\"",
            stdin_file.display()
        ))],
    );
    group.env = Some(
        [("B".to_string(), "group".to_string())]
            .into_iter()
            .collect(),
    );
    let c = cfg(HookEvent::SessionStart, vec![group]);
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::SessionStart,
        &json!({"session_id":"s","env":{"A":"input","B":"input"}}),
        &HookExecutorRegistry::new(),
    ));
    assert_eq!(r.stdout, "input-group");
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&stdin_file).unwrap()).unwrap();
    assert_eq!(seen["env"], json!({"A":"input","B":"group"}));
}
