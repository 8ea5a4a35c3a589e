//! Settings layers (six files, later wins): each layer's precedence, merge rules, `$ENV:`
//! references, malformed files reported as warnings naming file and field while the session
//! still starts, and what the settings give a session created through the C ABI.

use std::collections::BTreeMap;
use std::path::Path;

use robota::ffi::{robota_runtime_free, robota_session_free};
use robota_engine::core::env_ref::EnvVars;
use robota_engine::core::permissions::PermissionMode;
use robota_engine::sdk::settings::{self, SettingsScope, UserDirs};
use serde_json::json;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{events_until, next_event, runtime, save, session_new, submit};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `(robota home, home, project)` under `root`.
fn dirs(root: &Path) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    (root.join("rhome"), root.join("home"), root.join("proj"))
}

fn env_for(root: &Path) -> EnvVars {
    let (rhome, home, _) = dirs(root);
    EnvVars::with_vars(BTreeMap::from([
        ("ROBOTA_HOME".into(), rhome.display().to_string()),
        ("HOME".into(), home.display().to_string()),
    ]))
}

#[test]
fn each_layer_overrides_the_ones_below_it() {
    let root = tempfile::tempdir().unwrap();
    let (rhome, home, proj) = dirs(root.path());
    let env = env_for(root.path());
    let ud = UserDirs::from_env(&env);
    assert_eq!(ud.robota.as_deref(), Some(rhome.as_path()));
    assert_eq!(ud.claude.as_deref(), Some(home.join(".claude").as_path()));
    let layers = settings::layer_paths(SettingsScope::Project, &proj, &ud);
    assert_eq!(
        layers,
        vec![
            home.join(".claude/settings.json"),
            rhome.join("settings.json"),
            proj.join(".claude/settings.json"),
            proj.join(".claude/settings.local.json"),
            proj.join(".robota/settings.json"),
            proj.join(".robota/settings.local.json"),
        ]
    );
    assert_eq!(
        settings::layer_paths(SettingsScope::User, &proj, &ud),
        layers[..2].to_vec()
    );
    assert!(settings::layer_paths(SettingsScope::None, &proj, &ud).is_empty());
    for (i, p) in layers.iter().enumerate() {
        let n = i + 1;
        write(
            p,
            &json!({"language": format!("l{n}"), "env": {format!("K{n}"): "x", "TOP": format!("{n}")},
                    "permissions": {"allow": [format!("Read(l{n})")]}})
            .to_string(),
        );
    }
    // Remove the highest layer each round: the next one down wins.
    for top in (1..=6).rev() {
        let mut w = Vec::new();
        let s = settings::load(SettingsScope::Project, &proj, &ud, &env, &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.language, Some(format!("l{top}")));
        assert_eq!(s.env.get("TOP"), Some(&format!("{top}")));
        assert_eq!(s.env.len(), top + 1, "env keys merge across layers");
        assert_eq!(
            s.allow,
            vec![format!("Read(l{top})")],
            "allow is replaced whole"
        );
        std::fs::remove_file(&layers[top - 1]).unwrap();
    }
    let mut w = Vec::new();
    let s = settings::load(SettingsScope::Project, &proj, &ud, &env, &mut w);
    assert_eq!(s.language, None);
    assert_eq!(s.trust_level, "moderate");
    assert_eq!(s.permission_mode, None);
}

