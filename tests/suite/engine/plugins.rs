//! Local bundle plugins: a plugin folder's commands, skills and agents under qualified names,
//! its hooks and MCP servers with `${CLAUDE_PLUGIN_ROOT}` replaced, `enabledPlugins` turning
//! project and user plugins on and off, the host's `plugin_dirs`, and bad manifests and files
//! as warnings naming the file while everything else loads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use robota_engine::core::env_ref::EnvVars;
use robota_engine::core::hooks::HooksConfig;
use robota_engine::sdk::config::parse_runtime_config;
use robota_engine::sdk::mcp::config::McpTransport;
use robota_engine::sdk::plugins::{self, discover, load, PluginSources};
use robota_engine::sdk::settings::{self, SettingsScope, UserDirs};
use serde_json::json;

use crate::support::mcp::McpHost;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn manifest(root: &Path, name: &str) {
    write(
        &root.join(".claude-plugin/plugin.json"),
        &json!({"name": name, "version": "1.0.0", "description": "A kit"}).to_string(),
    );
}

/// A plugin `kit` with one of each part.
fn kit(root: &Path) {
    manifest(root, "kit");
    write(
        &root.join("commands/audit.md"),
        "---\ndescription: Audit the code\nargument-hint: <path>\n---\nRun ${CLAUDE_PLUGIN_ROOT}/audit.sh $ARGUMENTS\n",
    );
    write(
        &root.join("skills/lint/SKILL.md"),
        "---\ndescription: Lint\n---\nLint with ${ROBOTA_PLUGIN_ROOT}/rules\n",
    );
    write(
        &root.join("agents/reviewer.md"),
        "---\ndescription: Reviews\ntools: Read\n---\nReview with ${CLAUDE_PLUGIN_ROOT}/guide.md",
    );
    write(
        &root.join("hooks/hooks.json"),
        &json!({"description": "kit hooks", "hooks": {"PreToolUse": [{"matcher": "Bash",
            "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/check.sh"}]}]}})
        .to_string(),
    );
    write(
        &root.join(".mcp.json"),
        &json!({"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db",
            "args": ["--data", "${ROBOTA_PLUGIN_ROOT}/data"], "env": {"KEY": "$ENV:KEY"}}}})
        .to_string(),
    );
}

fn host_sources(dirs: &[PathBuf], enabled: &[(&str, bool)]) -> PluginSources {
    PluginSources {
        host_dirs: dirs.to_vec(),
        parents: Vec::new(),
        enabled: enabled.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
    }
}

#[test]
fn a_plugin_brings_qualified_commands_skills_agents_hooks_and_servers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kit");
    kit(&root);
    let mut warnings = Vec::new();
    let found = discover(
        &host_sources(std::slice::from_ref(&root), &[]),
        &mut warnings,
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].manifest.name, "kit");
    assert_eq!(found[0].manifest.version.as_deref(), Some("1.0.0"));
    assert_eq!(found[0].manifest.description.as_deref(), Some("A kit"));
    let c = load(&found[0], "/work", &mut warnings);
    assert_eq!(warnings, Vec::<String>::new());
    let r = root.display();

    let names: Vec<&str> = c.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["kit:audit", "kit:lint"]);
    assert_eq!(c.skills[0].description, "Audit the code");
    assert_eq!(c.skills[0].argument_hint.as_deref(), Some("<path>"));
    assert!(
        c.skills[0]
            .content
            .ends_with(&format!("Run {r}/audit.sh $ARGUMENTS\n")),
        "{}",
        c.skills[0].content
    );
    assert!(c.skills[1]
        .content
        .ends_with(&format!("Lint with {r}/rules\n")));

    assert_eq!(c.agents.len(), 1);
    assert_eq!(c.agents[0].name, "kit:reviewer");
    assert_eq!(c.agents[0].description, "Reviews");
    assert_eq!(c.agents[0].prompt, format!("Review with {r}/guide.md"));
    assert_eq!(c.agents[0].tools, Some(vec!["Read".to_string()]));

    let want = HooksConfig::from_json(&json!({"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": format!("{r}/check.sh")}],
        "env": {"CLAUDE_PLUGIN_ROOT": root, "ROBOTA_PLUGIN_ROOT": root}}]}))
    .unwrap();
    assert_eq!(c.hooks, Some(want));

    assert_eq!(c.mcp_servers.len(), 1);
    assert_eq!(c.mcp_servers[0].name, "plugin_kit_db");
    assert_eq!(
        c.mcp_servers[0].transport,
        McpTransport::Stdio {
            command: format!("{r}/bin/db"),
            args: vec!["--data".into(), format!("{r}/data")],
            env: [("KEY".to_string(), "$ENV:KEY".to_string())].into(),
            cwd: "/work".into(),
            env_policy: robota_engine::core::child_env::ChildEnvPolicy::shared_default(),
        }
    );
}

