//! Extra hook executors next to the built-ins, config parsing and its errors, and the JSON
//! stdout protocol.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use robota_engine::core::hooks::{
    run_hooks, HookDefinition, HookEvent, HookExecutor, HookExecutorRegistry, HookGroup,
    HookResult, HooksConfig,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::{cfg, cmd, rt, tool_input};

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

/// The session JSON's `hooks` are read into the hooks config when the document is parsed: a bad
/// event or definition fails there, with the config's message.
#[test]
fn session_json_hooks_are_read_with_the_document() {
    let parse = |hooks: Value| {
        robota_engine::sdk::config::parse_session_config(
            &json!({"provider":"p","model":"m","hooks": hooks}).to_string(),
        )
    };
    let names: Vec<String> = HookEvent::ALL.iter().map(|e| format!("`{e}`")).collect();
    assert_eq!(
        parse(json!({"BeforeTool":[]})).unwrap_err().message,
        format!(
            "session config: field \"hooks\": Invalid hooks config: unknown variant `BeforeTool`, expected one of {}",
            names.join(", ")
        )
    );
    assert_eq!(
        parse(json!({"Stop":[{"hooks":[{"command":"x"}]}]})).unwrap_err().message,
        "session config: field \"hooks\": Invalid hooks config: hook definition is missing \"type\" (command, http, …)"
    );
    assert_eq!(
        parse(json!(["Stop"])).unwrap_err().message,
        "session config: field \"hooks\" must be an object keyed by hook event"
    );
    let hooks = json!({"Stop":[{"matcher":"","hooks":[{"type":"host"},{"type":"command","command":"true","timeout":2}]}]});
    let c = parse(hooks.clone()).unwrap();
    assert_eq!(c.hooks, Some(HooksConfig::from_json(&hooks).unwrap()));
    assert_eq!(parse(Value::Null).unwrap().hooks, None);
    // A snapshot writes them as read: the group's matcher, the definition's type first.
    let c = parse(json!({"Stop":[{"hooks":[{"command":"true","type":"command"}]}]})).unwrap();
    let doc = robota_engine::sdk::config::document::SessionDocument::from(&c);
    assert_eq!(
        serde_json::to_string(&doc.hooks).unwrap(),
        r#"{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"true"}]}]}"#
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

#[test]
fn pre_tool_use_updated_input_is_returned_and_seen_by_later_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen.json");
    let c = cfg(
        HookEvent::PreToolUse,
        vec![HookGroup::new(
            "",
            vec![
                cmd(r#"printf '%s' '{"hookSpecificOutput":{"updatedInput":{"command":"ls"}}}'"#),
                cmd(&format!("cat > {}", seen.display())),
            ],
        )],
    );
    let input = json!({"session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf x"}});
    let r = rt().block_on(run_hooks(
        &c,
        HookEvent::PreToolUse,
        &input,
        &HookExecutorRegistry::new(),
    ));
    assert!(!r.blocked);
    assert_eq!(
        r.updated_input.map(Value::Object),
        Some(json!({"command":"ls"}))
    );
    let later: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(later["tool_input"], json!({"command":"ls"}));
    // Only PreToolUse rewrites; a deny wins over a rewrite in the same answer.
    let r = run_json(
        HookEvent::PostToolUse,
        r#"{"hookSpecificOutput":{"updatedInput":{"command":"ls"}}}"#,
    );
    assert_eq!(r.updated_input, None);
    let r = run_json(
        HookEvent::PreToolUse,
        r#"{"hookSpecificOutput":{"permissionDecision":"deny","updatedInput":{"command":"ls"}}}"#,
    );
    assert!(r.blocked);
    assert_eq!(r.updated_input, None);
    // Not an object: the call is blocked with a reason naming the hook.
    let r = run_json(
        HookEvent::PreToolUse,
        r#"{"hookSpecificOutput":{"updatedInput":"ls"}}"#,
    );
    assert!(r.blocked);
    assert_eq!(
        r.reason.as_deref(),
        Some(
            r#"PreToolUse hook "printf '%s' '{"hookSpecificOutput":{"updatedInput":"ls"}}'" returned an invalid updatedInput: it must be a JSON object, not a string"#
        )
    );
}
