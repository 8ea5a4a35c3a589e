//! Assembly for hosts (a port of Robota's `agent-sdk`): the runtime (providers, shared tokio
//! runtime and HTTP pool, host tools, answerable ids), the event-driven
//! [`interactive::InteractiveSession`], system commands and session snapshots. Everything here is
//! safe Rust; the `robota` crate's `ffi` is a thin C veneer over it.

pub mod answers;
pub mod assembly;
pub mod bridge;
pub mod budget;
pub mod call_settings;
mod callback_threads;
pub mod caller_drive;
pub mod command_registry;
pub mod commands;
pub mod compact_config;
pub mod config;
pub mod error;
pub mod event_doc;
pub mod events;
pub mod fields;
pub mod host_commands;
pub mod host_io;
pub mod host_io_host;
pub mod host_tool;
pub mod interactive;
pub mod mcp;
pub mod record;
pub use crate::core::log;
pub mod params;
pub mod pending;
pub mod project;
pub mod query;
pub mod runtime;
pub mod settings;
mod signals;
pub mod skills;
pub mod snapshot;
pub mod store_api;
pub mod subagent;
pub mod team;
pub mod text_buffers;
pub mod tool_state;
pub mod transcript_tap;
pub mod wake_batch;
pub mod work;
pub mod workers;
