//! Built-in system commands (help, clear, compact, mode, model, language, cost, context,
//! permissions, resume, rename, reset) run with `robota_session_command`:
//! `{"name":"…","args":"…"}` → `{"v":1,"message","success","data"?}`.

use serde_json::{json, Value};

use crate::core::permissions::PermissionMode;
use crate::core::util::format_thousands;
use crate::sdk::config::host_commands::BUILTIN_COMMANDS;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::interactive::InteractiveSession;

fn result(message: impl Into<String>, success: bool, data: Option<Value>) -> Value {
    let mut v = json!({"v": 1, "message": message.into(), "success": success});
    if let (Some(d), Value::Object(m)) = (data, &mut v) {
        m.insert("data".into(), d);
    }
    v
}

/// The `help` text of the built-ins whose name starts with `prefix`.
pub fn help_text(prefix: &str) -> String {
    let mut out = String::from("Available commands:");
    for (usage, desc) in BUILTIN_COMMANDS {
        if usage.starts_with(prefix) {
            out.push_str(&format!("\n  {usage} — {desc}"));
        }
    }
    out
}

/// Formats a percentage the way Robota prints numbers (no trailing `.0`).
fn pct(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{}", p as i64)
    } else {
        format!("{p}")
    }
}

/// Saves a renamed session when it lives in the session store (`persist`, or a file there).
fn persist_rename(s: &InteractiveSession) -> SdkResult<()> {
    if s.config().persist {
        return Ok(()); // `set_name` has saved it already
    }
    if crate::sdk::persistence::saved::exists(s.shared(), s.session_id()) {
        crate::sdk::persistence::snapshot::persist(s)?;
    }
    Ok(())
}

/// Parses `{"name","args"?}` and runs it.
pub fn execute_json(s: &InteractiveSession, command_json: &str) -> SdkResult<Value> {
    let map = crate::sdk::config::parse_object("command_json", command_json)?;
    crate::sdk::config::check_strict("command_json", &map, &["name", "args"])?;
    let name = match map.get("name") {
        Some(Value::String(n)) => n.clone(),
        Some(_) => {
            return Err(SdkError::config(
                "command_json: field \"name\" must be a string",
            ))
        }
        None => {
            return Err(SdkError::config(
                "command_json: missing required field \"name\"",
            ))
        }
    };
    let args = match map.get("args") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(a)) => a.clone(),
        Some(_) => {
            return Err(SdkError::config(
                "command_json: field \"args\" must be a string",
            ))
        }
    };
    execute(s, &name, &args)
}

/// A command's arguments: the whole text trimmed, and its first word.
struct Args<'a> {
    /// The argument text, trimmed.
    trimmed: &'a str,
    /// The first whitespace-separated word ("" when none).
    first: &'a str,
}

/// A built-in command's handler.
type Handler = fn(&InteractiveSession, &Args) -> SdkResult<Value>;

/// The built-in commands by name.
const HANDLERS: [(&str, Handler); 14] = [
    ("help", help),
    ("clear", clear),
    ("compact", compact),
    ("mode", mode),
    ("model", model),
    ("language", language),
    ("cost", cost),
    ("context", context),
    ("permissions", permissions),
    ("mcp", mcp),
    ("resume", resume),
    ("rename", rename),
    ("reset", reset),
    ("cancel_queue", cancel_queue),
];

/// Runs command `name` with `args`: a built-in, else a skill or registry command, else a
/// host command. Unknown names are [`ErrorCode::NotFound`].
pub fn execute(s: &InteractiveSession, name: &str, args: &str) -> SdkResult<Value> {
    let trimmed = args.trim();
    let first = trimmed.split_whitespace().next().unwrap_or("");
    if let Some((_, handler)) = HANDLERS.iter().find(|(n, _)| *n == name) {
        return handler(s, &Args { trimmed, first });
    }
    if let Some(r) = crate::sdk::commands::registry::invoke(s, name, args)? {
        return Ok(r);
    }
    if let Some(r) = crate::sdk::commands::host::execute(s, name, args)? {
        return Ok(r);
    }
    let listed = crate::sdk::commands::registry::list(s);
    let names: Vec<&str> = listed.iter().filter_map(|c| c["name"].as_str()).collect();
    Err(SdkError::new(
        ErrorCode::NotFound,
        format!(
            "unknown command \"{name}\" (available: {})",
            names.join(", ")
        ),
    ))
}

