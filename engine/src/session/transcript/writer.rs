//! The transcripts' writer: one background thread for the whole process takes the lines a
//! session recorded (each transcript's [`Pending`] lines, handed over at a turn's end or every
//! [`super::HANDOFF_BYTES`] meanwhile: the thread takes all of them at once,
//! and gives back the written batches to record into, so recording allocates nothing),
//! formats them ([`super::format`]), writes them to their file in the order they
//! were recorded and fsyncs when asked, so no formatting of a hot event, write or fsync runs
//! on a turn's path. After a hand-over the thread looks for new ones every [`POLL`] by itself
//! (group commit: a turn's end neither wakes it nor waits for it, and the lines of many turns
//! and sessions share one wake-up), for up to [`LINGER`] without any; then it waits to be
//! woken and, after another [`LINGER`], ends (it starts again when there is work; if it
//! cannot be started, the caller writes the lines itself). [`Target::wait`] wakes it and
//! blocks until a hand-over is on disk (closing a session waits for it; freeing one does not).
//! [`settle_all`] (the end of a runtime) and [`settle_path`] (a file opened again) wait for
//! what was handed over before.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::format::{Batch, LineFormat, Scratch};
use super::pending::{Pending, Taken, SPARE_MAX};

/// How long the writer thread polls for batches, then sleeps, before it ends.
const LINGER: Duration = Duration::from_secs(1);

/// How often the writer thread looks for batches while it polls: a turn's lines are written
/// and fsync'd at most this long after the turn.
pub(super) const POLL: Duration = Duration::from_millis(10);

/// Formatted lines are written once this many bytes are waiting (the buffer is reused: the
/// batches of many turns are not formatted into one growing buffer).
const WRITE_CHUNK: usize = 256 * 1024;

/// The lock on a transcript's [`Pending`] lines.
pub(super) type PendingGuard<'a> = MutexGuard<'a, Pending>;

/// Where a transcript's lines go: its file, or a [`LineSink`] (the host's session store).
pub(super) enum Output {
    File(File),
    Sink(Arc<dyn LineSink>),
}

/// Takes a transcript's formatted lines instead of a file (the host's session store): each
/// call gets complete lines, in order; an error stops the transcript like a failed write.
pub trait LineSink: Send + Sync {
    /// Appends `lines` (one or more complete JSONL lines, each ending in `\n`).
    fn append(&self, lines: &[u8]) -> io::Result<()>;
}

impl Output {
    fn write_all(&self, lines: &[u8]) -> io::Result<()> {
        match self {
            Output::File(f) => (&*f).write_all(lines),
            Output::Sink(_) if lines.is_empty() => Ok(()),
            Output::Sink(s) => s.append(lines),
        }
    }

    fn sync(&self) -> io::Result<()> {
        match self {
            Output::File(f) => f.sync_data(),
            // The sink's answer is its commitment.
            Output::Sink(_) => Ok(()),
        }
    }

    /// Formatted bytes held before a write: a file is written every [`WRITE_CHUNK`], a sink
    /// gets a pass's lines at once (one request per pass).
    fn chunk(&self) -> usize {
        match self {
            Output::File(_) => WRITE_CHUNK,
            Output::Sink(_) => usize::MAX,
        }
    }
}

/// One transcript file as the writer sees it.
pub(super) struct Target {
    /// The file's path (a transcript reopened for the same file waits for this one's batches).
    path: PathBuf,
    out: Output,
    format: LineFormat,
    /// The lines recorded and not taken yet.
    pending: Mutex<Pending>,
    state: Mutex<TargetState>,
    done: Condvar,
    /// A write or fsync failed: later batches are dropped (a line must never follow a gap).
    failed: AtomicBool,
    /// Times the writer took its lines (a test counts them).
    passes: AtomicU64,
}

#[derive(Default)]
struct TargetState {
    /// The last hand-over written (or dropped after a failure); see [`Pending`].
    written: u64,
    /// Threads in [`Target::wait`].
    waiters: usize,
    /// The first failure, and whether [`Target::take_error`] handed it out.
    error: Option<(io::ErrorKind, String)>,
    error_taken: bool,
}

/// A transcript with lines to take (in the queue once however many hand-overs it had).
struct Job {
    target: Arc<Target>,
}

struct Queue {
    jobs: VecDeque<Job>,
    /// A thread (or a caller, when none could be started) is taking jobs.
    running: bool,
    /// The writer thread waits for a job without polling (so a new one needs a wake-up).
    sleeping: bool,
    /// It waits (polling or not): [`Target::wait`] wakes it.
    idle: bool,
    /// The transcript whose lines are being written right now.
    current: Option<Arc<Target>>,
    /// Jobs queued and jobs done (written, or dropped after a failure), counted from the
    /// start of the process; jobs are done in the order they were queued.
    submitted: u64,
    finished: u64,
    /// Threads in [`settle`].
    settlers: usize,
    /// Threads in [`Target::wait`].
    waiting: usize,
}

