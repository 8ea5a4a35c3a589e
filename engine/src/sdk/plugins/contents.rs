//! What one plugin folder brings (Claude Code's layout): `commands/*.md` and
//! `skills/<name>/SKILL.md` (commands named `<plugin>:<name>`), `agents/*.md` (agents named
//! `<plugin>:<name>`), `hooks/hooks.json` (`{"hooks":{…}}` or the event map itself) and
//! `.mcp.json` (`{"mcpServers":{…}}` or the server map itself; servers named
//! `plugin_<plugin>_<server>`, so tools are `mcp__plugin_<plugin>_<server>__<tool>`).
//! `${CLAUDE_PLUGIN_ROOT}` and `${ROBOTA_PLUGIN_ROOT}` become the plugin folder in command and
//! skill text, hook definitions and server definitions, and hook processes get both as environment
//! variables. A bad file is a warning naming it; the
//! rest of the plugin still loads.

use std::path::Path;

use serde_json::Value;

use super::discover::Plugin;
use crate::core::hooks::HooksConfig;
use crate::sdk::commands::skills::{self, base_name, entries};
use crate::sdk::config::agents::AgentDef;
use crate::sdk::config::skill::Skill;
use crate::sdk::mcp::config::{parse_server, McpServerDef};
use crate::sdk::subagent::defs;

/// The variables replaced by the plugin folder.
pub const ROOT_VARIABLES: [&str; 2] = ["${CLAUDE_PLUGIN_ROOT}", "${ROBOTA_PLUGIN_ROOT}"];

/// The environment variables a plugin's hooks get, set to the plugin folder.
pub const ROOT_ENV: [&str; 2] = ["CLAUDE_PLUGIN_ROOT", "ROBOTA_PLUGIN_ROOT"];

/// Everything a plugin contributes to a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PluginContents {
    /// Its commands, then its skills (qualified names).
    pub skills: Vec<Skill>,
    /// Its agent definitions (qualified names).
    pub agents: Vec<AgentDef>,
    /// Its hooks (`None` when it has no valid hooks file).
    pub hooks: Option<HooksConfig>,
    /// Its MCP servers.
    pub mcp_servers: Vec<McpServerDef>,
}

/// `<plugin>:<name>`.
pub fn qualified(plugin: &str, name: &str) -> String {
    format!("{plugin}:{name}")
}

/// The name a plugin's MCP server gets: `plugin_<plugin>_<server>`, characters other than
/// letters, digits, `-` and `_` replaced by `_`.
pub fn mcp_server_name(plugin: &str, server: &str) -> String {
    format!("plugin_{plugin}_{server}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `text` with the root variables replaced by `root`.
pub fn substitute_root(text: &str, root: &Path) -> String {
    let root = root.display().to_string();
    ROOT_VARIABLES
        .iter()
        .fold(text.to_string(), |t, v| t.replace(v, &root))
}

/// Every string of `v` with the root variables replaced.
fn substitute_value(v: Value, root: &Path) -> Value {
    match v {
        Value::String(s) => Value::String(substitute_root(&s, root)),
        Value::Array(a) => Value::Array(a.into_iter().map(|x| substitute_value(x, root)).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| (k, substitute_value(x, root)))
                .collect(),
        ),
        other => other,
    }
}

/// The JSON object of `file` (`None` when absent; a warning when unreadable or not an object),
/// the root variables replaced, unwrapped from `wrapper` when it has that key.
fn json_file(p: &Plugin, file: &Path, wrapper: &str, warnings: &mut Vec<String>) -> Option<Value> {
    let text = std::fs::read_to_string(file).ok()?;
    let doc = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut m)) => match m.remove(wrapper) {
            Some(inner) => inner,
            None => Value::Object(m),
        },
        Ok(_) => {
            warnings.push(file_warning(p, file, "must be a JSON object"));
            return None;
        }
        Err(e) => {
            warnings.push(file_warning(p, file, &format!("is not valid JSON ({e})")));
            return None;
        }
    };
    Some(substitute_value(doc, &p.root))
}

