//! The library's own work on a runtime: tasks on the workers (turns, `SessionEnd` hooks) and
//! the few library threads (event dispatchers that run host callbacks). The runtime waits for
//! all of it when it goes away, so a finishing turn still reports and persists.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::sdk::runtime::callback_threads::{CallbackThreads, Job};
use crate::sdk::runtime::workers::Placed;

/// Tasks and threads the runtime waits for before it stops its workers.
#[derive(Default)]
pub struct LibraryWork {
    threads: Mutex<Vec<JoinHandle<()>>>,
    tasks: Arc<TaskCount>,
    callbacks: Arc<CallbackThreads>,
}

/// Live library tasks; `zero` is signalled when the last one ends and somebody waits.
#[derive(Default)]
struct TaskCount {
    live: Mutex<Live>,
    zero: Condvar,
}

/// The count, and how many threads wait for it to reach zero (a signal nobody waits for is
/// still a system call, paid at the end of every turn).
#[derive(Default)]
struct Live {
    tasks: usize,
    waiting: usize,
}

/// Held by a running task; counts it out when the task ends or is dropped unfinished.
pub struct TaskGuard(Arc<TaskCount>);

impl Drop for TaskGuard {
    fn drop(&mut self) {
        let mut live = self.0.live.lock().unwrap_or_else(|p| p.into_inner());
        live.tasks = live.tasks.saturating_sub(1);
        if live.tasks == 0 && live.waiting > 0 {
            self.0.zero.notify_all();
        }
    }
}

impl LibraryWork {
    /// Spawns `task` on the workers of `handle` (the shard `placed` counts it on), counted
    /// until it ends.
    pub fn spawn(
        &self,
        handle: &tokio::runtime::Handle,
        placed: Placed,
        task: Pin<Box<dyn Future<Output = ()> + Send + 'static>>,
    ) {
        let guard = self.count_task();
        // Boxed (by the caller): a turn's future is ~10 KB, which tokio would otherwise copy
        // into the task and again when the task's stage changes; and as one type, tokio's task
        // code is compiled once for every kind of work rather than once per kind.
        // Batched: the events one poll emits reach the host with one wake-up (`wake_batch`).
        let task = crate::sdk::runtime::wake_batch::Batched(task);
        handle.spawn(async move {
            let _counted = guard;
            let _placed = placed;
            task.await;
        });
    }

    /// Counts a task run outside the workers (a turn a host thread drives) until the guard
    /// is dropped.
    pub fn count_task(&self) -> TaskGuard {
        self.tasks
            .live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .tasks += 1;
        TaskGuard(self.tasks.clone())
    }

    /// Runs `job` on one of the runtime's callback threads (see `CallbackThreads`); false
    /// when no thread could be started.
    pub fn run_on_callback_thread(&self, job: Job) -> bool {
        match self.callbacks.run(job) {
            Ok(Some(j)) => {
                self.track_thread(j);
                true
            }
            Ok(None) => true,
            Err(()) => false,
        }
    }

    /// Keeps a library thread to join when the runtime goes away.
    pub fn track_thread(&self, j: JoinHandle<()>) {
        let mut t = self.threads.lock().unwrap_or_else(|p| p.into_inner());
        t.retain(|h| !h.is_finished());
        t.push(j);
    }

    /// Waits until no library task runs and every tracked thread (except the calling one) has
    /// ended, including work that the awaited work starts meanwhile (a turn that ends a closed
    /// session starts its `SessionEnd` task; a finished turn's events start a dispatcher).
    /// On a worker thread tasks are not awaited (that worker may be the one they need).
    pub fn wait_idle(&self) {
        let on_worker = tokio::runtime::Handle::try_current().is_ok();
        loop {
            if !on_worker {
                let mut live = self.tasks.live.lock().unwrap_or_else(|p| p.into_inner());
                while live.tasks > 0 {
                    live.waiting += 1;
                    live = self
                        .tasks
                        .zero
                        .wait(live)
                        .unwrap_or_else(|p| p.into_inner());
                    live.waiting -= 1;
                }
            }
            self.join_threads();
            let tasks_left = self
                .tasks
                .live
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .tasks
                > 0;
            if on_worker || !tasks_left {
                return;
            }
        }
    }

    /// Joins the tracked threads except the calling one.
    fn join_threads(&self) {
        self.callbacks.close();
        let me = std::thread::current().id();
        loop {
            let all: Vec<_> =
                std::mem::take(&mut *self.threads.lock().unwrap_or_else(|p| p.into_inner()));
            if all.is_empty() {
                return;
            }
            for j in all {
                if j.thread().id() != me {
                    let _ = j.join();
                }
            }
        }
    }
}
