//! System prompt assembly (lower priority number first): sections `{id, title, priority, content}`,
//! empty ones dropped, sorted by priority then id, each rendered `## <title>\n<trimmed content>`,
//! joined by a blank line; the host's prompt appended after a blank line (or replacing the whole,
//! with `"system_prompt_mode":"replace"`).

use std::path::PathBuf;

use super::context::ProjectContext;
use super::detect::ProjectInfo;
use crate::core::permissions::PermissionMode;

/// Robota's one-liner for a built-in tool.
pub fn builtin_one_liner(name: &str) -> Option<&'static str> {
    Some(match name {
        "Bash" => "Bash — execute shell commands",
        "Read" => "Read — read file contents with line numbers",
        "Write" => "Write — write content to a file",
        "Edit" => "Edit — replace a string in a file",
        "Glob" => "Glob — find files matching a pattern",
        "Grep" => "Grep — search file contents with regex",
        "WebFetch" => "WebFetch — fetch URL content as text",
        "WebSearch" => "WebSearch — search the internet through the configured local tool",
        "Skill" => "Skill — run one of the skills listed under Skills",
        _ => return None,
    })
}

/// The tool line of the provider's own web search (`"native_web_search": true`).
pub const NATIVE_WEB_SEARCH_LINE: &str =
    "web_search — search the internet through the provider's native web search";

/// A tool's line: the built-in one-liner, else `<name> — <first line of its description>`.
pub fn tool_line(name: &str, description: &str) -> String {
    match builtin_one_liner(name) {
        Some(l) => l.to_string(),
        None => {
            let first = description.lines().next().unwrap_or("").trim();
            if first.is_empty() {
                name.to_string()
            } else {
                format!("{name} — {first}")
            }
        }
    }
}

/// Everything the prompt is built from (kept by the session so `language` can rebuild it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptInputs {
    /// Absolute working directory.
    pub cwd: PathBuf,
    /// AGENTS.md / CLAUDE.md / MEMORY.md.
    pub context: ProjectContext,
    /// Detected project.
    pub project: ProjectInfo,
    /// The session's permission mode in force (the trust level is derived from it, see
    /// [`trust_level_of`]); the `mode` command refreshes it.
    pub mode: PermissionMode,
    /// One line per tool, in tool order.
    pub tool_lines: Vec<String>,
    /// `<name>[ <hint>]: <description>` per model-invocable skill (empty unless the session
    /// offers the `Skill` tool: the prompt lists only what the model can invoke).
    pub skill_lines: Vec<String>,
    /// `<name>: <description>` per agent definition the session can delegate to (see
    /// [`agent_lines`]; empty while no agent runtime is enabled, so the section is dropped).
    pub agent_lines: Vec<String>,
    /// The host's `system_prompt`.
    pub host_prompt: Option<String>,
    /// Use the host's prompt alone.
    pub replace: bool,
}

/// A command/skill/agent descriptor line: `<name>[ <hint>]: <description>`.
pub fn descriptor_line(name: &str, hint: Option<&str>, description: &str) -> String {
    match hint.filter(|h| !h.is_empty()) {
        Some(h) => format!("{name} {h}: {description}"),
        None => format!("{name}: {description}"),
    }
}

/// The Robota trust level of a permission mode: `plan` → `safe`, `default` → `moderate`,
/// `acceptEdits` and `bypassPermissions` → `full`.
pub fn trust_level_of(mode: PermissionMode) -> &'static str {
    match mode {
        PermissionMode::Plan => "safe",
        PermissionMode::Default => "moderate",
        PermissionMode::AcceptEdits | PermissionMode::BypassPermissions => "full",
    }
}

/// The "Permission Mode" section: the trust level, then the exact mode (two modes share `full`).
fn permission_section(mode: PermissionMode) -> String {
    format!(
        "- **Trust level:** {}\n- **Mode:** {}",
        trust_level_of(mode),
        mode.as_str()
    )
}

/// The "Agents" lines of `(name, description)` agent definitions, in the given order.
pub fn agent_lines<'a>(defs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    defs.into_iter()
        .map(|(n, d)| descriptor_line(n, None, d))
        .collect()
}

fn bullets(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("- {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Builds the prompt with response language `language`.
pub fn build(inp: &PromptInputs, language: Option<&str>) -> String {
    if inp.replace {
        return inp.host_prompt.clone().unwrap_or_default();
    }
    let mut sections: Vec<(u32, &str, &str, String)> = vec![
        (
            10,
            "agents",
            "Agent Instructions",
            inp.context.agents_md.clone(),
        ),
        (20, "claude", "Project Notes", inp.context.claude_md.clone()),
        (
            25,
            "memory",
            "Project Memory",
            inp.context.memory_md.clone(),
        ),
        (
            27,
            "tasks",
            "Active Task Context",
            inp.context.tasks_md.clone(),
        ),
        (
            30,
            "cwd",
            "Working Directory",
            format!("`{}`", inp.cwd.display()),
        ),
        (40, "project", "Current Project", inp.project.bullets()),
        (
            45,
            "language",
            "Response Language",
            language.unwrap_or("").to_string(),
        ),
        (
            50,
            "permissions",
            "Permission Mode",
            permission_section(inp.mode),
        ),
        (60, "tools", "Available Tools", bullets(&inp.tool_lines)),
        (80, "skills", "Skills", bullets(&inp.skill_lines)),
        (90, "agents", "Agents", bullets(&inp.agent_lines)),
    ];
    sections.retain(|s| !s.3.trim().is_empty());
    sections.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut out = sections
        .iter()
        .map(|(_, _, title, content)| format!("## {title}\n{}", content.trim()))
        .collect::<Vec<_>>()
        .join("\n\n");
    if let Some(h) = inp.host_prompt.as_deref().filter(|h| !h.is_empty()) {
        out.push_str("\n\n");
        out.push_str(h);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_in_priority_order_and_host_prompt_appended() {
        let inp = PromptInputs {
            cwd: PathBuf::from("/p"),
            context: ProjectContext {
                agents_md: "  be brief \n".into(),
                ..Default::default()
            },
            mode: PermissionMode::BypassPermissions,
            tool_lines: vec![tool_line("Read", ""), tool_line("Calc", "adds\nmore")],
            skill_lines: vec![descriptor_line("deploy", Some("<env>"), "Ship it")],
            agent_lines: agent_lines([("Explore", "Read-only")]),
            host_prompt: Some("HOST".into()),
            ..Default::default()
        };
        assert_eq!(
            build(&inp, Some("ko")),
            "## Agent Instructions\nbe brief\n\n## Working Directory\n`/p`\n\n\
             ## Response Language\nko\n\n## Permission Mode\n- **Trust level:** full\n- **Mode:** bypassPermissions\n\n\
             ## Available Tools\n- Read — read file contents with line numbers\n- Calc — adds\n\n\
             ## Skills\n- deploy <env>: Ship it\n\n## Agents\n- Explore: Read-only\n\nHOST"
        );
        let r = PromptInputs {
            replace: true,
            ..inp
        };
        assert_eq!(build(&r, Some("ko")), "HOST");
    }
}
