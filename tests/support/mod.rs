//! Shared test support for every suite module: the fake model server ([`fake_server`]), engine
//! helpers ([`engine`]: scripted agents, recording tools, event capture), session fixtures
//! ([`session`]), built-in tool fixtures ([`tools`]) and the per-vendor provider cases
//! ([`provider_cases`]) that `providers_*` run for each wire format, and the vendors' recorded
//! streams ([`vendor_streams`]); [`required`]: what a test does when a tool it needs is missing
//! (skip outside CI, fail under CI); [`process`]: whether a process still runs (`/proc`).
#![allow(dead_code)]

pub mod engine;
pub mod fake_cache;
pub mod fake_faults;
pub mod fake_http;
pub mod fake_reply;
pub mod fake_server;
pub mod fake_wire;
pub mod fault_cells;
pub mod host_session;
pub mod invariants;
pub mod log;
pub mod mcp;
pub mod process;
pub mod provider_cases;
pub mod required;
pub mod session;
pub mod subagent_host;
pub mod tools;
pub mod vendor_streams;