struct Writer {
    queue: Mutex<Queue>,
    cond: Condvar,
    /// Signalled after each written group when somebody is in [`settle`].
    settled: Condvar,
}

static WRITER: Writer = Writer {
    queue: Mutex::new(Queue {
        jobs: VecDeque::new(),
        running: false,
        sleeping: false,
        idle: false,
        current: None,
        submitted: 0,
        finished: 0,
        settlers: 0,
        waiting: 0,
    }),
    cond: Condvar::new(),
    settled: Condvar::new(),
};

/// Blocks until the jobs queued so far are done, when one of a transcript matching `which` is
/// among them (waking the writer when it polls, so this does not wait for its next look).
/// Jobs queued meanwhile are not waited for: others that keep writing cannot hold the caller
/// up.
fn settle(which: impl Fn(&Target) -> bool) {
    let mut q = lock(&WRITER.queue);
    let pending =
        q.jobs.iter().any(|j| which(&j.target)) || q.current.as_deref().is_some_and(&which);
    if !pending {
        return;
    }
    let goal = q.submitted;
    while q.finished < goal {
        if q.idle {
            WRITER.cond.notify_one();
        }
        q.settlers += 1;
        q = WRITER.settled.wait(q).unwrap_or_else(|p| p.into_inner());
        q.settlers -= 1;
    }
}

/// Blocks until every line handed over so far (by any transcript) is written and fsync'd
/// when asked: the end of a runtime, so that a session freed just before has its last lines
/// on disk.
pub(super) fn settle_all() {
    settle(|_| true);
}

