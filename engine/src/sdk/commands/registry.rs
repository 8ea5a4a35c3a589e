//! The command registry (agent-sdk `CommandRegistry`): the built-in system commands, host
//! commands and the session's skills, listed as structured data by `help` (all of them, or
//! those whose name starts with a prefix, for autocomplete), their subcommands (`mode`'s
//! modes), and skill invocation, by command (`{"name":"<skill>","args"}`) or by `/name args`
//! input: an inject-mode skill's text goes into the prompt, a `context: fork` skill's turn runs
//! it in a fork worker. Each invocation records a `skill-invocation` history entry.

use std::path::Path;

use serde_json::{json, Value};

use crate::sdk::commands::skills;
use crate::sdk::config::host_commands::BUILTIN_COMMANDS;
use crate::sdk::config::skill::Skill;
use crate::sdk::error::SdkResult;
use crate::sdk::interactive::{InteractiveSession, SkillInvocation, TurnInput};

/// One listed command: `{"name","description","argument_hint"?,"source"}`.
fn entry(name: &str, description: &str, hint: Option<&str>, source: &str) -> Value {
    let mut v = json!({"name": name, "description": description, "source": source});
    if let Some(h) = hint {
        v["argument_hint"] = json!(h);
    }
    v
}

/// `[{"name","description","argument_hint"?,"source","subcommands"?}]`: built-ins (with their
/// [`subcommands`]), then host commands (`"source":"host"`), then user-invocable skills
/// (`"source":"skill"`, or `"plugin"` with `"plugin":"<name>"` for a plugin's
/// `<plugin>:<name>` commands).
pub fn list(s: &InteractiveSession) -> Vec<Value> {
    let mut out: Vec<Value> = BUILTIN_COMMANDS
        .iter()
        .map(|(usage, desc)| {
            let (name, hint) = match usage.split_once(' ') {
                Some((n, h)) => (n, Some(h)),
                None => (*usage, None),
            };
            let mut e = entry(name, desc, hint, "builtin");
            if let Some(subs) = subcommands(name) {
                e["subcommands"] = Value::Array(subs);
            }
            e
        })
        .collect();
    let cfg = s.config();
    for c in cfg.params.commands.iter() {
        out.push(entry(
            &c.name,
            &c.description,
            c.argument_hint.as_deref(),
            "host",
        ));
    }
    for sk in cfg.params.skills.iter().filter(|k| k.user_invocable) {
        let mut v = entry(
            &sk.name,
            &sk.description,
            sk.argument_hint.as_deref(),
            "skill",
        );
        if let Some(plugin) = plugin_of(&cfg.params.plugins, &sk.name) {
            v["source"] = json!("plugin");
            v["plugin"] = json!(plugin);
        }
        out.push(v);
    }
    out
}

/// [`list`] narrowed to the commands whose name starts with `prefix` (all for `""`).
pub fn list_prefixed(s: &InteractiveSession, prefix: &str) -> Vec<Value> {
    list(s)
        .into_iter()
        .filter(|c| c["name"].as_str().is_some_and(|n| n.starts_with(prefix)))
        .collect()
}

/// The subcommands of built-in command `name` (`mode`: one per permission mode), each
/// `{"name","description","source":"builtin"}`; `None` when `name` has no subcommand tree.
pub fn subcommands(name: &str) -> Option<Vec<Value>> {
    const MODES: [(&str, &str); 4] = [
        ("plan", "Read-only: writes and shell denied"),
        ("default", "Ask before writes and shell"),
        ("acceptEdits", "Edits allowed, shell asks"),
        (
            "bypassPermissions",
            "Everything allowed (deny rules still win)",
        ),
    ];
    match name {
        "mode" => Some(
            MODES
                .iter()
                .map(|(n, d)| entry(n, d, None, "builtin"))
                .collect(),
        ),
        _ => None,
    }
}

/// The loaded plugin whose command `name` is (`<plugin>:<command>`).
fn plugin_of<'a>(plugins: &'a [String], name: &str) -> Option<&'a str> {
    let (plugin, _) = name.split_once(':')?;
    plugins.iter().map(String::as_str).find(|p| *p == plugin)
}

