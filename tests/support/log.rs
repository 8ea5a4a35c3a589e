//! The library log sink is process-wide: tests that install one take [`sink_lock`] so they
//! never replace each other's sink.

use std::sync::{Mutex, MutexGuard};

static SINK: Mutex<()> = Mutex::new(());

/// Held while a test has its own log sink installed.
pub fn sink_lock() -> MutexGuard<'static, ()> {
    SINK.lock().unwrap_or_else(|p| p.into_inner())
}
