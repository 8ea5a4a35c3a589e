//! Hook runner (exit 2 blocks; port of Robota's hooks integration tests + more): exit codes,
//! matchers, ordering, unknown types, group env, extra executors and config parsing.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use robota_engine::core::hooks::{
    matcher_matches, run_hooks, HookDefinition, HookEvent, HookExecutor, HookExecutorRegistry,
    HookGroup, HookResult, HooksConfig,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn cfg(event: HookEvent, groups: Vec<HookGroup>) -> HooksConfig {
    let mut c = HooksConfig::new();
    for g in groups {
        c = c.with_group(event, g);
    }
    c
}

fn cmd(c: &str) -> HookDefinition {
    HookDefinition::command(c)
}

fn tool_input(tool: &str) -> Value {
    json!({"session_id":"s1","cwd":".","hook_event_name":"PreToolUse","tool_name":tool,"tool_input":{}})
}

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

/// A host-style executor that records calls and answers with a fixed result.
struct HostExec {
    seen: Mutex<Vec<(Value, Value)>>,
    result: HookResult,
}

#[async_trait]
impl HookExecutor for HostExec {
    fn kind(&self) -> &str {
        "host"
    }
    async fn execute(
        &self,
        def: &HookDefinition,
        input: &Value,
        _c: CancellationToken,
    ) -> HookResult {
        self.seen
            .lock()
            .unwrap()
            .push((serde_json::to_value(def).unwrap(), input.clone()));
        self.result.clone()
    }
}

#[test]
fn extra_executors_are_added_next_to_the_builtins() {
    let host = Arc::new(HostExec {
        seen: Mutex::new(Vec::new()),
        result: HookResult::new(2, "", "host says no"),
    });
    let reg = HookExecutorRegistry::new()
        .with_extras([host.clone() as Arc<dyn HookExecutor>])
        .unwrap();
    assert_eq!(reg.kinds(), vec!["command", "host", "http"]);
    let c = cfg(
        HookEvent::PreToolUse,
        vec![HookGroup::new(
            "",
            vec![
                cmd("echo builtin-still-works"),
                HookDefinition::new("host").with("callback", json!(7)),
            ],
        )],
    );
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::PreToolUse,
        &tool_input("Bash"),
        &reg,
    ));
    assert!(r.blocked);
    assert_eq!(r.reason.as_deref(), Some("host says no"));
    assert_eq!(r.stdout, "builtin-still-works");
    let seen = host.seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0, json!({"type":"host","callback":7}));
    assert_eq!(seen[0].1["tool_name"], "Bash");
}

