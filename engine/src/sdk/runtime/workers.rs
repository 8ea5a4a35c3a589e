//! The runtime's async workers: shards of one worker thread each (a tokio multi-thread
//! runtime of one worker, so a task may still block with `block_in_place`), each started when
//! something first needs it: a submitted turn, a `SessionEnd` hook, a compaction, an MCP
//! connection. A host that only drives its turns with `robota_session_run` (the calling
//! thread's own reactor, [`super::caller_drive`]) starts no worker thread at all, which saves a
//! process's start the thread, its stack and its heap's first pages (docs/dev/perf.md §30).
//!
//! Why shards rather than one runtime of several workers: tokio's workers steal each other's
//! tasks, and to have a thief ready it wakes an idle worker for every task scheduled from
//! outside (a host's tool answer, a submit) — on a 2-core machine that cost a session's turns
//! 40 % more CPU. A shard's worker only wakes for its own tasks. New work goes to the first
//! shard running fewer than two tasks, else to the least busy: one session at a time stays on
//! the first shard and its warm connections; many at once spread over every core
//! (docs/dev/perf.md §36). Each shard's threads make their HTTP requests through a connection
//! pool of the shard's own, so a connection and the task reading it share a thread.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::sdk::config::default_worker_threads;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};

/// A shard takes new work while it runs fewer tasks than this, before the next is asked: a
/// session's next turn, submitted while its last one's task is still ending, stays on the
/// shard (and the thread and connections) its last turn used.
const SHARED_BELOW: usize = 2;

/// The workers of one runtime: not started, running (some shards or all), or stopped for good.
pub struct Workers {
    /// Shards (one worker thread each); `None` = [`default_worker_threads`], counted when work
    /// first overflows the first shard (the count reads the cgroup's CPU quota: files a
    /// process that runs one session at a time never needs to open).
    threads: Option<usize>,
    /// The shard new work goes to first.
    first: Shard,
    /// The other shards, made when the first is busy.
    others: OnceLock<Box<[Shard]>>,
    state: Mutex<State>,
}

/// One shard: its handle once started, and how many tasks it runs.
#[derive(Default)]
struct Shard {
    handle: OnceLock<tokio::runtime::Handle>,
    load: Arc<AtomicUsize>,
}

/// Who owns the shards' tokio runtimes.
#[derive(Default)]
struct State {
    runtimes: Vec<tokio::runtime::Runtime>,
    stopped: bool,
}

/// A task's place on a shard: counts it in the shard's load until dropped.
pub struct Placed {
    load: Arc<AtomicUsize>,
}

