//! Robota Native's engine: an LLM agent runtime as a Rust library.
//!
//! The crate runs the agent loop in-process: it streams a model's answer (Anthropic, OpenAI,
//! OpenAI-compatible servers, Gemini, or the offline `scripted` and `replay` providers), runs
//! the tools the model calls (eight built-ins, host tools, MCP servers with the `mcp` feature)
//! behind permission rules and hooks, and keeps sessions that can be saved, resumed, forked
//! and compacted. Rust programs depend on this crate alone: it sets no global allocator and
//! exports no C symbols. Hosts in other languages use the `robota` crate beside it (the C
//! library: `include/robota.h`, a thin veneer over [`sdk`]) and the Go, C# and Swift bindings
//! under `bindings/`.
//!
//! The behaviour is that of Robota, the TypeScript agent runtime (agent-core, agent-sdk,
//! agent-team) this crate ports: where a comment says "as Robota does" or "Robota's wording",
//! it names that behaviour, kept on purpose; the deliberate differences are written down in
//! `docs/`.
//!
//! # Module map
//!
//! Layers, arrows pointing downward only (the C library's `ffi` sits on top): [`sdk`] →
//! [`session`] → [`tools`]/[`providers`] → [`core`].
//!
//! | Module | What lives there |
//! |---|---|
//! | [`core`] | The engine: messages, history, the execution loop ([`core::agent::Agent`]), tool batches, events, permissions, errors, models and token estimates. It knows no concrete provider or tool; it defines the seams ([`core::provider::Provider`], [`core::tool::Tool`]) everything above plugs into. |
//! | [`providers`] | The concrete providers behind [`core::provider::Provider`], the shared HTTP and SSE layers, the scripted provider ([`providers::scripted`]) and record/replay. |
//! | [`tools`] | The built-in tools (Bash, Read, Write, Edit, Glob, Grep, WebFetch, WebSearch) over file-system and process ports, and JSON-Schema-validated function tools. |
//! | [`session`] | A session: an agent whose every tool call passes the permission enforcer and the hooks, with context tracking and compaction. |
//! | [`sdk`] | What hosts embed, one folder per concept: the [`sdk::runtime::Runtime`] (providers, workers, HTTP pool, host tools), the event-driven [`sdk::interactive::InteractiveSession`], the JSON documents ([`sdk::config`], with their JSON Schemas), events ([`sdk::events`]), host requests ([`sdk::host`]), commands, persistence (save, resume, the store, recordings), project context, settings, subagents, the team and MCP. |
//!
//! # Example
//!
//! A runtime whose provider `s` is the scripted one (it answers from the turns it was given,
//! offline, without an API key), one session, one turn; the text deltas arrive as events.
//! The configuration JSON is the same the C ABI takes in `robota_runtime_new` and
//! `robota_session_new`.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use std::time::Duration;
//!
//! use robota_engine::sdk::config::parse_session_config;
//! use robota_engine::sdk::events::{self, Event, EventSink, Payload};
//! use robota_engine::sdk::interactive::{InteractiveSession, TurnInput};
//! use robota_engine::sdk::runtime::Runtime;
//!
//! let rt = Runtime::from_json(
//!     r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[{"deltas":["Hello, ","world."]}]}}}"#,
//! )?;
//! let config = parse_session_config(r#"{"v":1,"provider":"s","model":"scripted-model"}"#)?;
//!
//! // Every event of the session reaches the sink; keep the streamed text.
//! let text = Arc::new(Mutex::new(String::new()));
//! let seen = text.clone();
//! let sink: EventSink = Arc::new(move |e: Event| {
//!     if let (events::TEXT_DELTA, Payload::Text(delta)) = (e.kind, &e.payload) {
//!         seen.lock().unwrap().push_str(delta);
//!     }
//! });
//! let session = InteractiveSession::new(rt.shared().clone(), config, sink, false, None)?;
//!
//! let turn = session.submit(TurnInput::from_json(r#"{"text":"Say hello"}"#)?)?;
//! session.wait(turn, Some(Duration::from_secs(30)))?;
//! assert_eq!(*text.lock().unwrap(), "Hello, world.");
//! session.close();
//! # Ok::<(), robota_engine::sdk::error::SdkError>(())
//! ```
//!
//! `examples/demo.rs` drives the engine one layer down ([`core::agent::Agent`] with a tool);
//! `examples-c/` and `bindings/` show the same through the C ABI.
#![forbid(unsafe_code)]

pub mod core;
pub mod providers;
pub mod sdk;
pub mod session;
pub mod tools;

/// The crate version as a static string.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Every ```rust block of README.md compiled as a doctest (`cargo test --doc`); a fence without
/// a language would be compiled as Rust too, which `tests/suite/readme_doctests.rs` forbids.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
