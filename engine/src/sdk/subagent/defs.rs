//! Agent definitions (custom ones first, first name wins): the built-in `general-purpose`,
//! `Explore` and `Plan`, the session JSON's `"agents"` (ABI 1.1) and `*.md` files with frontmatter
//! in `<cwd>/.robota/agents`, `<cwd>/.agents/agents`, `<cwd>/.claude/agents` (settings
//! `"project"`), `~/.robota/agents` and `~/.claude/agents` (settings `"project"` or `"user"`).
//! Priority: session JSON, then the directories in that order (first name wins), then the built-ins
//! whose names are not taken. A malformed file is a warning, never a failed session.

use std::collections::BTreeMap;
use std::path::Path;

use crate::sdk::commands::skills::{base_name, entries};
use crate::sdk::config::agents::{expand_model, AgentDef};

/// Built-in `general-purpose` prompt.
pub const GENERAL_PURPOSE_PROMPT: &str = "You are a general-purpose agent. Do exactly the task you were delegated, nothing more and nothing less. Prefer the most precise tool for each step (Read, Grep and Glob over Bash for files and searches). When you are done, report what you did and what you found concisely. If something blocks you, stop and explain the blocker instead of guessing.";
/// Built-in `Explore` prompt.
pub const EXPLORE_PROMPT: &str = "You are a read-only codebase exploration agent. Search, read and trace code to answer the question you were given; never create, modify or delete files. Answer with absolute file paths and line references for everything you cite.";
/// Built-in `Plan` prompt.
pub const PLAN_PROMPT: &str = "You are a read-only planning, research and architecture agent. Analyse the code without modifying anything, then produce a numbered implementation plan that names the specific files to change, the order of the steps, and the risks of each step.";

/// The model of the built-in `Explore` agent on an Anthropic provider (the Robota spec's choice:
/// a small fast model for read-only searching); other providers inherit the parent's model.
pub const EXPLORE_ANTHROPIC_MODEL: &str = "claude-haiku-4-5";

/// The model a definition without its own `model` defaults to: [`EXPLORE_ANTHROPIC_MODEL`] for
/// the built-in `Explore` (not a custom agent of that name) when the provider is Anthropic, else
/// `None` (the parent's model).
pub fn default_model(def: &AgentDef, anthropic: bool) -> Option<String> {
    let builtin_explore = def.name == "Explore" && def.prompt == EXPLORE_PROMPT;
    (anthropic && builtin_explore && def.model.is_none()).then(|| EXPLORE_ANTHROPIC_MODEL.into())
}

/// Whether an agent type can change no file: its tools exclude `Write` and `Edit` (through
/// `disallowedTools` or a `tools` list naming neither), like the built-in `Explore` and `Plan`.
pub fn is_read_only(def: &AgentDef) -> bool {
    ["Write", "Edit"].iter().all(|t| {
        def.disallowed_tools.iter().any(|d| d == t)
            || def
                .tools
                .as_ref()
                .is_some_and(|a| !a.iter().any(|n| n == t))
    })
}

/// [`builtins`], built once per process: every definition of a session without session
/// agents whose settings read no agent files.
pub fn shared_builtins() -> std::sync::Arc<Vec<AgentDef>> {
    static ALL: std::sync::OnceLock<std::sync::Arc<Vec<AgentDef>>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| std::sync::Arc::new(builtins())).clone()
}

/// The built-in agents, in Robota's order.
pub fn builtins() -> Vec<AgentDef> {
    let read_only = vec!["Write".to_string(), "Edit".to_string()];
    let def = |name: &str, description: &str, prompt: &str, deny: Vec<String>| AgentDef {
        name: name.into(),
        description: description.into(),
        prompt: prompt.into(),
        model: None,
        max_turns: None,
        tools: None,
        disallowed_tools: deny,
    };
    vec![
        def(
            "general-purpose",
            "General-purpose task execution agent with full tool access.",
            GENERAL_PURPOSE_PROMPT,
            Vec::new(),
        ),
        def(
            "Explore",
            "Read-only codebase exploration and analysis agent.",
            EXPLORE_PROMPT,
            read_only.clone(),
        ),
        def(
            "Plan",
            "Read-only planning, research, and architecture agent.",
            PLAN_PROMPT,
            read_only,
        ),
    ]
}

