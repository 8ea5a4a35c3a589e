//! A step the embedding library runs once before the first child process (a shell command, a
//! command hook, an MCP stdio server) is spawned. The C library sets it to install the SIGCHLD
//! handler that tokio reaps children with, flagged so that Go hosts accept it (see the C
//! library's `ffi::child_signal`); the engine itself needs no `unsafe` for it.

use std::sync::OnceLock;

static PREPARE: OnceLock<fn()> = OnceLock::new();

/// Sets the step (the first call wins). It must be idempotent and cheap after its first run.
pub fn set_prepare(step: fn()) {
    let _ = PREPARE.set(step);
}

/// Runs the step, if one was set, before a child process is spawned.
pub fn prepare() {
    if let Some(step) = PREPARE.get() {
        step();
    }
}
