//! The command registry and skills (first name wins): `help` as structured data,
//! skills discovered from SKILL.md files (broken frontmatter → warning), invocation by command
//! and by `/name args` input (inject mode, exact prompt on the wire), `language` changing the
//! system prompt from the next turn, `resume` listing the session store, `rename` persisted,
//! `compact` naming what is missing, unknown commands.

use std::path::Path;

use robota::ffi::{robota_runtime_free, robota_session_free, ROBOTA_E_NOT_FOUND};
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{command, events_until, next_event, runtime, session_new, submit};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Text of a request's last user message (string or text blocks).
fn last_user_text(body: &Value) -> String {
    let msgs = body["messages"].as_array().unwrap();
    let m = msgs.iter().rev().find(|m| m["role"] == "user").unwrap();
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        other => panic!("content {other}"),
    }
}

const REVIEW: &str = "---\nname: review\ndescription: Review code\nargument-hint: <file>\n---\nReview $ARGUMENTS[0] carefully ($1).\n";

fn skills_project(root: &Path) -> std::path::PathBuf {
    let proj = root.join("proj");
    write(&proj.join(".claude/skills/review/SKILL.md"), REVIEW);
    write(
        &proj.join(".claude/commands/deploy.md"),
        "Deploy with `$ARGUMENTS` in ${CLAUDE_SKILL_DIR}.",
    );
    write(
        &proj.join(".agents/skills/review/SKILL.md"),
        "---\nname: review\n---\nshadowed\n",
    );
    write(
        &proj.join(".agents/skills/hidden/SKILL.md"),
        "---\nuser-invocable: false\ndisable-model-invocation: true\n---\nx\n",
    );
    write(
        &root.join("rhome/skills/bad/SKILL.md"),
        "---\nname: bad\nno closing marker\n",
    );
    proj
}

fn open(
    root: &Path,
    server: &FakeServer,
    extra: Value,
) -> (
    *mut robota::ffi::robota_runtime,
    *mut robota::ffi::robota_session,
) {
    let rt = runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("anthropic")},
                "session_dir": root.join("sessions"),
                "env":{"ROBOTA_HOME": root.join("rhome"), "HOME": root.join("home")}})
        .to_string(),
    );
    let mut doc = json!({"v":1,"provider":"p","model":"m","tools":[],"delivery":"pull"});
    if let (Value::Object(d), Value::Object(e)) = (&mut doc, extra) {
        d.extend(e);
    }
    (rt, session_new(rt, &doc.to_string()).unwrap())
}

