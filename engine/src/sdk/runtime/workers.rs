//! The runtime's async workers (a tokio multi-thread runtime), started when something first
//! needs them: a submitted turn, a `SessionEnd` hook, a compaction, an MCP connection. A host
//! that only drives its turns with `robota_session_run` (the calling thread's own reactor,
//! [`super::caller_drive`]) starts no worker thread at all, which saves a process's start the
//! thread, its stack and its heap's first pages (docs/dev/perf.md §30).

use std::sync::{Mutex, OnceLock};

use crate::sdk::config::default_worker_threads;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};

/// The workers of one runtime: not started, running, or stopped for good.
pub struct Workers {
    /// `None` = [`default_worker_threads`], counted when they start.
    threads: Option<usize>,
    /// Set once, when the workers start; kept after they stop (spawning on it then does
    /// nothing, as on any stopped tokio runtime).
    handle: OnceLock<tokio::runtime::Handle>,
    state: Mutex<State>,
}

/// Who owns the tokio runtime.
#[derive(Default)]
struct State {
    runtime: Option<tokio::runtime::Runtime>,
    stopped: bool,
}

impl Workers {
    /// Workers of `threads` threads (`None`: the default), not started.
    pub fn new(threads: Option<usize>) -> Self {
        Workers {
            threads,
            handle: OnceLock::new(),
            state: Mutex::new(State::default()),
        }
    }

    /// The handle to spawn on, starting the workers at the first call. Fails when they cannot
    /// start (no thread could be made) or the runtime has gone away.
    pub fn handle(&self) -> SdkResult<&tokio::runtime::Handle> {
        if let Some(h) = self.handle.get() {
            return Ok(h);
        }
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(h) = self.handle.get() {
            return Ok(h);
        }
        if st.stopped {
            return Err(SdkError::new(
                ErrorCode::Closed,
                "the runtime has been freed: its workers cannot start",
            ));
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(self.threads.unwrap_or_else(default_worker_threads))
            .thread_name("robota-worker")
            .on_thread_start(|| {
                crate::sdk::runtime::signals::block_sigpipe_on_this_thread();
                crate::sdk::runtime::thread_role::mark_library_thread();
            })
            .enable_all()
            .build()
            .map_err(|e| {
                SdkError::new(
                    ErrorCode::Io,
                    format!("cannot start the runtime's workers: {e}"),
                )
            })?;
        let handle = self.handle.get_or_init(|| runtime.handle().clone());
        st.runtime = Some(runtime);
        Ok(handle)
    }

    /// Whether the workers have started (and not stopped).
    pub fn started(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .runtime
            .is_some()
    }

    /// Stops them for good: returns the tokio runtime to shut down, if they had started.
    pub fn stop(&self) -> Option<tokio::runtime::Runtime> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.stopped = true;
        st.runtime.take()
    }
}
