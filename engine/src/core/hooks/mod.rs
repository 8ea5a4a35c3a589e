//! Lifecycle hooks (Claude-compatible): the config (`THooksConfig`), the runner, the built-in
//! `command` and `http` executors, the `prompt` executor sessions add, and a registry that adds more executor kinds next to them.
//!
//! Protocol: every hook receives the event's input JSON (snake_case keys, see [`input`]). Exit code
//! 0 allows (trimmed stdout is collected), 2 blocks (stderr is the reason), anything else lets the
//! action proceed with a warning. Command hooks are killed (whole process group) after their
//! timeout (default 10 s, per-hook `timeout` in seconds) and report `Hook timed out`.

pub mod command;
pub mod http;
pub mod input;
pub mod json_output;
pub mod prompt;
pub mod registry;
pub mod runner;
pub mod secrets;
pub mod types;
pub mod verdict;

pub use command::CommandExecutor;
pub use http::HttpExecutor;
pub use input::hook_input;
pub use prompt::PromptExecutor;
pub use registry::{HookExecutor, HookExecutorRegistry};
pub use runner::{matcher_matches, matcher_target, run_hooks, run_hooks_with_cancel};
pub use types::{
    HookDefinition, HookEvent, HookGroup, HookResult, HookRunOutcome, HooksConfig,
    DEFAULT_BLOCK_REASON, DEFAULT_COMMAND_TIMEOUT, DEFAULT_HTTP_TIMEOUT, HOOK_TIMED_OUT,
};
