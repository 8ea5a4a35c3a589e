//! Sessions on disk: snapshots, the session store and session records.

pub mod port;
pub mod record;
pub mod saved;
pub mod snapshot;
pub mod store;
