//! Sessions on disk: snapshots, the session store and session records.

pub mod record;
pub mod snapshot;
pub mod store;
