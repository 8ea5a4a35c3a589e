//! The library threads that run host callbacks (event dispatch in `thread` delivery): a job
//! runs on an idle thread of the runtime or, when none is idle, on a new one, so a callback
//! that blocks never holds up another session's events (as many threads as sessions calling
//! back at once, as with one thread per session). Idle threads wait [`LINGER`] for more work,
//! so sessions created one after another reuse one thread instead of starting one each.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long an idle callback thread waits for the next job before it ends.
const LINGER: Duration = Duration::from_millis(500);

/// Work for a callback thread.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// Idle threads and the jobs waiting for one.
#[derive(Default)]
pub(crate) struct CallbackThreads {
    state: Mutex<PoolState>,
    cond: Condvar,
}

#[derive(Default)]
struct PoolState {
    jobs: VecDeque<Job>,
    /// Threads waiting for a job.
    idle: usize,
    /// The runtime is going away: idle threads end at once.
    closing: bool,
}

impl CallbackThreads {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `job` on an idle thread, or returns a new thread's handle to track when none was
    /// idle; `Err` when no thread could be started (the job is dropped).
    pub(crate) fn run(self: &Arc<Self>, job: Job) -> Result<Option<JoinHandle<()>>, ()> {
        let mut st = self.lock();
        if st.idle > st.jobs.len() {
            st.jobs.push_back(job);
            drop(st);
            self.cond.notify_one();
            return Ok(None);
        }
        drop(st);
        let me = self.clone();
        std::thread::Builder::new()
            .name("robota-dispatch".into())
            .spawn(move || {
                crate::sdk::runtime::thread_role::mark_library_thread();
                job();
                me.serve();
            })
            .map(Some)
            .map_err(|_| ())
    }

    /// Takes jobs until none came for [`LINGER`] (or the runtime closes).
    fn serve(&self) {
        let mut st = self.lock();
        let mut deadline = Instant::now() + LINGER;
        loop {
            if let Some(job) = st.jobs.pop_front() {
                drop(st);
                job();
                st = self.lock();
                deadline = Instant::now() + LINGER;
                continue;
            }
            let now = Instant::now();
            if st.closing || now >= deadline {
                return;
            }
            st.idle += 1;
            st = self
                .cond
                .wait_timeout(st, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            st.idle -= 1;
        }
    }

    /// Lets idle threads end now (the runtime is going away; jobs queued still run).
    pub(crate) fn close(&self) {
        self.lock().closing = true;
        self.cond.notify_all();
    }
}