fn file_warning(p: &Plugin, file: &Path, what: &str) -> String {
    format!(
        "plugin \"{}\": {} {what}; file skipped",
        p.name(),
        file.display()
    )
}

fn commands(p: &Plugin, warnings: &mut Vec<String>) -> Vec<Skill> {
    let mut files: Vec<(std::path::PathBuf, String)> = entries(&p.root.join("commands"))
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "md") && f.is_file())
        .map(|f| {
            let name = base_name(&f);
            (f, name)
        })
        .collect();
    for d in entries(&p.root.join("skills")) {
        let f = d.join("SKILL.md");
        if f.is_file() {
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            files.push((f, name));
        }
    }
    let mut out: Vec<Skill> = Vec::new();
    for (file, fallback) in files {
        let Some(mut s) = skills::parse(&file, &fallback, warnings) else {
            continue;
        };
        s.name = qualified(p.name(), &s.name);
        s.content = substitute_root(&s.content, &p.root);
        if !out.iter().any(|o| o.name == s.name) {
            out.push(s);
        }
    }
    out
}

fn agents(p: &Plugin, warnings: &mut Vec<String>) -> Vec<AgentDef> {
    let mut out: Vec<AgentDef> = Vec::new();
    for f in entries(&p.root.join("agents")) {
        if !(f.extension().is_some_and(|e| e == "md") && f.is_file()) {
            continue;
        }
        if let Some(mut d) = defs::parse_file(&f, warnings) {
            d.name = qualified(p.name(), &d.name);
            d.prompt = substitute_root(&d.prompt, &p.root);
            if !out.iter().any(|o| o.name == d.name) {
                out.push(d);
            }
        }
    }
    out
}

fn hooks(p: &Plugin, warnings: &mut Vec<String>) -> Option<HooksConfig> {
    let file = p.root.join("hooks/hooks.json");
    let doc = json_file(p, &file, "hooks", warnings)?;
    match HooksConfig::from_json(&doc) {
        Ok(mut h) => {
            // The hooks' processes see the plugin folder as CLAUDE_PLUGIN_ROOT and
            // ROBOTA_PLUGIN_ROOT (a group's own `env` keys win).
            let root = p.root.display().to_string();
            for g in h.events.values_mut().flatten() {
                let env = g.env.get_or_insert_with(Default::default);
                for var in ROOT_ENV {
                    env.entry(var.to_string()).or_insert_with(|| root.clone());
                }
            }
            Some(h)
        }
        Err(e) => {
            warnings.push(file_warning(
                p,
                &file,
                &format!("is not a valid hooks config: {e}"),
            ));
            None
        }
    }
}

fn mcp_servers(p: &Plugin, session_cwd: &str, warnings: &mut Vec<String>) -> Vec<McpServerDef> {
    let file = p.root.join(".mcp.json");
    let Some(doc) = json_file(p, &file, "mcpServers", warnings) else {
        return Vec::new();
    };
    let Value::Object(servers) = doc else {
        warnings.push(file_warning(
            p,
            &file,
            "must map server names to definitions",
        ));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, v) in servers {
        match parse_server(&mcp_server_name(p.name(), &name), &v, session_cwd) {
            Ok(d) => out.push(d),
            Err(e) => warnings.push(format!(
                "plugin \"{}\": {}: {e}; server skipped",
                p.name(),
                file.display()
            )),
        }
    }
    out
}

/// Reads what plugin `p` brings; `session_cwd` anchors a server's relative `cwd`.
pub fn load(p: &Plugin, session_cwd: &str, warnings: &mut Vec<String>) -> PluginContents {
    PluginContents {
        skills: commands(p, warnings),
        agents: agents(p, warnings),
        hooks: hooks(p, warnings),
        mcp_servers: mcp_servers(p, session_cwd, warnings),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_names_are_tool_name_safe() {
        assert_eq!(mcp_server_name("my.plug", "db"), "plugin_my_plug_db");
        assert_eq!(
            substitute_root(
                "${CLAUDE_PLUGIN_ROOT}/a ${ROBOTA_PLUGIN_ROOT}",
                Path::new("/p")
            ),
            "/p/a /p"
        );
    }
}