#[test]
fn help_lists_builtins_and_skills_and_skills_run_by_command_and_by_slash_input() {
    let root = tempfile::tempdir().unwrap();
    let proj = skills_project(root.path());
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["a"])));
    server.enqueue(Reply::anthropic(&Turn::text(["b"])));
    let (rt, s) = open(
        root.path(),
        &server,
        json!({"settings":"project","cwd":proj,"tools":["Skill"]}),
    );
    let w = next_event(s);
    assert_eq!(w["type"], "warning");
    assert_eq!(w["code"], "SKILL_INVALID");
    assert_eq!(
        w["message"],
        format!(
            "skill {} skipped: the frontmatter block opened with --- is never closed",
            root.path().join("rhome/skills/bad/SKILL.md").display()
        )
    );
    let help = command(s, r#"{"name":"help"}"#).unwrap();
    let cmds = help["data"]["commands"].as_array().unwrap();
    let names: Vec<&str> = cmds.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        vec![
            "help",
            "clear",
            "compact",
            "mode",
            "model",
            "language",
            "cost",
            "context",
            "permissions",
            "mcp",
            "resume",
            "rename",
            "reset",
            "cancel_queue",
            "review",
            "deploy"
        ]
    );
    assert_eq!(
        cmds[2],
        json!({"name":"compact","description":"Compress context window (optional focus instructions)","argument_hint":"[instr]","source":"builtin"})
    );
    assert_eq!(
        cmds[14],
        json!({"name":"review","description":"Review code","argument_hint":"<file>","source":"skill"})
    );
    assert_eq!(
        cmds[15],
        json!({"name":"deploy","description":"Skill: deploy","source":"skill"})
    );
    assert!(help["message"]
        .as_str()
        .unwrap()
        .ends_with("\nSkills:\n  /review — Review code\n  /deploy — Skill: deploy"));

    let r = command(s, r#"{"name":"review","args":"main.rs lib.rs"}"#).unwrap();
    assert_eq!(r["message"], "Skill \"review\" started.");
    assert_eq!(r["data"]["skill"], "review");
    let evs = events_until(s, "turn_completed");
    assert_eq!(evs[0]["type"], "turn_started");
    assert_eq!(evs[0]["input"]["display_input"], "/review main.rs lib.rs");
    submit(s, "/deploy now please");
    events_until(s, "turn_completed");
    let reqs = server.requests();
    assert_eq!(
        last_user_text(&reqs[0].body),
        format!(
            "<skill name=\"review\">\n{}\n</skill>\n\nExecute the \"review\" skill: main.rs lib.rs",
            REVIEW
                .replace("$ARGUMENTS[0]", "main.rs")
                .replace("$1", "lib.rs")
        )
    );
    assert_eq!(
        last_user_text(&reqs[1].body),
        format!("<skill name=\"deploy\">\nDeploy with `now please` in {}.\n</skill>\n\nExecute the \"deploy\" skill: now please",
                proj.join(".claude/commands").display())
    );
    let system = reqs[0].system_text();
    assert!(
        system.ends_with("## Skills\n- review <file>: Review code\n- deploy: Skill: deploy"),
        "{system}"
    );
    let e = command(s, r#"{"name":"hidden"}"#).unwrap_err();
    assert_eq!(e.status, ROBOTA_E_NOT_FOUND);
    assert!(
        e.message
            .starts_with("unknown command \"hidden\" (available: help, clear, "),
        "{}",
        e.message
    );
    assert!(
        e.message.ends_with(", cancel_queue, review, deploy)"),
        "{}",
        e.message
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn language_changes_the_system_prompt_from_the_next_turn() {
    let root = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["a"])));
    server.enqueue(Reply::anthropic(&Turn::text(["b"])));
    let (rt, s) = open(root.path(), &server, json!({"system_prompt":"HOST"}));
    submit(s, "one");
    events_until(s, "turn_completed");
    let r = command(s, r#"{"name":"language","args":"ko extra"}"#).unwrap();
    assert_eq!(
        r,
        json!({"v":1,"message":"Language set to \"ko\".","success":true,"data":{"language":"ko"}})
    );
    submit(s, "two");
    events_until(s, "turn_completed");
    let reqs = server.requests();
    assert_eq!(reqs[0].system_text(), "HOST");
    assert_eq!(reqs[1].system_text(), "HOST\n\n## Response Language\nko");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn rename_is_persisted_and_resume_lists_the_store() {
    let root = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["a"])));
    let (rt, s) = open(
        root.path(),
        &server,
        json!({"persist":true,"session_id":"sess-a","cwd": root.path()}),
    );
    submit(s, "one");
    events_until(s, "turn_completed");
    let r = command(s, r#"{"name":"rename","args":"  My chat  "}"#).unwrap();
    assert_eq!(
        r,
        json!({"v":1,"message":"Session renamed to \"My chat\".","success":true,"data":{"name":"My chat"}})
    );
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join("sessions/sess-a.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(file["config"]["name"], "My chat");
    write(
        &root.path().join("sessions/notes.json"),
        r#"{"kind":"other"}"#,
    );
    let r = command(s, r#"{"name":"resume"}"#).unwrap();
    assert_eq!(r["message"], "Opening session picker...");
    assert_eq!(r["data"]["triggerResumePicker"], true);
    let listed = r["data"]["sessions"].as_array().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], "sess-a");
    assert_eq!(listed[0]["name"], "My chat");
    assert_eq!(listed[0]["message_count"], 1);
    assert_eq!(listed[0]["cwd"], json!(root.path()));
    let r = command(s, r#"{"name":"resume","args":"sess-a"}"#).unwrap();
    assert_eq!(r["data"]["resumeSessionId"], "sess-a");
    let e = command(s, r#"{"name":"frobnicate"}"#).unwrap_err();
    assert_eq!(e.status, ROBOTA_E_NOT_FOUND);
    assert!(e
        .message
        .starts_with("unknown command \"frobnicate\" (available: help, "));
    robota_session_free(s);
    robota_runtime_free(rt);
}

/// Without `persist`, a rename rewrites the session's file only when the store already holds
/// one (it was saved there before); otherwise nothing is written.
#[test]
fn rename_without_persist_updates_only_a_stored_file() {
    let root = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    let (rt, s) = open(root.path(), &server, json!({"session_id":"sess-b"}));
    command(s, r#"{"name":"rename","args":"first"}"#).unwrap();
    let file = root.path().join("sessions/sess-b.json");
    assert!(!file.exists(), "a rename must not create a session file");
    let saved = crate::support_ffi::save(s);
    robota_engine::sdk::persistence::snapshot::write_snapshot(
        root.path().join("sessions"),
        "sess-b",
        &saved,
    )
    .unwrap();
    command(s, r#"{"name":"rename","args":"second"}"#).unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["config"]["name"], "second");
    robota_session_free(s);
    robota_runtime_free(rt);
}