#[test]
fn providers_hooks_and_trust_follow_the_merge_rules() {
    let root = tempfile::tempdir().unwrap();
    let (rhome, _, proj) = dirs(root.path());
    let env = env_for(root.path());
    write(
        &rhome.join("settings.json"),
        &json!({"currentProvider": "a", "defaultTrustLevel": "full",
                "providers": {"a": {"type": "anthropic", "model": "m-user", "apiKey": "$ENV:MY_KEY"}},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]},
                "permissions": {"deny": ["Bash(rm *)"]}})
        .to_string(),
    );
    write(
        &proj.join(".robota/settings.local.json"),
        &json!({"providers": {"a": {"model": "m-local"}},
                "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}})
        .to_string(),
    );
    let mut w = Vec::new();
    let s = settings::load(
        SettingsScope::Project,
        &proj,
        &UserDirs::from_env(&env),
        &env,
        &mut w,
    );
    assert_eq!(
        s.model.as_deref(),
        Some("m-local"),
        "per-profile field merge"
    );
    assert_eq!(s.current_provider.as_deref(), Some("a"));
    assert_eq!(s.permission_mode, Some(PermissionMode::AcceptEdits));
    assert_eq!(s.deny, vec!["Bash(rm *)".to_string()]);
    assert_eq!(
        s.hooks,
        Some(json!({"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]})),
        "hooks are replaced wholesale"
    );
    // The unset variable is named (never a value), the field is dropped, the rest applies.
    assert_eq!(
        w,
        vec![format!(
            "settings file {}: field \"providers.a.apiKey\" refers to environment variable \"MY_KEY\", which is not set; field ignored",
            rhome.join("settings.json").display()
        )]
    );
}

#[test]
fn env_references_resolve_from_the_given_variables() {
    let root = tempfile::tempdir().unwrap();
    let (rhome, _, proj) = dirs(root.path());
    let env = EnvVars::with_vars(BTreeMap::from([
        ("ROBOTA_HOME".into(), rhome.display().to_string()),
        (
            "HOME".into(),
            root.path().join("nohome").display().to_string(),
        ),
        ("LANG_FOR_TEST".into(), "ja".into()),
        ("SECRET_FOR_TEST".into(), "s3cret".into()),
    ]));
    write(
        &rhome.join("settings.json"),
        r#"{"language":"$ENV:LANG_FOR_TEST","env":{"TOKEN":"$ENV:SECRET_FOR_TEST","PLAIN":"p"},
            "provider":{"model":"legacy-m","apiKey":"$ENV:SECRET_FOR_TEST"}}"#,
    );
    let mut w = Vec::new();
    let s = settings::load(
        SettingsScope::User,
        &proj,
        &UserDirs::from_env(&env),
        &env,
        &mut w,
    );
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(s.language.as_deref(), Some("ja"));
    assert_eq!(s.env.get("TOKEN").map(String::as_str), Some("s3cret"));
    assert_eq!(s.env.get("PLAIN").map(String::as_str), Some("p"));
    assert_eq!(s.model.as_deref(), Some("legacy-m"));
}

#[test]
fn malformed_files_and_fields_are_warnings_naming_file_and_field() {
    let root = tempfile::tempdir().unwrap();
    let (rhome, home, proj) = dirs(root.path());
    let env = env_for(root.path());
    write(
        &rhome.join("settings.json"),
        r#"{"language":"de","env":{"A":"1"}}"#,
    );
    write(&home.join(".claude/settings.json"), "{not json");
    write(
        &proj.join(".robota/settings.json"),
        r#"{"language":7,"defaultTrustLevel":"total","permissions":{"allow":"Read(*)","deny":["Bash(x)"]},"env":{"B":"2"},"unknownKey":1}"#,
    );
    let mut w = Vec::new();
    let s = settings::load(
        SettingsScope::Project,
        &proj,
        &UserDirs::from_env(&env),
        &env,
        &mut w,
    );
    let claude = home.join(".claude/settings.json").display().to_string();
    let proj_file = proj.join(".robota/settings.json").display().to_string();
    assert_eq!(w.len(), 4, "{w:?}");
    assert!(
        w[0].starts_with(&format!("settings file {claude}: is not valid JSON (")),
        "{}",
        w[0]
    );
    assert!(w[0].ends_with("); file skipped"));
    let mut rest = w[1..].to_vec();
    rest.sort();
    assert_eq!(
        rest,
        vec![
            format!("settings file {proj_file}: field \"defaultTrustLevel\" must be \"safe\", \"moderate\" or \"full\"; field ignored"),
            format!("settings file {proj_file}: field \"language\" must be a string; field ignored"),
            format!("settings file {proj_file}: field \"permissions.allow\" must be an array of strings; field ignored"),
        ]
    );
    assert_eq!(
        s.language.as_deref(),
        Some("de"),
        "the bad field falls back to lower layers"
    );
    assert_eq!(s.deny, vec!["Bash(x)".to_string()]);
    assert_eq!(s.env.len(), 2);
}

/// The fixture project of the system-prompt test.
fn fixture_project(root: &Path) -> std::path::PathBuf {
    let (rhome, _, proj) = dirs(root);
    write(&root.join("AGENTS.md"), "root agents\n");
    write(&proj.join("AGENTS.md"), "proj agents\n");
    write(
        &proj.join("CLAUDE.md"),
        "# Notes\nuse pnpm\n## Compact Instructions\nkeep decisions\n",
    );
    write(&proj.join("package.json"), r#"{"name":"demo"}"#);
    // Task files in name order; other files and empty ones are not task context.
    write(&proj.join(".agents/tasks/b.md"), "\nsecond task\n");
    write(&proj.join(".agents/tasks/a.md"), "first task");
    write(&proj.join(".agents/tasks/empty.md"), "  \n");
    write(&proj.join(".agents/tasks/notes.txt"), "not a task");
    write(&proj.join("tsconfig.json"), "{}");
    write(&proj.join("pnpm-lock.yaml"), "");
    write(
        &rhome.join("settings.json"),
        r#"{"language":"ko","env":{"HOOK_OUT":"from-settings"}}"#,
    );
    write(
        &proj.join(".robota/settings.json"),
        r#"{"defaultTrustLevel":"safe","permissions":{"allow":["Bash(ls *)"]},
            "currentProvider":"p","providers":{"p":{"type":"anthropic","model":"settings-model"}}}"#,
    );
    write(
        &proj.join(".claude/settings.local.json"),
        r#"{"permissions":{"deny":["Bash(rm *)"]},
            "hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"printf %s \"$HOOK_OUT\" > hook.out"}]}]}}"#,
    );
    proj
}

