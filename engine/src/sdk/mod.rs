//! Assembly for hosts (a port of Robota's `agent-sdk`): the runtime (providers, shared tokio
//! runtime and HTTP pool, host tools, answerable ids), the event-driven
//! [`interactive::InteractiveSession`], system commands and session snapshots. Everything here is
//! safe Rust; the `robota` crate's `ffi` is a thin C veneer over it.
//!
//! One folder per concept: [`runtime`], [`config`] and [`events`] (leaves: they never read the
//! runtime or the interactive session), [`host`] (what the host answers), [`commands`],
//! [`persistence`], [`project`], [`interactive`], [`subagent`], [`team`], [`settings`], [`mcp`], [`plugins`].

pub mod commands;
pub mod config;
pub mod error;
pub mod events;
pub mod host;
pub mod interactive;
pub mod mcp;
pub mod persistence;
pub mod plugins;
pub use crate::core::log;
pub mod project;
pub mod query;
pub mod runtime;
pub mod settings;
pub mod subagent;
pub mod team;
