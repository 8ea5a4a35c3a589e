//! What a session knows about its project: AGENTS.md / CLAUDE.md
//! context, the project's kind, and the system prompt assembled from them.

pub mod assembly;
pub mod contained;
pub mod context;
pub mod detect;
pub mod system_prompt;
