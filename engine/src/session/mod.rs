//! The generic Session (a port of Robota's `agent-sessions`): an agent whose tool calls all pass
//! the permission enforcer (modes, allow/deny rules on normalized paths, approvals, PreToolUse /
//! PostToolUse hooks, output truncation), with the hook lifecycle and context tracking.

pub mod approval;
pub mod compaction;
pub mod context;
pub mod enforcer;
pub mod observer;
pub mod options;
pub mod output;
pub mod paths;
#[allow(clippy::module_inception)]
pub mod session;
pub mod store;
pub mod transcript;

pub use crate::core::atomic_file::write_atomic;
pub use approval::{approval_prompt_text, ApprovalDecision, ApprovalHandler};
pub use compaction::{CompactError, CompactTrigger, Compaction};
pub use context::{ContextState, ContextWindowTracker, AUTO_COMPACT_THRESHOLD};
pub use enforcer::{GateDecision, PermissionEnforcer};
pub use observer::{SessionObserver, ToolEndResult};
pub use options::{SessionOptions, SessionRunError, SessionRunOptions};
pub use output::{failure_json, BLOCKED_BY_HOOK_PREFIX, PERMISSION_DENIED};
pub use session::Session;
pub use store::{check_session_id, session_file_path, StoreError};