struct Named(&'static str);

#[async_trait]
impl HookExecutor for Named {
    fn kind(&self) -> &str {
        self.0
    }
    async fn execute(&self, _d: &HookDefinition, _i: &Value, _c: CancellationToken) -> HookResult {
        HookResult::default()
    }
}

#[test]
fn builtins_cannot_be_replaced_and_duplicates_are_rejected() {
    let mut reg = HookExecutorRegistry::new();
    assert_eq!(
        reg.register(Arc::new(Named("command"))).unwrap_err(),
        "hook executor kind \"command\" is a built-in executor, which cannot be replaced"
    );
    assert!(reg.register(Arc::new(Named("http"))).is_err());
    reg.register(Arc::new(Named("agent"))).unwrap();
    assert_eq!(
        reg.register(Arc::new(Named("agent"))).unwrap_err(),
        "hook executor kind \"agent\" is already registered"
    );
    assert!(reg.register(Arc::new(Named(" "))).is_err());
    assert_eq!(reg.kinds(), vec!["agent", "command", "http"]);
}

#[test]
fn config_parses_all_13_events_and_generic_definitions() {
    let mut obj = serde_json::Map::new();
    for e in HookEvent::ALL {
        obj.insert(
            e.as_str().to_string(),
            json!([{"matcher":"", "hooks":[{"type":"command","command":"true","timeout":3}]}]),
        );
    }
    obj.insert(
        "PreToolUse".into(),
        json!([{"matcher":"Bash","hooks":[
            {"type":"http","url":"http://127.0.0.1:1/h","headers":{"Authorization":"Bearer $TOKEN"}},
            {"type":"host","id":"abc","extra":{"n":1}}
        ]}]),
    );
    let value = Value::Object(obj);
    let c = HooksConfig::from_json(&value).unwrap();
    assert_eq!(c.events.len(), 13);
    let pre = c.groups(HookEvent::PreToolUse);
    assert_eq!(pre[0].matcher, "Bash");
    assert_eq!(pre[0].hooks[0].kind, "http");
    assert_eq!(pre[0].hooks[1].kind, "host");
    assert_eq!(pre[0].hooks[1].fields["extra"], json!({"n":1}));
    assert_eq!(
        c.groups(HookEvent::Stop)[0].hooks[0].timeout().unwrap(),
        Some(std::time::Duration::from_secs(3))
    );
    // Round trip.
    assert_eq!(serde_json::to_value(&c).unwrap(), value);
    assert!(HooksConfig::from_json(&Value::Null).unwrap().is_empty());
}

#[test]
fn config_errors_name_the_problem() {
    let e = HooksConfig::from_json(&json!({"BeforeTool":[]})).unwrap_err();
    assert!(
        e.starts_with("Invalid hooks config: unknown variant `BeforeTool`"),
        "{e}"
    );
    let e = HooksConfig::from_json(&json!({"Stop":[{"matcher":"","hooks":[{"command":"x"}]}]}))
        .unwrap_err();
    assert!(e.contains("hook definition is missing \"type\""), "{e}");
    let e =
        HooksConfig::from_json(&json!({"Stop":[{"matcher":"","hooks":[{"type":5}]}]})).unwrap_err();
    assert!(e.contains("\"type\" must be a non-empty string"), "{e}");
    let bad_timeout = HookDefinition::command("x").with("timeout", json!(-1));
    assert_eq!(
        bad_timeout.timeout().unwrap_err(),
        "hook \"timeout\" must be a positive number of seconds, got -1"
    );
}

fn run_json(event: HookEvent, stdout_json: &str) -> robota_engine::core::hooks::HookRunOutcome {
    let c = cfg(
        event,
        vec![HookGroup::new(
            "",
            vec![cmd(&format!("printf '%s' '{stdout_json}'"))],
        )],
    );
    rt().block_on(run_hooks(
        &c,
        event,
        &json!({"session_id":"s","tool_name":"Bash"}),
        &HookExecutorRegistry::new(),
    ))
}

#[test]
fn json_stdout_protocol_blocks_and_adds_context() {
    let r = run_json(
        HookEvent::Stop,
        r#"{"continue":false,"stopReason":"enough"}"#,
    );
    assert!(r.blocked);
    assert_eq!(r.reason.as_deref(), Some("enough"));
    let r = run_json(HookEvent::Stop, r#"{"continue":false}"#);
    assert_eq!(
        r.reason.as_deref(),
        Some("Blocked by hook (continue: false)")
    );

    let r = run_json(HookEvent::UserPromptSubmit, r#"{"decision":"block"}"#);
    assert_eq!(
        r.reason.as_deref(),
        Some("Blocked by hook (decision: block)")
    );
    let r = run_json(
        HookEvent::UserPromptSubmit,
        r#"{"decision":"block","reason":"no secrets"}"#,
    );
    assert_eq!(r.reason.as_deref(), Some("no secrets"));
    // `decision` only blocks UserPromptSubmit.
    assert!(!run_json(HookEvent::Stop, r#"{"decision":"block"}"#).blocked);

    let r = run_json(
        HookEvent::PreToolUse,
        r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#,
    );
    assert_eq!(
        r.reason.as_deref(),
        Some("Blocked by hook (permissionDecision: deny)")
    );
    let r = run_json(
        HookEvent::PreToolUse,
        r#"{"hookSpecificOutput":{"permissionDecision":"allow"}}"#,
    );
    assert!(!r.blocked);
    assert_eq!(r.stdout, "");

    let r = run_json(
        HookEvent::UserPromptSubmit,
        r#"{"hookSpecificOutput":{"additionalContext":"branch: main"},"systemMessage":"be brief"}"#,
    );
    assert!(!r.blocked);
    assert_eq!(r.stdout, "branch: main\nbe brief");
    // A JSON object without protocol keys contributes nothing; other text is raw.
    assert_eq!(run_json(HookEvent::Stop, r#"{"ok":true}"#).stdout, "");
    assert_eq!(run_json(HookEvent::Stop, r#"[1,2]"#).stdout, "[1,2]");
    assert_eq!(
        run_json(HookEvent::Stop, r#"{not json"#).stdout,
        "{not json"
    );
}