#[test]
fn enabled_plugins_from_the_settings_layers_turn_project_and_user_plugins_on_and_off() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    let rhome = dir.path().join("rhome");
    for name in ["kit", "off", "idle"] {
        manifest(&proj.join(".robota/plugins").join(name), name);
    }
    manifest(&rhome.join("plugins/mine"), "mine");
    // The user file turns three on; the project file turns one of them off again.
    write(
        &rhome.join("settings.json"),
        r#"{"enabledPlugins":{"kit@some-market":true,"off":true,"mine":true}}"#,
    );
    write(
        &proj.join(".robota/settings.json"),
        r#"{"enabledPlugins":{"off":false}}"#,
    );
    let env = EnvVars::with_vars(BTreeMap::new());
    let dirs = UserDirs {
        robota: Some(rhome.clone()),
        claude: None,
    };
    let names = |scope: SettingsScope| {
        let mut w = Vec::new();
        let s = settings::load(scope, &proj, &dirs, &env, &mut w);
        let src = plugins::sources(scope, &proj, &dirs, &[], s.enabled_plugins);
        let found = discover(&src, &mut w);
        assert_eq!(w, Vec::<String>::new());
        found
            .iter()
            .map(|p| p.manifest.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(SettingsScope::Project), ["kit", "mine"]);
    // "user" reads neither the project's settings nor its plugins.
    assert_eq!(names(SettingsScope::User), ["mine"]);
    assert_eq!(names(SettingsScope::None), Vec::<String>::new());
}

#[test]
fn a_host_plugin_loads_unless_enabled_plugins_turns_it_off() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("h");
    manifest(&root, "h");
    let mut w = Vec::new();
    let on = discover(
        &host_sources(std::slice::from_ref(&root), &[("other", false)]),
        &mut w,
    );
    assert_eq!(on.len(), 1);
    let off = discover(&host_sources(&[root], &[("h@x", false)]), &mut w);
    assert!(off.is_empty());
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn bad_manifests_are_warnings_naming_the_file_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().join("plugins");
    let p = |n: &str| parent.join(n);
    manifest(&p("good"), "good");
    write(&p("json/.claude-plugin/plugin.json"), "{not json");
    write(
        &p("noname/.robota-plugin/plugin.json"),
        r#"{"version":"1"}"#,
    );
    write(
        &p("colon/.claude-plugin/plugin.json"),
        r#"{"name":"a:b","version":"1"}"#,
    );
    write(
        &p("version/.claude-plugin/plugin.json"),
        r#"{"name":"v","version":2}"#,
    );
    std::fs::create_dir_all(p("bare")).unwrap();
    std::fs::create_dir_all(p("ignored")).unwrap();
    // A second plugin named "good", registered by the host after the first.
    manifest(&dir.path().join("again"), "good");
    let src = PluginSources {
        host_dirs: vec![p("good"), dir.path().join("again")],
        parents: vec![parent.clone()],
        enabled: [("bare".to_string(), true), ("good".to_string(), true)].into(),
    };
    let mut w = Vec::new();
    let found = discover(&src, &mut w);
    let names: Vec<&str> = found.iter().map(|f| f.manifest.name.as_str()).collect();
    assert_eq!(names, ["good"]);
    let f = |rel: &str| p(rel).display().to_string();
    assert_eq!(
        w,
        vec![
            format!(
                "plugin \"good\" at {} skipped: a plugin of that name is loaded from {}",
                dir.path().join("again").display(),
                f("good")
            ),
            format!(
                "plugin folder {} has no manifest (.robota-plugin/plugin.json or .claude-plugin/plugin.json); plugin skipped",
                f("bare")
            ),
            format!(
                "plugin manifest {}: field \"name\" \"a:b\" must be letters, digits, '-', '_' or '.'; plugin skipped",
                f("colon/.claude-plugin/plugin.json")
            ),
            format!(
                "plugin manifest {}: is not valid JSON (key must be a string at line 1 column 2); plugin skipped",
                f("json/.claude-plugin/plugin.json")
            ),
            format!(
                "plugin manifest {}: missing required field \"name\"; plugin skipped",
                f("noname/.robota-plugin/plugin.json")
            ),
            format!(
                "plugin manifest {}: field \"version\" must be a string; plugin skipped",
                f("version/.claude-plugin/plugin.json")
            ),
        ]
    );
}

#[test]
fn a_bad_file_inside_a_plugin_is_a_warning_and_its_other_parts_load() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kit");
    kit(&root);
    write(&root.join("hooks/hooks.json"), r#"{"hooks":{"Nope":[]}}"#);
    write(
        &root.join(".mcp.json"),
        r#"{"mcpServers":{"ok":{"command":"x"},"bad":{"args":[]}}}"#,
    );
    let mut w = Vec::new();
    let found = discover(&host_sources(std::slice::from_ref(&root), &[]), &mut w);
    let c = load(&found[0], "/work", &mut w);
    assert_eq!(c.skills.len(), 2);
    assert_eq!(c.agents.len(), 1);
    assert_eq!(c.hooks, None);
    let servers: Vec<&str> = c.mcp_servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(servers, ["plugin_kit_ok"]);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].starts_with(&format!(
            "plugin \"kit\": {} is not a valid hooks config: ",
            root.join("hooks/hooks.json").display()
        )),
        "{}",
        w[0]
    );
    assert_eq!(
        w[1],
        format!(
            "plugin \"kit\": {}: MCP server \"plugin_kit_bad\": missing required field \"command\"; server skipped",
            root.join(".mcp.json").display()
        )
    );
}

