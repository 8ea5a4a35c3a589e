//! Robota Native's C library: the stable C ABI of `include/robota.h` over the
//! [`robota_engine`] crate.
//!
//! This crate builds `librobota` (a shared and a static library) for hosts in C, C++, Swift,
//! C#/.NET/Unity and Go. It holds only the FFI layer ([`ffi`], from which cbindgen generates the
//! header), the library's global allocator (mimalloc, feature `mimalloc`) and the packaging; the
//! agent runtime itself, with its documented Rust API, is the `robota-engine` crate, which Rust
//! programs depend on directly. `docs/abi.md` is the contract for hosts.
#![deny(unsafe_code)]

#[allow(unsafe_code)]
pub mod ffi;

/// The crate version as a static string.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
