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
/// (`"source":"host"`), then user-invocable skills.
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
        if let Some(h) = &sk.argument_hint {
            v["argument_hint"] = json!(h);
        }
        out.push(v);
    }
    out
}

/// The user-invocable skill named `name`.
pub fn find_skill(s: &InteractiveSession, name: &str) -> Option<Skill> {
    s.config()
        .params
        .skills
        .iter()
        .find(|k| k.name == name && k.user_invocable)
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