/// Splits a tool list like `allowed-tools`: on commas if there is one, else on whitespace.
pub fn split_tools(s: &str) -> Vec<String> {
    let parts: Vec<&str> = if s.contains(',') {
        s.split(',').collect()
    } else {
        s.split_whitespace().collect()
    };
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// Frontmatter keys and the body after it.
type Split = (BTreeMap<String, String>, String);

/// Frontmatter of an agent file: keys are letter/digit identifiers (kebab keys are ignored).
/// `Ok(None)`: no frontmatter (the whole file is the body). `Err`: opened, never closed.
fn frontmatter(text: &str) -> Result<Option<Split>, String> {
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Ok(None);
    }
    let mut keys = BTreeMap::new();
    let mut consumed = text.find('\n').map_or(text.len(), |i| i + 1);
    for line in lines {
        consumed += line.len();
        if line.trim_end() == "---" {
            return Ok(Some((keys, text[consumed..].trim().to_string())));
        }
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let k = k.trim();
        if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric()) {
            keys.insert(k.to_string(), v.trim().to_string());
        }
    }
    Err("the frontmatter block opened with --- is never closed".into())
}

/// Parses one agent file; problems become `warnings` and `None`.
pub fn parse_file(path: &Path, warnings: &mut Vec<String>) -> Option<AgentDef> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            warnings.push(format!("agent definition {} skipped: {e}", path.display()));
            return None;
        }
    };
    let (fm, body) = match frontmatter(&text) {
        Ok(Some(x)) => x,
        Ok(None) => (BTreeMap::new(), text.trim().to_string()),
        Err(e) => {
            warnings.push(format!("agent definition {} skipped: {e}", path.display()));
            return None;
        }
    };
    let max_turns = match fm.get("maxTurns") {
        None => None,
        Some(v) => match v.parse::<i64>() {
            Ok(n) if n >= 0 => Some(n),
            _ => {
                warnings.push(format!(
                    "agent definition {}: maxTurns \"{v}\" is not a non-negative integer; ignored",
                    path.display()
                ));
                None
            }
        },
    };
    Some(AgentDef {
        name: fm
            .get("name")
            .filter(|n| !n.is_empty())
            .cloned()
            .unwrap_or_else(|| base_name(path)),
        description: fm.get("description").cloned().unwrap_or_default(),
        prompt: body,
        model: fm.get("model").map(|m| expand_model(m)),
        max_turns,
        tools: fm.get("tools").map(|t| split_tools(t)),
        disallowed_tools: fm
            .get("disallowedTools")
            .map(|t| split_tools(t))
            .unwrap_or_default(),
    })
}

fn push_new(found: &mut Vec<AgentDef>, d: AgentDef) {
    if !found.iter().any(|f| f.name == d.name) {
        found.push(d);
    }
}

/// Every definition a session can use: `session` (the JSON's), then the `*.md` files of the
/// directories `settings` enables, then the built-ins not taken.
pub fn collect(
    session: &[AgentDef],
    cwd: &Path,
    user_dirs: &[&Path],
    project: bool,
    warnings: &mut Vec<String>,
) -> Vec<AgentDef> {
    let mut found: Vec<AgentDef> = session.to_vec();
    let mut dirs: Vec<std::path::PathBuf> = Vec::new();
    if project {
        for d in [".robota/agents", ".agents/agents", ".claude/agents"] {
            dirs.push(cwd.join(d));
        }
    }
    dirs.extend(user_dirs.iter().map(|u| u.join("agents")));
    for dir in dirs {
        for f in entries(&dir) {
            if f.extension().is_some_and(|e| e == "md") && f.is_file() {
                if let Some(d) = parse_file(&f, warnings) {
                    push_new(&mut found, d);
                }
            }
        }
    }
    for b in builtins() {
        push_new(&mut found, b);
    }
    found
}
