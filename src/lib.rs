//! Robota Native: the Robota agent runtime as an embeddable library.
//!
//! Layers (arrows point downward only): `ffi` → `sdk` → `session` → `tools`/`providers` → `core`.
//! `core` knows no concrete provider or tool; it defines the seams ([`core::provider::Provider`],
//! [`core::tool::Tool`]) everything above plugs into.
#![deny(unsafe_code)]

pub mod core;
#[allow(unsafe_code)]
pub mod ffi;
pub mod providers;
pub mod sdk;
pub mod session;
pub mod tools;

/// The crate version as a static string.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
