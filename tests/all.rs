//! The one integration-test binary: `cargo test` builds this file, which pulls in every test
//! module under `tests/suite/` and the shared helpers under `tests/support/` (fake model
//! server, scripted agents, session and tool fixtures).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

mod suite;
mod support;