/// `help [prefix]`: the built-ins, then host commands, skills and plugin commands (only those whose name starts
/// with `prefix`, for autocomplete); `data.commands` lists them, each built-in with a subcommand
/// tree (`mode`) carrying its `subcommands`.
fn help(s: &InteractiveSession, a: &Args) -> SdkResult<Value> {
    let commands = crate::sdk::commands::registry::list_prefixed(s, a.first);
    let mut text = help_text(a.first);
    for (source, title) in [
        ("host", "Host commands:"),
        ("skill", "Skills:"),
        ("plugin", "Plugin commands:"),
    ] {
        let listed: Vec<&Value> = commands.iter().filter(|c| c["source"] == source).collect();
        if !listed.is_empty() {
            text.push('\n');
            text.push_str(title);
        }
        for c in listed {
            let name = c["name"].as_str().unwrap_or("");
            let desc = c["description"].as_str().unwrap_or("");
            text.push_str(&format!("\n  /{name} — {desc}"));
        }
    }
    Ok(result(text, true, Some(json!({ "commands": commands }))))
}

/// `clear`: drops the conversation history.
fn clear(s: &InteractiveSession, _: &Args) -> SdkResult<Value> {
    s.clear()?;
    Ok(result("Conversation cleared.", true, None))
}

/// `compact [instructions]`: compacts the context now.
fn compact(s: &InteractiveSession, a: &Args) -> SdkResult<Value> {
    Ok(match s.compact(a.trimmed)? {
        Ok(c) => result(
            format!(
                "Context compacted: {}% -> {}%",
                pct(c.before.used_percentage),
                pct(c.after.used_percentage)
            ),
            true,
            Some(json!({"before": c.before.used_percentage,
                        "after": c.after.used_percentage,
                        "summary": c.summary})),
        ),
        Err(e) => result(format!("Context not compacted: {e}"), false, None),
    })
}

/// `mode [m]`: shows or sets the permission mode.
fn mode(s: &InteractiveSession, a: &Args) -> SdkResult<Value> {
    if a.first.is_empty() {
        let m = s.permission_state().mode.as_str();
        return Ok(result(
            format!("Current mode: {m}"),
            true,
            Some(json!({"mode": m})),
        ));
    }
    Ok(match a.first.parse::<PermissionMode>() {
        Ok(m) => {
            s.set_permission_mode(m);
            result(
                format!("Permission mode set to: {}", m.as_str()),
                true,
                Some(json!({"mode": m.as_str()})),
            )
        }
        Err(_) => result(
            "Invalid mode. Valid: plan | default | acceptEdits | bypassPermissions",
            false,
            None,
        ),
    })
}

/// `model <id>`: changes the model.
fn model(s: &InteractiveSession, a: &Args) -> SdkResult<Value> {
    if a.first.is_empty() {
        return Ok(result("Usage: model <model-id>", false, None));
    }
    s.set_model(a.first)?;
    Ok(result(
        format!("Model change requested: {}", a.first),
        true,
        Some(json!({"modelId": a.first})),
    ))
}

/// `language <code>`: sets the response language.
fn language(s: &InteractiveSession, a: &Args) -> SdkResult<Value> {
    if a.first.is_empty() {
        return Ok(result(
            "Usage: language <code> (e.g., ko, en, ja, zh)",
            false,
            None,
        ));
    }
    s.set_language(a.first)?;
    Ok(result(
        format!("Language set to \"{}\".", a.first),
        true,
        Some(json!({"language": a.first})),
    ))
}

