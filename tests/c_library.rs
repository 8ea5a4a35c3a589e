//! The C library's tests (`tests/suite/c_library/`): the exports of `robota::ffi` called from
//! Rust (with the helpers of `tests/support/ffi.rs`), the header, the C quick start and the
//! documents' compiled snippets.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

#[path = "suite/c_library/mod.rs"]
mod suite;
mod support;
#[path = "support/ffi.rs"]
mod support_ffi;