/// Blocks until the lines handed over by every transcript of the file `path` are written: before the
/// file is opened again (a session resumed right after it was freed), so the new transcript
/// neither reads a line being written nor writes before the old one's last lines.
pub(super) fn settle_path(path: &Path) {
    settle(|t| t.path == path);
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Target {
    /// Writes go to `out` (a file opened for appending, at `path`), lines formatted by
    /// `format`.
    pub(super) fn new(path: PathBuf, out: Output, format: LineFormat) -> Arc<Target> {
        Arc::new(Target {
            path,
            out,
            format,
            pending: Mutex::new(Pending::new()),
            state: Mutex::new(TargetState::default()),
            done: Condvar::new(),
            failed: AtomicBool::new(false),
            passes: AtomicU64::new(0),
        })
    }

    /// The lines recorded and not taken by the writer yet (held briefly: a line, a
    /// hand-over).
    pub(super) fn pending(&self) -> PendingGuard<'_> {
        lock(&self.pending)
    }

    /// How its lines are formatted.
    pub(super) fn format(&self) -> &LineFormat {
        &self.format
    }

    /// How many times the writer took this transcript's lines.
    #[cfg(test)]
    pub(super) fn passes(&self) -> u64 {
        self.passes.load(Ordering::Relaxed)
    }

    /// Whether a write or fsync failed.
    pub(super) fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// The failure, once (later calls: `None`).
    pub(super) fn take_error(&self) -> Option<io::Error> {
        if !self.failed() {
            return None;
        }
        let mut st = lock(&self.state);
        if st.error_taken {
            return None;
        }
        st.error_taken = true;
        st.error
            .as_ref()
            .map(|(k, m)| io::Error::new(*k, m.clone()))
    }

    /// The failure, every time.
    pub(super) fn error(&self) -> Option<io::Error> {
        let st = lock(&self.state);
        st.error
            .as_ref()
            .map(|(k, m)| io::Error::new(*k, m.clone()))
    }

    /// Puts the transcript in the writer's queue (after a hand-over that said so: see
    /// [`Pending::hand_over`]); starts the writer thread when none runs (when none can be
    /// started, writes on this thread).
    pub(super) fn enqueue(self: &Arc<Self>) {
        let mut q = lock(&WRITER.queue);
        q.jobs.push_back(Job {
            target: self.clone(),
        });
        q.submitted += 1;
        if q.running {
            let wake = q.sleeping;
            drop(q);
            if wake {
                WRITER.cond.notify_one();
            }
        } else {
            q.running = true;
            drop(q);
            let started = std::thread::Builder::new()
                .name("robota-transcript".into())
                .spawn(|| {
                    crate::sdk::runtime::thread_role::mark_library_thread();
                    serve(true)
                });
            if started.is_err() {
                serve(false);
            }
        }
    }

    /// Blocks until hand-over `seq` is written (or dropped after a failure). Wakes the writer
    /// only when it is not written yet (a transcript dropped after its last sync does not).
    pub(super) fn wait(&self, seq: u64) {
        if lock(&self.state).written >= seq {
            return;
        }
        {
            let mut q = lock(&WRITER.queue);
            q.waiting += 1;
            if q.idle {
                WRITER.cond.notify_one();
            }
        }
        let mut st = lock(&self.state);
        st.waiters += 1;
        while st.written < seq {
            st = self.done.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        st.waiters -= 1;
        drop(st);
        lock(&WRITER.queue).waiting -= 1;
    }

    /// Formats `batches` into `lines` (a reused buffer), writes them (every [`WRITE_CHUNK`]
    /// bytes) and fsyncs when `sync`. A line that cannot be formatted is an error after the
    /// lines before it were written (and fsync'd).
    fn write(
        &self,
        batches: &[Batch],
        sync: bool,
        scratch: &mut Scratch,
        lines: &mut Vec<u8>,
    ) -> io::Result<()> {
        lines.clear();
        let mut formatted = Ok(());
        for batch in batches {
            formatted = self.format.format(batch, scratch, lines);
            if formatted.is_err() {
                break;
            }
            if lines.len() >= self.out.chunk() {
                self.out.write_all(lines)?;
                lines.clear();
            }
        }
        self.out.write_all(lines)?;
        lines.clear();
        if sync {
            self.out.sync()?;
        }
        formatted
    }
}

/// Takes jobs in order until none is left (`linger`: polls, then sleeps, see the module).
/// Group commit: a pass takes the jobs queued when it starts; the next pass starts no sooner
/// than [`POLL`] after it (jobs queued meanwhile wait for it, so a steady stream of turns
/// shares one write and one fsync per [`POLL`] instead of an fsync right after the other),
/// unless somebody waits for a hand-over ([`Target::wait`], [`settle`]: counted in the queue,
/// and waking the writer when it waits).
fn serve(linger: bool) {
    let mut q = lock(&WRITER.queue);
    let mut quiet = Duration::ZERO;
    let mut scratch = Scratch::default();
    let mut lines = Vec::new();
    let mut batches = Vec::new();
    loop {
        if !q.jobs.is_empty() {
            let started = Instant::now();
            for _ in 0..q.jobs.len() {
                let Some(job) = q.jobs.pop_front() else { break };
                q.current = Some(job.target.clone());
                drop(q);
                batches = run(&job.target, batches, &mut scratch, &mut lines);
                if lines.capacity() > SPARE_MAX {
                    lines = Vec::new();
                }
                drop(job);
                q = lock(&WRITER.queue);
                q.current = None;
                q.finished += 1;
                if q.settlers > 0 {
                    WRITER.settled.notify_all();
                }
            }
            quiet = Duration::ZERO;
            let rest = POLL.saturating_sub(started.elapsed());
            if linger && !rest.is_zero() && q.settlers == 0 && q.waiting == 0 {
                q = idle_for(q, rest);
            }
            continue;
        }
        if !linger || quiet >= LINGER * 2 {
            break;
        }
        let polling = quiet < LINGER;
        q.sleeping = !polling;
        let step = if polling { POLL } else { LINGER };
        q = idle_for(q, step);
        q.sleeping = false;
        quiet += step;
    }
    q.running = false;
    drop(q);
    if linger {
        // Idle for a while: the batches pooled for busy transcripts are freed.
        super::pending::empty_pool();
    }
}

/// Waits up to `d` for a wake-up, marked idle meanwhile ([`Target::wait`] and [`settle`] wake
/// an idle writer).
fn idle_for(mut q: MutexGuard<'_, Queue>, d: Duration) -> MutexGuard<'_, Queue> {
    q.idle = true;
    let (mut q, _) = WRITER
        .cond
        .wait_timeout(q, d)
        .unwrap_or_else(|p| p.into_inner());
    q.idle = false;
    q
}

/// Held by the writer while it writes a group; a test holds it to stop the writer
/// ([`hold_writes`]).
static HOLD: Mutex<()> = Mutex::new(());

/// Stops the writer before its next group until the guard is dropped (for tests of what must
/// not wait for the disk).
pub(super) fn hold_writes() -> MutexGuard<'static, ()> {
    lock(&HOLD)
}

/// Takes the lines of `t` (into `batches`, an emptied vector to reuse), formats and writes
/// them and fsyncs when a hand-over asked for it; the hand-overs count as written after that.
/// Returns the vector, emptied (the batches went back to `t`).
fn run(t: &Target, batches: Vec<Batch>, scratch: &mut Scratch, lines: &mut Vec<u8>) -> Vec<Batch> {
    let _hold = lock(&HOLD);
    t.passes.fetch_add(1, Ordering::Relaxed);
    let Taken {
        mut batches,
        sync,
        seq,
    } = t.pending().take(batches);
    let result = if t.failed() {
        Ok(())
    } else {
        catch_unwind(AssertUnwindSafe(|| t.write(&batches, sync, scratch, lines)))
            .unwrap_or_else(|_| Err(io::Error::other("the transcript writer failed")))
    };
    t.pending().give_back(&mut batches);
    let mut st = lock(&t.state);
    if let Err(e) = result {
        st.error.get_or_insert((e.kind(), e.to_string()));
        t.failed.store(true, Ordering::Relaxed);
    }
    st.written = seq;
    let wake = st.waiters > 0;
    drop(st);
    if wake {
        t.done.notify_all();
    }
    batches
}
