//! The command registry (agent-sdk `CommandRegistry`): the built-in system commands plus the
//! session's skills, listed as structured data by `help`, and skill invocation, by command
//! (`{"name":"<skill>","args"}`) or by `/name args` input (inject mode: the skill's text goes
//! into the prompt).

use std::path::Path;

use serde_json::{json, Value};

use crate::sdk::commands::skills::{self, FORK_UNAVAILABLE};
use crate::sdk::config::host_commands::BUILTIN_COMMANDS;
use crate::sdk::config::skill::Skill;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::interactive::{InteractiveSession, TurnInput};

/// `[{"name","description","argument_hint"?,"source"}]`: built-ins, then host commands
/// (`"source":"host"`), then user-invocable skills (`"source":"skill"`, or `"plugin"` with
/// `"plugin":"<name>"` for a plugin's `<plugin>:<name>` commands).
pub fn list(s: &InteractiveSession) -> Vec<Value> {
    let mut out: Vec<Value> = BUILTIN_COMMANDS
        .iter()
        .map(|(usage, desc)| {
            let mut parts = usage.splitn(2, ' ');
            let name = parts.next().unwrap_or(usage);
            let mut v = json!({"name": name, "description": desc, "source": "builtin"});
            if let Some(hint) = parts.next() {
                v["argument_hint"] = json!(hint);
            }
            v
        })
        .collect();
    let cfg = s.config();
    for c in cfg.params.commands.iter() {
        let mut v = json!({"name": c.name, "description": c.description, "source": "host"});
        if let Some(h) = &c.argument_hint {
            v["argument_hint"] = json!(h);
        }
        out.push(v);
    }
    for sk in cfg.params.skills.iter().filter(|k| k.user_invocable) {
        let mut v = json!({"name": sk.name, "description": sk.description, "source": "skill"});
        if let Some(plugin) = plugin_of(&cfg.params.plugins, &sk.name) {
            v["source"] = json!("plugin");
            v["plugin"] = json!(plugin);
        }
        if let Some(h) = &sk.argument_hint {
            v["argument_hint"] = json!(h);
        }
        out.push(v);
    }
    out
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

/// The prompt a skill invocation submits (`context: fork` is not available yet).
fn skill_prompt(s: &InteractiveSession, skill: &Skill, args: &str) -> SdkResult<String> {
    if skill.context.as_deref() == Some("fork") {
        return Err(SdkError::new(ErrorCode::Unsupported, FORK_UNAVAILABLE));
    }
    let cfg = s.config();
    Ok(skills::inject_prompt(
        skill,
        args,
        s.session_id(),
        Path::new(&cfg.cwd),
    ))
}

/// Runs skill `name` with `args` as a prompt; `None` when no such skill exists.
pub fn invoke(s: &InteractiveSession, name: &str, args: &str) -> SdkResult<Option<Value>> {
    let Some(skill) = find_skill(s, name) else {
        return Ok(None);
    };
    let text = skill_prompt(s, &skill, args)?;
    let name = skill.name.as_str();
    let shown = if args.trim().is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {}", args.trim())
    };
    let turn = s.submit(TurnInput {
        text,
        display_input: Some(shown.clone()),
        raw_input: Some(shown),
        tool_choice: None,
        host_command: None,
        images: Vec::new(),
    })?;
    Ok(Some(
        json!({"v": 1, "message": format!("Skill \"{name}\" started."), "success": true,
                   "data": {"skill": name, "turn_id": turn}}),
    ))
}

/// `/name args` input naming a user-invocable skill becomes the skill's prompt (the typed text
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
    let text = skill_prompt(s, &skill, args)?;
    Ok(TurnInput {
        display_input: input.display_input.or_else(|| Some(input.text.clone())),
        raw_input: input.raw_input.or_else(|| Some(input.text.clone())),
        tool_choice: input.tool_choice,
        host_command: None,
        images: input.images,
        text,
    })
}
