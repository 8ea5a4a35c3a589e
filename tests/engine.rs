//! The engine's integration tests (`tests/suite/engine/`): they depend on the `robota_engine`
//! crate alone, with the shared helpers under `tests/support/` (fake model server, scripted
//! agents, session and tool fixtures).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

#[path = "suite/engine/mod.rs"]
mod suite;
mod support;
