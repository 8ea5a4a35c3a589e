//! The C ABI (`include/robota.h`, contract in `shared/design/ABI.md`). The only module where
//! `unsafe` is allowed. Every export: check pointers, enter the panic boundary, call one safe
//! function, convert the result.
//!
//! The exports take raw pointers from C and cannot be `unsafe fn` for C callers; each pointer
//! is checked (NULL, live-handle table) before use, hence the module-wide clippy allowance.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod api_lib;
pub mod api_query;
pub mod api_runtime;
pub mod api_session;
pub mod callbacks;
pub mod delivered;
pub mod delivery;
pub mod handles;
pub mod session_obj;
pub mod status;
pub mod strings;

pub use api_lib::*;
pub use api_query::*;
pub use api_runtime::*;
pub use api_session::*;
pub use status::*;
