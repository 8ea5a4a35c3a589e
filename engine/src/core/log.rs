//! The library log: one process-wide sink (the C layer installs the host's callback with
//! `robota_set_log_callback`), usable from every layer through [`log_at!`](crate::log_at).
//! Nothing is formatted unless a sink wants the level (one atomic load when logging is off).
//! Messages never carry secrets: callers log names, counts and statuses, not keys or bodies.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, RwLock};

/// Most verbose level.
pub const TRACE: i32 = 0;
/// Debug level.
pub const DEBUG: i32 = 1;
/// Info level.
pub const INFO: i32 = 2;
/// Warning level.
pub const WARN: i32 = 3;
/// Error level.
pub const ERROR: i32 = 4;

/// A log sink: `(level, target, message)`.
pub type LogSink = Arc<dyn Fn(i32, &str, &str) + Send + Sync>;

struct Installed {
    sink: LogSink,
    min_level: i32,
}

static SINK: RwLock<Option<Installed>> = RwLock::new(None);
/// The installed sink's minimum level; above every level when there is none.
static MIN_LEVEL: AtomicI32 = AtomicI32::new(i32::MAX);

/// Installs (or with `None` removes) the sink; returns the previous one so the caller
/// decides when it is released.
pub fn set_sink(sink: Option<LogSink>, min_level: i32) -> Option<LogSink> {
    let mut guard = SINK.write().unwrap_or_else(|p| p.into_inner());
    let old = guard.take().map(|i| i.sink);
    MIN_LEVEL.store(
        if sink.is_some() { min_level } else { i32::MAX },
        Ordering::Release,
    );
    *guard = sink.map(|sink| Installed { sink, min_level });
    old
}

/// Whether `level` would be delivered.
pub fn enabled(level: i32) -> bool {
    level >= MIN_LEVEL.load(Ordering::Acquire)
}

/// Logs a message (no-op without a sink or below its level). The sink is called without
/// holding the lock, so it may itself replace the sink.
pub fn log(level: i32, target: &str, message: impl AsRef<str>) {
    let sink = {
        let guard = SINK.read().unwrap_or_else(|p| p.into_inner());
        match guard.as_ref() {
            Some(i) if level >= i.min_level => i.sink.clone(),
            _ => return,
        }
    };
    sink(level, target, message.as_ref());
}

/// Logs `format!(...)` at `level` under `target` when a sink wants that level; formats
/// nothing otherwise. `log_at!(DEBUG, "robota::hooks", "hook {} timed out", name)`.
#[macro_export]
#[doc(hidden)]
macro_rules! log_at {
    ($level:expr, $target:expr, $($arg:tt)+) => {
        if $crate::core::log::enabled($level) {
            $crate::core::log::log($level, $target, format!($($arg)+));
        }
    };
}
