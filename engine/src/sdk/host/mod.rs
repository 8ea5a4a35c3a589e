//! The host's side of a runtime: host tools, the host I/O port and its handler, answerable
//! ids and the host's answers, the approvals and hook requests of a session run, and the
//! providers the host implements.

pub mod answers;
pub mod cancelled;
pub mod io;
pub mod io_handler;
pub mod pending;
pub mod provider;
pub mod session_requests;
pub mod tools;