impl Drop for Placed {
    fn drop(&mut self) {
        self.load.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Workers {
    /// Workers of `threads` shards (`None`: the default), not started.
    pub fn new(threads: Option<usize>) -> Self {
        Workers {
            threads,
            first: Shard::default(),
            others: OnceLock::new(),
            state: Mutex::new(State::default()),
        }
    }

    /// The handle of the shard new work goes to, to spawn a task on, and its place there (keep it
    /// with the task). Starts that shard at its first use. Fails when it cannot start (no
    /// thread could be made) or the runtime has gone away.
    pub fn place(&self) -> SdkResult<(&tokio::runtime::Handle, Placed)> {
        if self.state.lock().unwrap_or_else(|p| p.into_inner()).stopped {
            // Every shard alike: a started one would take the task and drop it unrun.
            return Err(stopped());
        }
        let load = |s: &&Shard| s.load.load(Ordering::Relaxed);
        let shard = if load(&&self.first) < SHARED_BELOW {
            &self.first
        } else {
            let others = self.others.get_or_init(|| {
                let n = self.threads.unwrap_or_else(default_worker_threads).max(1);
                (1..n).map(|_| Shard::default()).collect()
            });
            match others.iter().find(|s| load(s) < SHARED_BELOW) {
                Some(s) => s,
                None => std::iter::once(&self.first)
                    .chain(others.iter())
                    .min_by_key(load)
                    .unwrap_or(&self.first),
            }
        };
        shard.load.fetch_add(1, Ordering::Relaxed);
        let placed = Placed {
            load: shard.load.clone(),
        };
        Ok((self.start(shard)?, placed))
    }

    /// A handle to spawn on (the shard new work goes to), starting it if needed.
    pub fn handle(&self) -> SdkResult<&tokio::runtime::Handle> {
        self.place().map(|(h, _)| h)
    }

    fn start<'a>(&'a self, shard: &'a Shard) -> SdkResult<&'a tokio::runtime::Handle> {
        if let Some(h) = shard.handle.get() {
            return Ok(h);
        }
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(h) = shard.handle.get() {
            return Ok(h);
        }
        if st.stopped {
            return Err(stopped());
        }
        let http = crate::providers::new_http_client().map_err(|e| {
            SdkError::new(
                ErrorCode::Internal,
                format!("cannot build the workers' HTTP client: {e}"),
            )
        })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("robota-worker")
            .on_thread_start(move || {
                crate::sdk::runtime::signals::block_sigpipe_on_this_thread();
                crate::sdk::runtime::thread_role::mark_library_thread();
                crate::providers::set_thread_client(&http);
            })
            .enable_all()
            .build()
            .map_err(|e| {
                SdkError::new(
                    ErrorCode::Io,
                    format!("cannot start the runtime's workers: {e}"),
                )
            })?;
        let handle = shard.handle.get_or_init(|| runtime.handle().clone());
        st.runtimes.push(runtime);
        Ok(handle)
    }

    /// Whether any shard has started (and they have not stopped).
    pub fn started(&self) -> bool {
        !self
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .runtimes
            .is_empty()
    }

    /// Stops them for good: returns the started shards' tokio runtimes, to shut down.
    pub fn stop(&self) -> Vec<tokio::runtime::Runtime> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.stopped = true;
        std::mem::take(&mut st.runtimes)
    }
}

/// The error of work asked for once the workers have stopped.
fn stopped() -> SdkError {
    SdkError::new(
        ErrorCode::Closed,
        "the runtime has been freed: its workers cannot start",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worker thread a task spawned on `handle` runs on.
    fn thread_of(handle: &tokio::runtime::Handle) -> std::thread::ThreadId {
        let (tx, rx) = std::sync::mpsc::channel();
        handle.spawn(async move {
            let _ = tx.send(std::thread::current().id());
        });
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .expect("the task ran")
    }

    /// How many tasks each shard runs.
    fn loads(w: &Workers) -> Vec<usize> {
        std::iter::once(&w.first)
            .chain(w.others.get().into_iter().flat_map(|o| o.iter()))
            .map(|s| s.load.load(Ordering::Relaxed))
            .collect()
    }

    #[test]
    fn work_one_task_at_a_time_stays_on_the_first_shard_and_starts_no_other() {
        let w = Workers::new(Some(2));
        assert!(!w.started());
        let (h, placed) = w.place().unwrap();
        let first = thread_of(h);
        drop(placed);
        for _ in 0..5 {
            let (h, placed) = w.place().unwrap();
            assert_eq!(thread_of(h), first);
            drop(placed);
        }
        // A next turn submitted while the last one's task still ends stays too.
        let (_, ending) = w.place().unwrap();
        let (h, next) = w.place().unwrap();
        assert_eq!(thread_of(h), first);
        drop((ending, next));
        assert!(
            w.others.get().is_none(),
            "the other shards were never made (nor the default count read)"
        );
        assert_eq!(w.stop().len(), 1, "the second shard never started");
    }

    #[test]
    fn work_under_way_at_once_spreads_over_every_shard() {
        let w = Workers::new(Some(2));
        let placed: Vec<_> = (0..10).map(|_| w.place().unwrap()).collect();
        let threads: Vec<_> = placed.iter().map(|(h, _)| thread_of(h)).collect();
        let first = threads.iter().filter(|t| **t == threads[0]).count();
        assert_eq!(first, 5, "{threads:?}");
        assert_eq!(
            threads
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len(),
            2
        );
        assert_eq!(loads(&w), vec![5, 5]);
        drop(placed);
        assert_eq!(loads(&w), vec![0, 0], "a place is given back when dropped");
        assert_eq!(w.stop().len(), 2);
    }

    #[test]
    fn once_stopped_no_shard_takes_work_started_or_not() {
        let never = Workers::new(Some(1));
        assert!(never.stop().is_empty());
        let started = Workers::new(Some(2));
        drop(started.place().unwrap());
        for runtime in started.stop() {
            runtime.shutdown_background();
        }
        for w in [&never, &started] {
            let e = w.place().err().expect("refused");
            assert_eq!(e.code, ErrorCode::Closed);
            assert_eq!(
                e.message,
                "the runtime has been freed: its workers cannot start"
            );
        }
    }
}
