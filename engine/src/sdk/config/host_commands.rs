//! The session JSON's `"commands"` (host-registered commands; the `commands` folder runs them):
//! the document's form, and the built-in names they may not take.

use serde::Deserialize;
use serde_json::{json, Value};

use super::document::CommandDocument;
use crate::sdk::error::{SdkError, SdkResult};

/// Commands and their one-line descriptions, in `help` order.
pub const BUILTIN_COMMANDS: [(&str, &str); 14] = [
    (
        "help [prefix]",
        "Show available commands (those starting with the prefix)",
    ),
    ("clear", "Clear conversation history"),
    (
        "compact [instr]",
        "Compress context window (optional focus instructions)",
    ),
    ("mode [m]", "Show or change permission mode"),
    ("model <id>", "Change AI model"),
    ("language <code>", "Set response language"),
    ("cost", "Session ID, message count and budget spend"),
    ("context", "Token usage: used / max / percentage"),
    ("permissions", "Current mode and session-approved tools"),
    ("mcp", "MCP servers: state and tool counts"),
    ("resume", "Open the session picker"),
    ("rename <name>", "Rename the session"),
    ("reset", "Delete settings and exit"),
    (
        "cancel_queue",
        "Drop the queued prompt without aborting the running one",
    ),
];

/// One host command.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCommand {
    /// Command name (`[A-Za-z0-9_:-]+`, not a built-in's).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Argument hint shown after the name (`<env>`).
    pub argument_hint: Option<String>,
}

/// The session JSON's `commands` as their documents: an array of objects with no unknown keys
/// that deserialize into [`CommandDocument`].
pub fn documents(what: &str, v: &Value) -> SdkResult<Vec<CommandDocument>> {
    let shape = || {
        SdkError::config(format!(
            "{what}: field \"commands\" must be an array of {{\"name\",\"description\",\"argument_hint\"?}}"
        ))
    };
    let items = v.as_array().ok_or_else(shape)?;
    items
        .iter()
        .map(|item| {
            let m = item.as_object().ok_or_else(shape)?;
            crate::sdk::config::check_strict(
                &format!("{what}: field \"commands\""),
                m,
                super::document::keys::<CommandDocument>(),
            )?;
            CommandDocument::deserialize(item).map_err(|_| shape())
        })
        .collect()
}

/// The commands of the documents, refusing invalid and taken names.
pub fn parse(what: &str, docs: Vec<CommandDocument>) -> SdkResult<Vec<HostCommand>> {
    let mut out: Vec<HostCommand> = Vec::with_capacity(docs.len());
    for CommandDocument {
        name,
        description,
        argument_hint,
    } in docs
    {
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':'));
        if !valid {
            return Err(SdkError::config(format!(
                "{what}: command name \"{name}\" must be letters, digits, '_', '-' or ':'"
            )));
        }
        if is_builtin(&name) || out.iter().any(|c| c.name == name) {
            return Err(SdkError::config(format!(
                "{what}: command \"{name}\" is already defined (built-in commands and earlier entries keep their names)"
            )));
        }
        out.push(HostCommand {
            name,
            description,
            argument_hint,
        });
    }
    Ok(out)
}

fn is_builtin(name: &str) -> bool {
    BUILTIN_COMMANDS
        .iter()
        .any(|(usage, _)| usage.split(' ').next() == Some(name))
}

/// The commands as the session JSON has them (snapshot/fork).
pub fn to_json(cmds: &[HostCommand]) -> Value {
    Value::Array(
        cmds.iter()
            .map(|c| {
                let mut v = json!({"name": c.name, "description": c.description});
                if let Some(h) = &c.argument_hint {
                    v["argument_hint"] = json!(h);
                }
                v
            })
            .collect(),
    )
}
