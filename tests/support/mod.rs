//! Shared test support. Use from any integration test with `mod support;`.
//! See [`fake_server`] for the fake model server API.
#![allow(dead_code)]

pub mod fake_server;