/// The full name `name` stands for (Robota's `resolveQualifiedName`): `name` itself when a
/// user-invocable skill, host or built-in command has it, else the one plugin command
/// `<plugin>:<name>` (`None` when there is none, or more than one plugin has it).
pub fn resolve_qualified_name(s: &InteractiveSession, name: &str) -> Option<String> {
    let cfg = s.config();
    let skills = cfg.params.skills.iter().filter(|k| k.user_invocable);
    if skills.clone().any(|k| k.name == name)
        || cfg.params.commands.iter().any(|c| c.name == name)
        || BUILTIN_COMMANDS
            .iter()
            .any(|(usage, _)| usage.split(' ').next() == Some(name))
    {
        return Some(name.to_string());
    }
    let mut found = skills.filter(|k| {
        plugin_of(&cfg.params.plugins, &k.name).is_some_and(|p| k.name[p.len() + 1..] == *name)
    });
    match (found.next(), found.next()) {
        (Some(k), None) => Some(k.name.clone()),
        _ => None,
    }
}

/// The user-invocable skill named `name`, or the one plugin command `<plugin>:<name>` when no
/// command has that name ([`resolve_qualified_name`]).
pub fn find_skill(s: &InteractiveSession, name: &str) -> Option<Skill> {
    let full = resolve_qualified_name(s, name)?;
    s.config()
        .params
        .skills
        .iter()
        .find(|k| k.name == full && k.user_invocable)
        .cloned()
}

/// `/name` or `/name args`.
fn typed(name: &str, args: &str) -> String {
    if args.trim().is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {}", args.trim())
    }
}

/// The turn input of invoking `skill` with `args`: the inject-mode prompt as its text (a fork
/// skill's turn sends nothing to the model: its text is what the user typed), and the
/// invocation it records.
fn skill_input(s: &InteractiveSession, skill: Skill, args: &str, shown: String) -> TurnInput {
    let text = if skills::is_fork(&skill) {
        shown.clone()
    } else {
        let cfg = s.config();
        skills::inject_prompt(&skill, args, s.session_id(), Path::new(&cfg.cwd))
    };
    TurnInput {
        text,
        display_input: Some(shown.clone()),
        raw_input: Some(shown.clone()),
        skill: Some(SkillInvocation {
            skill,
            args: args.trim().to_string(),
            display_input: shown,
        }),
        ..TurnInput::default()
    }
}

/// Runs skill `name` with `args` as a turn; `None` when no such skill exists.
pub fn invoke(s: &InteractiveSession, name: &str, args: &str) -> SdkResult<Option<Value>> {
    let Some(skill) = find_skill(s, name) else {
        return Ok(None);
    };
    let fork = skills::is_fork(&skill);
    let name = skill.name.clone();
    let turn = s.submit(skill_input(s, skill, args, typed(&name, args)))?;
    let mut data = json!({"skill": name, "turn_id": turn});
    if fork {
        data["context"] = json!("fork");
    }
    Ok(Some(
        json!({"v": 1, "message": format!("Skill \"{name}\" started."), "success": true,
                   "data": data}),
    ))
}

/// `/name args` input naming a user-invocable skill becomes the skill's turn (the typed text
/// stays the display and raw input); one naming a host command is marked to ask the host at
/// turn start ([`crate::sdk::commands::host::mark_input`]); any other input is returned unchanged.
pub fn expand_input(s: &InteractiveSession, input: TurnInput) -> SdkResult<TurnInput> {
    let Some(rest) = input.text.strip_prefix('/') else {
        return Ok(input);
    };
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let Some(skill) = find_skill(s, name) else {
        return Ok(crate::sdk::commands::host::mark_input(s, input));
    };
    let shown = input.display_input.clone().unwrap_or(input.text.clone());
    let mut out = skill_input(s, skill, args, shown);
    out.raw_input = input.raw_input.or(Some(input.text));
    out.tool_choice = input.tool_choice;
    out.output_schema = input.output_schema;
    out.images = input.images;
    Ok(out)
}
