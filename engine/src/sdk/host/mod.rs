//! The host's side of a runtime: host tools, the host I/O port and its handler, answerable
//! ids and the host's answers, and the approvals and hook requests of a session run.

pub mod answers;
pub mod cancelled;
pub mod io;
pub mod io_handler;
pub mod pending;
pub mod session_requests;
pub mod tools;
