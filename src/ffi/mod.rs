//! The C ABI (`include/robota.h`, whose comments are the contract). The only module where
//! `unsafe` is allowed. Every export reads `boundary(out_error, || { checks; one sdk call;
//! convert })`: the panic boundary (`boundary`) first, then the pointer and
//! string checks of `args` and `handles`, one call into `robota_engine::sdk`, and the
//! conversion of its result. Only the exports, their types and constants are public; the
//! machinery (boundary, handle table, callbacks, delivery) is `pub(crate)`.
//!
//! The exports take raw pointers from C and cannot be `unsafe fn` for C callers; each pointer
//! is checked (NULL, live-handle table) before use, hence the module-wide clippy allowance.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

#[cfg(feature = "mimalloc")]
mod allocator;
mod api_host_io;
mod api_lib;
mod api_provider;
mod api_query;
mod api_runtime;
mod api_session;
mod api_store;
mod args;
mod boundary;
mod callbacks;
mod child_signal;
mod delivered;
mod delivery;
mod handles;
mod session_obj;
mod status;

pub use api_host_io::*;
pub use api_lib::*;
pub use api_provider::*;
pub use api_query::*;
pub use api_runtime::*;
pub use api_session::*;
pub use api_store::*;
pub use callbacks::{robota_event_fn, robota_free_fn, robota_log_fn, robota_tool_fn};
pub use handles::{robota_runtime, robota_session};
pub use status::*;
