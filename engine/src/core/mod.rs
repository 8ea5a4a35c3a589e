//! The engine (a port of Robota's `agent-core`): messages, history, the execution loop, tool
//! batches, replay events, permissions, errors, models and token estimation.

pub mod agent;
pub mod atomic_file;
pub mod budget;
pub mod child_env;
pub mod child_signal;
pub mod diff;
pub mod env_ref;
pub mod errors;
pub mod event_time;
pub mod events;
pub mod execution;
pub mod glob_match;
pub mod history;
pub mod hooks;
pub mod image;
pub mod json_bytes;
pub mod known_keys;
pub mod log;
pub mod message;
pub mod models;
pub mod output_schema;
pub mod permissions;
pub mod pricing;
pub mod prompt_cache;
pub mod provider;
pub mod recent_json;
pub mod sandbox;
pub mod shell;
pub mod store;
pub mod tokens;
pub mod tool;
pub mod tool_choice;
pub mod truncation;
pub mod util;
