//! Agent definitions (first name wins): `*.md` files with frontmatter in the project and user
//! directories (priority, bad files as warnings), a project file used through the session, and
//! the session JSON's `"agents"` checked field by field.

use robota_engine::sdk::config::parse_session_config;
use robota_engine::sdk::events;
use robota_engine::sdk::subagent::defs;
use robota_engine::sdk::subagent::runner::SUBAGENT_SUFFIX;
use serde_json::json;

use crate::support::fake_server::FakeServer;
use crate::support::subagent_host::{call, json_of, messages, runtime, text, tool_names, Parent};

#[test]
fn agent_files_are_read_with_frontmatter_and_bad_ones_are_warnings() {
    let root = tempfile::tempdir().unwrap();
    let proj = root.path().join("proj");
    let rhome = root.path().join("rhome");
    let home = root.path().join("home");
    for d in [
        proj.join(".robota/agents"),
        proj.join(".claude/agents"),
        rhome.join("agents"),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(
        proj.join(".robota/agents/fixer.md"),
        "---\ndescription: Fixes bugs\ntools: Read, Edit\ndisallowedTools: Bash\nmodel: sonnet\nmaxTurns: 7\nmax-turns: 99\n---\n\nYou fix bugs.\n",
    )
    .unwrap();
    // Lower priority: same name loses; a file without frontmatter is all body.
    std::fs::write(proj.join(".claude/agents/fixer.md"), "Other fixer.").unwrap();
    std::fs::write(rhome.join("agents/plain.md"), "Just a body.").unwrap();
    std::fs::write(proj.join(".claude/agents/broken.md"), "---\nname: broken\n").unwrap();
    let mut warnings = Vec::new();
    let all = defs::collect(
        &[],
        &proj,
        &[rhome.as_path(), home.join(".claude").as_path()],
        true,
        &mut warnings,
    );
    let names: Vec<&str> = all.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["fixer", "plain", "general-purpose", "Explore", "Plan"]
    );
    let fixer = &all[0];
    assert_eq!(fixer.description, "Fixes bugs");
    assert_eq!(fixer.prompt, "You fix bugs.");
    assert_eq!(fixer.model.as_deref(), Some("claude-sonnet-4-6"));
    assert_eq!(fixer.max_turns, Some(7));
    assert_eq!(
        fixer.tools,
        Some(vec!["Read".to_string(), "Edit".to_string()])
    );
    assert_eq!(fixer.disallowed_tools, ["Bash"]);
    assert_eq!(all[1].prompt, "Just a body.");
    assert_eq!(all[1].description, "");
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        warnings[0],
        format!(
            "agent definition {} skipped: the frontmatter block opened with --- is never closed",
            proj.join(".claude/agents/broken.md").display()
        )
    );
}

