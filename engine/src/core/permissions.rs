//! Permission policy (pure): `evaluatePermission` = deny list → allow list → mode policy →
//! unknown-tool fallback. Patterns are `Tool` or `Tool(argGlob)`, the glob (globset, braces
//! supported, `*` crosses `/`) matched against the tool's primary argument.

use std::str::FromStr;

use globset::GlobBuilder;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Permission mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum PermissionMode {
    /// Read-only: writes and shell denied.
    #[serde(rename = "plan")]
    Plan,
    /// Ask for writes and shell.
    #[serde(rename = "default")]
    #[default]
    Default,
    /// Edits allowed, shell asks.
    #[serde(rename = "acceptEdits")]
    AcceptEdits,
    /// Everything allowed (deny rules still win).
    #[serde(rename = "bypassPermissions")]
    BypassPermissions,
}

impl PermissionMode {
    /// All modes in order.
    pub const ALL: [PermissionMode; 4] = [
        PermissionMode::Plan,
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::BypassPermissions,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Plan => "plan",
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::BypassPermissions => "bypassPermissions",
        }
    }
}

impl FromStr for PermissionMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        PermissionMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| format!("Invalid mode. Valid: plan | default | acceptEdits | bypassPermissions (got \"{s}\")"))
    }
}

/// Trust alias (`TTrustLevel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrustLevel {
    /// → plan
    Safe,
    /// → default
    Moderate,
    /// → acceptEdits
    Full,
}

/// `TRUST_TO_MODE`.
pub fn trust_to_mode(t: TrustLevel) -> PermissionMode {
    match t {
        TrustLevel::Safe => PermissionMode::Plan,
        TrustLevel::Moderate => PermissionMode::Default,
        TrustLevel::Full => PermissionMode::AcceptEdits,
    }
}

/// Outcome of evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionDecision {
    /// Run without asking.
    Auto,
    /// Ask the approval handler.
    Approve,
    /// Refuse.
    Deny,
}

/// Known tool names of the policy matrix (`TKnownToolName`), in Robota's order; the
/// built-in tools are exactly these (`tools::BUILTIN_TOOL_NAMES`).
pub const KNOWN_TOOLS: [&str; 8] = [
    "Bash",
    "Read",
    "Write",
    "Edit",
    "Glob",
    "Grep",
    "WebFetch",
    "WebSearch",
];

/// `MODE_POLICY[mode][tool]`; `None` for tools outside the matrix.
pub fn mode_policy(mode: PermissionMode, tool: &str) -> Option<PermissionDecision> {
    use PermissionDecision::*;
    let class = match tool {
        "Read" | "Glob" | "Grep" | "WebFetch" | "WebSearch" => 0,
        "Write" | "Edit" => 1,
        "Bash" => 2,
        _ => return None,
    };
    Some(match (mode, class) {
        (_, 0) => Auto,
        (PermissionMode::Plan, _) => Deny,
        (PermissionMode::Default, _) => Approve,
        (PermissionMode::AcceptEdits, 1) => Auto,
        (PermissionMode::AcceptEdits, _) => Approve,
        (PermissionMode::BypassPermissions, _) => Auto,
    })
}

/// `UNKNOWN_TOOL_FALLBACK[mode]`.
pub fn unknown_tool_fallback(mode: PermissionMode) -> PermissionDecision {
    match mode {
        PermissionMode::Plan => PermissionDecision::Deny,
        PermissionMode::Default | PermissionMode::AcceptEdits => PermissionDecision::Approve,
        PermissionMode::BypassPermissions => PermissionDecision::Auto,
    }
}

/// Allow/deny pattern lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionLists {
    /// Patterns that run without asking.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Patterns that are always refused.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// The argument a tool's patterns are matched against.
pub fn primary_argument_key(tool: &str) -> Option<&'static str> {
    match tool {
        "Bash" => Some("command"),
        "Read" | "Write" | "Edit" => Some("filePath"),
        "Glob" | "Grep" => Some("pattern"),
        _ => None,
    }
}

/// Splits `Tool(argGlob)` into name and optional glob (text between the first `(` and the last `)`).
pub fn parse_pattern(pattern: &str) -> (&str, Option<&str>) {
    match pattern.find('(') {
        None => (pattern.trim(), None),
        Some(open) => {
            let name = pattern[..open].trim();
            let rest = &pattern[open + 1..];
            let inner = match rest.rfind(')') {
                Some(close) => &rest[..close],
                None => {
                    // A missing `)` drops the final character (reference quirk).
                    let mut end = rest.len();
                    if let Some((i, _)) = rest.char_indices().last() {
                        end = i;
                    }
                    &rest[..end]
                }
            };
            (name, Some(inner.trim()))
        }
    }
}

/// Name-only wildcards: `prefix*` matches every tool whose name starts with `prefix` (e.g.
/// `mcp__github__*`), and `mcp__SERVER` matches every tool of that MCP server (as Claude Code).
fn tool_name_matches(name: &str, tool: &str) -> bool {
    match name.strip_suffix('*') {
        Some(prefix) => tool.starts_with(prefix),
        None => {
            name.starts_with("mcp__")
                && name.matches("__").count() == 1
                && tool
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with("__"))
        }
    }
}

/// Whether one pattern matches a call.
pub fn pattern_matches(pattern: &str, tool: &str, args: &Value) -> bool {
    let (name, glob) = parse_pattern(pattern);
    if name != tool && !tool_name_matches(name, tool) {
        return false;
    }
    let Some(glob) = glob else { return true };
    let Some(key) = primary_argument_key(tool) else {
        return false;
    };
    let Some(value) = args.get(key).and_then(Value::as_str) else {
        return false;
    };
    glob_matches(glob, value)
}

/// Matches `value` against a permission glob: `*` and `**` cross `/`, braces alternate,
/// `**` needs at least one character.
pub fn glob_matches(glob: &str, value: &str) -> bool {
    // `**` must match one or more characters (so `/src/**` does not match `/src/`).
    if glob.ends_with("**") && value.len() < glob.len() - 1 {
        return false;
    }
    if let Some(prefix) = glob.strip_suffix("**") {
        if value == prefix {
            return false;
        }
    }
    let matcher = GlobBuilder::new(glob)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .ok()
        .and_then(|g| super::glob_match::compile(g).ok());
    match matcher {
        Some(m) => m.is_match(value),
        None => glob == value,
    }
}

/// `evaluatePermission(tool, args, mode, lists)`.
pub fn evaluate_permission(
    tool: &str,
    args: &Value,
    mode: PermissionMode,
    lists: &PermissionLists,
) -> PermissionDecision {
    if lists.deny.iter().any(|p| pattern_matches(p, tool, args)) {
        return PermissionDecision::Deny;
    }
    if lists.allow.iter().any(|p| pattern_matches(p, tool, args)) {
        return PermissionDecision::Auto;
    }
    mode_policy(mode, tool).unwrap_or_else(|| unknown_tool_fallback(mode))
}
