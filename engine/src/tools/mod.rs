//! Built-in tools and function tools (issue 4).
//!
//! * The eight built-ins (the default tool set), in this order: [`BashTool`], [`ReadTool`],
//!   [`WriteTool`], [`EditTool`], [`GlobTool`], [`GrepTool`], [`WebFetchTool`], [`WebSearchTool`].
//!   They return the JSON text of `{success, output, error?, exitCode?, startLine?}` as
//!   `Ok(Value::String(..))` and never fail for domain errors.
//! * They reach the file system and processes only through [`ports::FsPort`] and
//!   [`ports::ProcessPort`] ([`StdFs`]/[`TokioProcess`] by default), so a host can virtualize both.
//! * [`FunctionTool`]: a closure tool whose input is validated with JSON Schema.
//! * The registry helpers ([`builtin_tool`], [`builtin_tools`], [`builtin_tools_with`]) used by
//!   the session and FFI layers.

mod args;
mod bash;
mod bounded;
mod builtin;
pub mod config;
mod edit;
pub mod function_tool;
mod glob;
pub mod grep;
pub mod html;
pub mod ports;
mod read;
pub mod result;
pub mod schema_compile;
pub mod schema_fast;
pub mod std_fs;
pub mod std_process;
pub mod validation;
pub mod walk;
mod web_fetch;
pub mod web_search;
mod write;

use std::path::Path;
use std::sync::Arc;

pub use bash::BashTool;
pub use config::{ToolEnv, ToolLimits, ToolsConfig, WebSearchConfig};
pub use edit::EditTool;
pub use function_tool::FunctionTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use ports::{FsPort, ProcessPort};
pub use read::ReadTool;
pub use result::ToolOutput;
pub use std_fs::StdFs;
pub use std_process::{DisabledProcess, TokioProcess};
pub use web_fetch::{WebFetchTool, WEB_FETCH_USER_AGENT};
pub use web_search::{BraveSearch, SearchHit, WebSearchBackend, WebSearchTool};
pub use write::WriteTool;

use crate::core::tool::Tool;

/// Names of the built-in tools, in Robota's order (the one list: the permission
/// matrix's known tools).
pub use crate::core::permissions::KNOWN_TOOLS as BUILTIN_TOOL_NAMES;

/// The one-line summaries the system prompt lists (`- <Name> — <summary>` under Available Tools).
pub const BUILTIN_TOOL_SUMMARIES: [(&str, &str); 8] = [
    ("Bash", "execute shell commands"),
    ("Read", "read file contents with line numbers"),
    ("Write", "write content to a file"),
    ("Edit", "replace a string in a file"),
    ("Glob", "find files matching a pattern"),
    ("Grep", "search file contents with regex"),
    ("WebFetch", "fetch URL content as text"),
    (
        "WebSearch",
        "search the internet through the configured local tool",
    ),
];

/// The built-in named `name` on `env`, or `None` for an unknown name.
pub fn builtin_tool_in(name: &str, env: &ToolEnv) -> Option<Arc<dyn Tool>> {
    let env = env.clone();
    Some(match name {
        "Bash" => Arc::new(BashTool::new(env)),
        "Read" => Arc::new(ReadTool::new(env)),
        "Write" => Arc::new(WriteTool::new(env)),
        "Edit" => Arc::new(EditTool::new(env)),
        "Glob" => Arc::new(GlobTool::new(env)),
        "Grep" => Arc::new(GrepTool::new(env)),
        "WebFetch" => Arc::new(WebFetchTool::new(env)),
        "WebSearch" => Arc::new(WebSearchTool::new(env)),
        _ => return None,
    })
}

/// The built-in named `name`, on the real file system and processes, relative paths resolved
/// against `cwd`, default configuration (WebSearch not configured).
pub fn builtin_tool(name: &str, cwd: &Path) -> Option<Arc<dyn Tool>> {
    builtin_tool_in(name, &ToolEnv::new(cwd))
}

/// All eight built-ins (reference order) on the real file system and processes.
pub fn builtin_tools(cwd: &Path) -> Vec<Arc<dyn Tool>> {
    builtin_tools_in(&ToolEnv::new(cwd))
}

/// All eight built-ins with a configuration (limits, Bash env, web-search backend).
pub fn builtin_tools_with(cwd: &Path, config: ToolsConfig) -> Vec<Arc<dyn Tool>> {
    builtin_tools_in(&ToolEnv::with_ports(
        cwd,
        Arc::new(StdFs),
        Arc::new(TokioProcess),
        config,
    ))
}

/// All eight built-ins on custom ports and configuration.
pub fn builtin_tools_in(env: &ToolEnv) -> Vec<Arc<dyn Tool>> {
    BUILTIN_TOOL_NAMES
        .iter()
        .filter_map(|n| builtin_tool_in(n, env))
        .collect()
}

/// The named built-ins on `env`; `Err` names the first unknown one.
pub fn builtin_tools_named(names: &[&str], env: &ToolEnv) -> Result<Vec<Arc<dyn Tool>>, String> {
    names
        .iter()
        .map(|n| {
            builtin_tool_in(n, env).ok_or_else(|| {
                format!(
                    "Unknown built-in tool: {n} (available: {})",
                    BUILTIN_TOOL_NAMES.join(", ")
                )
            })
        })
        .collect()
}