fn runtime_json(root: &Path, server: &FakeServer) -> String {
    let (rhome, home, _) = dirs(root);
    json!({"v":1,"providers":{"p": server.provider_config("anthropic")},
           "env":{"ROBOTA_HOME": rhome, "HOME": home}})
    .to_string()
}

const EXPECTED_PROMPT: &str = "## Agent Instructions\nroot agents\n\n\nproj agents\n\n\
## Project Notes\n# Notes\nuse pnpm\n## Compact Instructions\nkeep decisions\n\n\
## Active Task Context\nfirst task\n\nsecond task\n\n\
## Working Directory\n`PROJ`\n\n\
## Current Project\n- **Name:** demo\n- **Type:** node\n- **Language:** typescript\n- **Package manager:** pnpm\n\n\
## Response Language\nko\n\n\
## Permission Mode\n- **Trust level:** safe\n- **Mode:** plan\n\n\
## Available Tools\n- Read — read file contents with line numbers\n- Bash — execute shell commands\n\n\
HOST";

#[test]
fn project_settings_session_gets_prompt_permissions_hooks_and_model() {
    let root = tempfile::tempdir().unwrap();
    let proj = fixture_project(root.path());
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
    let rt = runtime(&runtime_json(root.path(), &server));
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"p","settings":"project","cwd":proj,"tools":["Read","Bash"],
                "system_prompt":"HOST","delivery":"pull"})
        .to_string(),
    )
    .unwrap();
    submit(s, "hi");
    let evs = events_until(s, "turn_completed");
    assert!(
        evs.iter().all(|e| e["code"] != "SETTINGS_INVALID"),
        "{evs:?}"
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let expected = EXPECTED_PROMPT.replace("PROJ", &proj.display().to_string());
    assert_eq!(reqs[0].system_text(), expected);
    assert_eq!(reqs[0].body["model"], "settings-model");
    let saved = save(s);
    assert_eq!(saved["config"]["permission_mode"], "plan");
    assert_eq!(
        saved["config"]["permissions"],
        json!({"allow": ["Read(.agents/**)", "Read(.claude/**)", "Read(.robota/**)",
                         "Glob(.agents/**)", "Glob(.claude/**)", "Glob(.robota/**)", "Bash(ls *)"],
               "deny": ["Bash(rm *)"]})
    );
    assert_eq!(saved["config"]["language"], "ko");
    // The settings hook ran with the settings env.
    assert_eq!(
        std::fs::read_to_string(proj.join("hook.out")).unwrap(),
        "from-settings"
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn session_fields_override_settings_and_replace_mode_uses_the_host_prompt() {
    let root = tempfile::tempdir().unwrap();
    let proj = fixture_project(root.path());
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
    let rt = runtime(&runtime_json(root.path(), &server));
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"p","model":"json-model","settings":"project","cwd":proj,
                "tools":[],"system_prompt":"HOST","system_prompt_mode":"replace",
                "permission_mode":"acceptEdits","permissions":{"allow":["Write(*)"]},
                "hooks":{},"language":"en","delivery":"pull"})
        .to_string(),
    )
    .unwrap();
    submit(s, "hi");
    events_until(s, "turn_completed");
    let reqs = server.requests();
    assert_eq!(reqs[0].system_text(), "HOST");
    assert_eq!(reqs[0].body["model"], "json-model");
    let saved = save(s);
    assert_eq!(saved["config"]["permission_mode"], "acceptEdits");
    assert_eq!(saved["config"]["language"], "en");
    let allow = saved["config"]["permissions"]["allow"].as_array().unwrap();
    assert_eq!(allow.last().unwrap(), "Write(*)");
    assert!(
        !proj.join("hook.out").exists(),
        "session hooks replace settings hooks"
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn a_broken_settings_file_is_a_warning_event_and_the_session_starts() {
    let root = tempfile::tempdir().unwrap();
    let (rhome, _, proj) = dirs(root.path());
    write(&rhome.join("settings.json"), r#"{"language":"fr"}"#);
    write(&proj.join(".claude/settings.json"), r#"{"language":["x"]}"#);
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
    let rt = runtime(&runtime_json(root.path(), &server));
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"p","model":"m","settings":"project","cwd":proj,"tools":[],
                "delivery":"pull"})
        .to_string(),
    )
    .unwrap();
    let w = next_event(s);
    assert_eq!(w["type"], "warning");
    assert_eq!(w["code"], "SETTINGS_INVALID");
    assert_eq!(
        w["message"],
        format!(
            "settings file {}: field \"language\" must be a string; field ignored",
            proj.join(".claude/settings.json").display()
        )
    );
    submit(s, "hi");
    events_until(s, "turn_completed");
    let system = server.requests()[0].system_text().to_string();
    assert!(system.contains("## Response Language\nfr\n\n"), "{system}");
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn unknown_settings_scope_is_invalid_config() {
    let rt = runtime(r#"{"v":1,"providers":{"s":{"kind":"scripted"}}}"#);
    let e = session_new(
        rt,
        r#"{"v":1,"provider":"s","model":"m","settings":"global"}"#,
    )
    .unwrap_err();
    assert_eq!(e.status, robota::ffi::ROBOTA_E_INVALID_CONFIG);
    assert_eq!(
        e.message,
        "session config: field \"settings\" must be \"none\", \"user\" or \"project\", got \"global\""
    );
    let e = session_new(rt, r#"{"v":1,"provider":"s","settings":"none"}"#).unwrap_err();
    assert_eq!(
        e.message,
        "session config: missing required field \"model\""
    );
    robota_runtime_free(rt);
}