#[test]
fn plugin_dirs_in_the_runtime_json_must_be_absolute_paths() {
    let err = |dirs: serde_json::Value| {
        parse_runtime_config(&json!({"v":1,"providers":{},"plugin_dirs":dirs}).to_string())
            .err()
            .map(|e| e.message)
            .unwrap_or_default()
    };
    assert_eq!(
        err(json!(["rel/kit"])),
        "runtime config: field \"plugin_dirs\": \"rel/kit\" must be an absolute path"
    );
    assert_eq!(
        err(json!("/a")),
        "runtime config: field \"plugin_dirs\" must be an array of folder paths"
    );
    let ok =
        parse_runtime_config(&json!({"v":1,"providers":{},"plugin_dirs":["/a/kit"]}).to_string())
            .unwrap();
    assert_eq!(ok.plugin_dirs, [PathBuf::from("/a/kit")]);
}

/// A session of a runtime that registers `kit` gets its parts next to its own: commands and
/// skills, agents after the built-ins, the hook added to the session's, the server started.
#[test]
fn a_session_loads_the_host_plugin_and_enabled_project_plugins() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kit");
    kit(&root);
    let proj = dir.path().join("proj");
    manifest(&proj.join(".robota/plugins/extra"), "extra");
    write(
        &proj.join(".robota/plugins/extra/commands/go.md"),
        "Go now.",
    );
    write(
        &proj.join(".robota/plugins/broken/.claude-plugin/plugin.json"),
        "[]",
    );
    write(
        &proj.join(".robota/settings.json"),
        r#"{"enabledPlugins":{"extra":true}}"#,
    );
    let rt_json = json!({"v":1,"providers":{"s":{"kind":"scripted","turns":[{"text":"ok"}]}},
        "env":{"ROBOTA_HOME": dir.path().join("rhome"), "HOME": dir.path().join("home"), "KEY": "k"},
        "plugin_dirs":[root]});
    let rt = robota_engine::sdk::runtime::Runtime::from_json(&rt_json.to_string()).unwrap();
    let h = McpHost::open_in(
        rt,
        json!({"settings":"project","cwd":proj,"model":"m",
               "hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}),
    );
    // The server was started from the plugin folder (there is no such program there).
    let w = h.warnings();
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!(
        w[0],
        format!(
            "plugin manifest {}: must be a JSON object; plugin skipped",
            proj.join(".robota/plugins/broken/.claude-plugin/plugin.json")
                .display()
        )
    );
    assert!(
        w[1].starts_with("MCP server \"plugin_kit_db\" failed: "),
        "{}",
        w[1]
    );
    assert_eq!(
        h.json(robota_engine::sdk::events::WARNING)[0]["code"],
        "PLUGIN_INVALID"
    );
    let cfg = h.session.config();
    assert_eq!(cfg.params.plugins, ["kit", "extra"]);
    let skills: Vec<&str> = cfg.params.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(skills, ["kit:audit", "kit:lint", "extra:go"]);
    let agents: Vec<&str> = cfg
        .params
        .agents
        .all
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(
        agents,
        ["general-purpose", "Explore", "Plan", "kit:reviewer"]
    );
    let hooks = serde_json::to_value(cfg.hooks.unwrap()).unwrap();
    assert_eq!(hooks["Stop"][0]["hooks"][0]["command"], "true");
    assert_eq!(
        hooks["PreToolUse"][0]["hooks"][0]["command"],
        format!("{}/check.sh", root.display())
    );
    assert_eq!(h.servers()[0]["name"], "plugin_kit_db");
    assert_eq!(h.servers().as_array().map(Vec::len), Some(1));
}

/// A short name stands for the one plugin command that has it: not when two plugins have it,
/// never over a built-in's name.
#[test]
fn a_short_name_resolves_to_the_one_plugin_command_that_has_it() {
    let dir = tempfile::tempdir().unwrap();
    for (plugin, commands) in [("a", &["x", "y", "help"][..]), ("b", &["x"][..])] {
        let root = dir.path().join(plugin);
        manifest(&root, plugin);
        for c in commands {
            write(&root.join(format!("commands/{c}.md")), "Do it.");
        }
    }
    let rt_json = json!({"v":1,"providers":{"s":{"kind":"scripted","turns":[]}},
        "plugin_dirs":[dir.path().join("a"), dir.path().join("b")]});
    let rt = robota_engine::sdk::runtime::Runtime::from_json(&rt_json.to_string()).unwrap();
    let h = McpHost::open_in(rt, json!({"model":"m"}));
    let resolve =
        |n: &str| robota_engine::sdk::commands::registry::resolve_qualified_name(&h.session, n);
    assert_eq!(resolve("y").as_deref(), Some("a:y"));
    assert_eq!(resolve("b:x").as_deref(), Some("b:x"));
    assert_eq!(resolve("x"), None);
    assert_eq!(resolve("help").as_deref(), Some("help"));
    assert_eq!(resolve("z"), None);
}