/// `cost`: session id, message count and budget spend.
fn cost(s: &InteractiveSession, _: &Args) -> SdkResult<Value> {
    let n = s.message_count();
    let mut text = format!("Session: {}\nMessages: {n}", s.session_id());
    let mut data = json!({"sessionId": s.session_id(), "messageCount": n});
    if let Some(b) = s.budget() {
        let (lines, view) = crate::sdk::config::session_budget::cost_view(b);
        text = format!("{text}\n{lines}");
        data["budget"] = view;
    }
    Ok(result(text, true, Some(data)))
}

/// `context`: token usage.
fn context(s: &InteractiveSession, _: &Args) -> SdkResult<Value> {
    let ctx = s.context_state();
    let used = ctx["used_tokens"].as_u64().unwrap_or(0);
    let max = ctx["max_tokens"].as_u64().unwrap_or(0);
    let p = ctx["used_percentage"].as_f64().unwrap_or(0.0);
    Ok(result(
        format!(
            "Context: {} / {} tokens ({}%)",
            format_thousands(used),
            format_thousands(max),
            pct(p)
        ),
        true,
        Some(json!({"usedTokens": used, "maxTokens": max, "percentage": p})),
    ))
}

/// `permissions`: the mode and the session-approved tools.
fn permissions(s: &InteractiveSession, _: &Args) -> SdkResult<Value> {
    let p = s.permission_state();
    let tools: Vec<String> = p.session_allowed.iter().cloned().collect();
    let second = if tools.is_empty() {
        "No session-approved tools.".to_string()
    } else {
        format!("Session-approved tools: {}", tools.join(", "))
    };
    Ok(result(
        format!("Permission mode: {}\n{second}", p.mode.as_str()),
        true,
        Some(json!({"mode": p.mode.as_str(), "sessionApprovedTools": tools})),
    ))
}

/// `mcp`: MCP servers and their states.
fn mcp(s: &InteractiveSession, _: &Args) -> SdkResult<Value> {
    let servers = s.mcp_state();
    let text = crate::sdk::mcp::SessionMcp::describe(&servers);
    Ok(result(text, true, Some(json!({ "servers": servers }))))
}

/// `resume [id]`: asks the host to open its session picker, with the stored sessions.
fn resume(s: &InteractiveSession, a: &Args) -> SdkResult<Value> {
    let listing = crate::sdk::persistence::saved::list(s.shared(), None, None)?;
    let mut data = json!({"triggerResumePicker": true, "sessions": listing["sessions"]});
    if !a.first.is_empty() {
        data["resumeSessionId"] = json!(a.first);
    }
    Ok(result("Opening session picker...", true, Some(data)))
}

/// `rename <name>`: renames the session (and saves it when stored).
fn rename(s: &InteractiveSession, a: &Args) -> SdkResult<Value> {
    if a.trimmed.is_empty() {
        return Ok(result("Usage: rename <name>", false, None));
    }
    s.set_name(a.trimmed);
    persist_rename(s)?;
    Ok(result(
        format!("Session renamed to \"{}\".", a.trimmed),
        true,
        Some(json!({"name": a.trimmed})),
    ))
}

/// `reset`: tells the host to delete its settings and exit.
fn reset(_: &InteractiveSession, _: &Args) -> SdkResult<Value> {
    Ok(result(
        "Reset requested.",
        true,
        Some(json!({"resetRequested": true})),
    ))
}

/// `cancel_queue`: drops the queued prompt, leaving the running one.
fn cancel_queue(s: &InteractiveSession, _: &Args) -> SdkResult<Value> {
    Ok(match s.cancel_queue() {
        Some(id) => result(
            format!("Queued prompt cancelled (turn {id})."),
            true,
            Some(json!({"turn_id": id})),
        ),
        None => result("No queued prompt.", true, None),
    })
}