#[test]
fn a_project_agent_file_runs_through_the_session() {
    let root = tempfile::tempdir().unwrap();
    let proj = root.path().join("proj");
    std::fs::create_dir_all(proj.join(".robota/agents")).unwrap();
    std::fs::write(
        proj.join(".robota/agents/lister.md"),
        "---\nname: lister\ndescription: Lists\ntools: Glob\n---\nList files.",
    )
    .unwrap();
    std::fs::write(proj.join("CLAUDE.md"), "Project rule.").unwrap();
    std::fs::write(proj.join(".robota/agents/bad.md"), "---\nname: bad\n").unwrap();
    let server = FakeServer::start();
    let env = json!({"HOME": root.path().join("home"), "ROBOTA_HOME": root.path().join("rhome")});
    let rt = runtime(&server, env);
    let mut p = Parent::open(
        &rt,
        json!({"cwd": proj, "settings": "project", "tools": ["Glob", "Read", "Agent"]}),
    );
    p.session.emit_startup_warnings();
    let w = json_of(&p.until(|e| e.kind == events::WARNING));
    assert_eq!(w["code"], "AGENT_INVALID");
    assert_eq!(
        w["message"],
        format!(
            "agent definition {} skipped: the frontmatter block opened with --- is never closed",
            proj.join(".robota/agents/bad.md").display()
        )
    );
    server.enqueue(call(
        "call_1",
        "Agent",
        json!({"prompt": "list", "subagent_type": "lister"}),
    ));
    server.enqueue(text("a, b"));
    server.enqueue(text("ok"));
    p.turn("go");
    let reqs = server.requests();
    assert_eq!(
        messages(&reqs[1].body)[0].1,
        format!("List files.\n\nProject rule.\n\n{SUBAGENT_SUFFIX}")
    );
    assert_eq!(tool_names(&reqs[1].body), ["Glob"]);
    // The parent's assembled prompt lists the agents it can delegate to (project file first,
    // then the built-ins).
    let parent_prompt = &messages(&reqs[0].body)[0].1;
    assert!(
        parent_prompt.contains(
            "## Agents\n- lister: Lists\n\
             - general-purpose: General-purpose task execution agent with full tool access.\n\
             - Explore: Read-only codebase exploration and analysis agent.\n\
             - Plan: Read-only planning, research, and architecture agent."
        ),
        "{parent_prompt}"
    );
    // A session without the Agent tool has no Agents section.
    let mut q = Parent::open(
        &rt,
        json!({"cwd": proj, "settings": "project", "tools": ["Glob"]}),
    );
    server.enqueue(text("plain"));
    q.turn("hi");
    let reqs = server.requests();
    assert!(!messages(&reqs[reqs.len() - 1].body)[0]
        .1
        .contains("## Agents"));
}

#[test]
fn session_json_agents_must_be_well_formed() {
    for (agents, msg) in [
        (
            json!([]),
            "session config: field \"agents\" must be an object keyed by agent name",
        ),
        (
            json!({"a": {"description": "d"}}),
            "session config: agent \"a\": missing required field \"prompt\"",
        ),
        (
            json!({"a": {"prompt": 1}}),
            "session config: agent \"a\": field \"prompt\" must be a string",
        ),
        (
            json!({"a": {"prompt": "p", "tools": "Read"}}),
            "session config: agent \"a\": field \"tools\" must be an array of tool names",
        ),
        (
            json!({"a": {"prompt": "p", "description": ["d"]}}),
            "session config: agent \"a\": field \"description\" must be a string",
        ),
        (
            json!({"a": {"prompt": "p", "model": 4}}),
            "session config: agent \"a\": field \"model\" must be a string",
        ),
        // `strict` has no effect, but it is a boolean, as the schema says.
        (
            json!({"a": {"prompt": "p", "strict": "yes"}}),
            "session config: agent \"a\": field \"strict\" must be true or false",
        ),
        (
            json!({"": {"prompt": "p"}}),
            "session config: field \"agents\": an agent name must not be empty",
        ),
        (
            json!({"a": "p"}),
            "session config: agent \"a\" must be {\"description\",\"prompt\",\"tools\"?,\"model\"?}",
        ),
    ] {
        let e =
            parse_session_config(&json!({"provider":"p","model":"m","agents": agents}).to_string())
                .unwrap_err();
        assert_eq!(e.message, msg);
    }
}

#[test]
fn session_json_agents_keep_their_order_and_default_the_description() {
    let c = parse_session_config(
        &json!({"provider":"p","model":"m","agents": {
            "zeta": {"prompt": "z", "strict": true},
            "alpha": {"description": "a", "prompt": "a", "tools": ["Read"], "model": "haiku"}
        }})
        .to_string(),
    )
    .unwrap();
    let agents = c.params.agents.session.unwrap();
    let described: Vec<(&str, &str, &str, Option<&str>)> = agents
        .iter()
        .map(|a| {
            (
                a.name.as_str(),
                a.description.as_str(),
                a.prompt.as_str(),
                a.model.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        described,
        vec![
            ("zeta", "", "z", None),
            ("alpha", "a", "a", Some("claude-haiku-4-5")),
        ]
    );
    assert_eq!(agents[0].tools, None);
    assert_eq!(agents[1].tools, Some(vec!["Read".to_string()]));
}
