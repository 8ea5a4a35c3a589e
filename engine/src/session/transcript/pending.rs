//! A transcript's lines between recording and the writer: the batch being recorded into,
//! full batches waiting (a batch is closed at [`super::HANDOFF_BYTES`]), what the
//! hand-overs since the writer last took them ask for, and emptied batches to record into
//! next. The recording thread and the writer share it under one lock, each holding it only
//! to push a line, to hand over, or to swap batches: the writer takes everything at once and
//! gives the written batches back, so a steady stream of turns allocates nothing. Written
//! batches beyond a transcript's few spares wait in one pool for the whole process (the
//! writer takes a transcript's lines once per poll, ~500 short turns' worth, so a busy
//! transcript closes many batches between two passes; and a new transcript starts with a
//! pooled one): memory touched once is recorded into again, not freed to `malloc` — which
//! gives it back to the kernel — and faulted in anew (~1.3 µs per 4 KiB page on this VM).
//! The pool is emptied when the writer thread ends (after two seconds without lines).

use std::sync::{Mutex, MutexGuard};

use super::format::{Batch, Stamp};

/// Written batches a transcript keeps for reuse, at most.
const SPARES_KEPT: usize = 2;

/// Written batches the process keeps for any transcript, at most (each up to
/// [`SPARE_MAX`]; a batch is closed at [`super::HANDOFF_BYTES`], ~200 KB with
/// its entries).
const POOL_KEPT: usize = 16;

/// A written batch (or the writer's line buffer) larger than this is not kept for reuse.
pub(super) const SPARE_MAX: usize = 1 << 20;

/// Emptied batches to record into, at most `kept` (the process has one, [`POOL`]).
pub(super) struct BatchPool {
    batches: Mutex<Vec<Batch>>,
    kept: usize,
}

impl BatchPool {
    const fn new(kept: usize) -> Self {
        BatchPool {
            batches: Mutex::new(Vec::new()),
            kept,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Batch>> {
        self.batches.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A pooled batch, if any.
    fn take(&self) -> Option<Batch> {
        self.lock().pop()
    }

    /// Pools an emptied batch (dropped when the pool is full, or the batch is too large or
    /// holds no memory).
    fn put(&self, b: Batch) {
        if b.capacity() > 0 && b.capacity() <= SPARE_MAX {
            let mut p = self.lock();
            if p.len() < self.kept {
                p.push(b);
            }
        }
    }

    /// Frees the pooled batches (after the lock is released).
    fn empty(&self) {
        let freed = std::mem::take(&mut *self.lock());
        drop(freed);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Emptied batches any transcript records into next.
static POOL: BatchPool = BatchPool::new(POOL_KEPT);

/// Frees the pooled batches (the writer thread ends: no transcript is busy).
pub(super) fn empty_pool() {
    POOL.empty();
}

/// The lines a transcript recorded and the writer has not taken yet.
pub(super) struct Pending {
    /// The batch lines are recorded into.
    pub(super) batch: Batch,
    /// Closed batches, in the order they were recorded (before `batch`).
    full: Vec<Batch>,
    /// Hand-overs so far, counted from 1 (the writer takes all of them at once).
    handed: u64,
    /// A hand-over since the writer last took the lines asks for an fsync.
    sync: bool,
    /// Lines came since the last hand-over that asked for an fsync.
    pub(super) unsynced: bool,
    /// The transcript is in the writer's queue (a hand-over then adds nothing to it).
    queued: bool,
    /// Emptied batches to record into next.
    spares: Vec<Batch>,
    /// The timestamps of the lines formatted while recording (cold events).
    pub(super) stamp: Stamp,
    /// The time of the last line recorded (milliseconds since the epoch).
    last_ms: i64,
    /// Where batches beyond the spares go, and where a batch comes from when none is spare.
    pool: &'static BatchPool,
}

/// What the writer took: the batches in order, whether to fsync after them, and the number of
/// the last hand-over they include.
pub(super) struct Taken {
    pub(super) batches: Vec<Batch>,
    pub(super) sync: bool,
    pub(super) seq: u64,
}

impl Pending {
    /// Ready to record a turn of short lines (allocated when the transcript opens).
    pub(super) fn new() -> Self {
        Self::with_pool(&POOL)
    }

    /// [`Pending::new`] with batches from and to `pool`.
    fn with_pool(pool: &'static BatchPool) -> Self {
        Pending {
            batch: pool.take().unwrap_or_else(Batch::with_capacity),
            full: Vec::new(),
            handed: 0,
            sync: false,
            unsynced: false,
            queued: false,
            spares: Vec::new(),
            stamp: Stamp::default(),
            last_ms: 0,
            pool,
        }
    }

    /// The time of a line recorded now at `ms`: never before the line recorded before it (the
    /// file's times are in order even when two threads' clocks, or a time lent by a streaming
    /// step and a clock read on another thread, disagree by a millisecond).
    pub(super) fn line_millis(&mut self, ms: i64) -> i64 {
        self.last_ms = self.last_ms.max(ms);
        self.last_ms
    }

    /// Closes the batch being recorded into (it waits, full, for the writer) and records into
    /// a spare one, or a new one as large as the closed one.
    pub(super) fn close_batch(&mut self) {
        let next = match self.spares.pop().or_else(|| self.pool.take()) {
            Some(b) => b,
            None => Batch::with_capacity_like(&self.batch),
        };
        let full = std::mem::replace(&mut self.batch, next);
        self.full.push(full);
    }

    /// A hand-over (`sync`: fsync after the lines; nothing to hand over when no line came and
    /// no fsync is owed). Returns its number (to wait for) and whether the transcript must
    /// now enter the writer's queue.
    pub(super) fn hand_over(&mut self, sync: bool) -> (u64, bool) {
        if self.batch.is_empty() && self.full.is_empty() && !(sync && self.unsynced) {
            return (self.handed, false);
        }
        self.handed += 1;
        self.sync |= sync;
        if sync {
            self.unsynced = false;
        }
        let enqueue = !std::mem::replace(&mut self.queued, true);
        (self.handed, enqueue)
    }

    /// The writer takes every line recorded so far into `into` (emptied first; its memory is
    /// reused), leaving a spare batch to record into.
    pub(super) fn take(&mut self, mut into: Vec<Batch>) -> Taken {
        into.clear();
        self.queued = false;
        into.append(&mut self.full);
        let next = self
            .spares
            .pop()
            .or_else(|| self.pool.take())
            .unwrap_or_else(Batch::with_capacity);
        into.push(std::mem::replace(&mut self.batch, next));
        Taken {
            batches: into,
            sync: std::mem::take(&mut self.sync),
            seq: self.handed,
        }
    }

    /// The writer gives written batches back: emptied, a few kept to record into, the
    /// others pooled.
    pub(super) fn give_back(&mut self, batches: &mut Vec<Batch>) {
        for mut b in batches.drain(..) {
            b.clear();
            if self.spares.len() < SPARES_KEPT && b.capacity() <= SPARE_MAX {
                self.spares.push(b);
            } else {
                self.pool.put(b);
            }
        }
    }
}

impl Drop for Pending {
    /// A closed transcript's spare batches (and its last one, written) go to the pool.
    fn drop(&mut self) {
        for b in self.spares.drain(..) {
            self.pool.put(b);
        }
        if self.batch.is_empty() && self.full.is_empty() {
            self.pool.put(std::mem::take(&mut self.batch));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(p: &mut Pending, text: &str) {
        p.batch.push_text(0, "text_delta", 1, "text", text);
        p.unsynced = true;
    }

    fn batch_of(text: &str) -> Batch {
        let mut b = Batch::with_capacity();
        b.push_text(0, "text_delta", 1, "text", text);
        b
    }

    fn emptied(text: &str) -> Batch {
        let mut b = batch_of(text);
        b.clear();
        b
    }

    #[test]
    fn a_pool_keeps_emptied_batches_up_to_its_bound() {
        let pool = BatchPool::new(2);
        assert!(pool.take().is_none());
        pool.put(Batch::default()); // no memory: not worth keeping
        assert_eq!(pool.len(), 0);
        let mut huge = batch_of(&"y".repeat(SPARE_MAX + 1));
        huge.clear();
        pool.put(huge); // too large
        assert_eq!(pool.len(), 0);
        for _ in 0..3 {
            pool.put(emptied("z"));
        }
        assert_eq!(pool.len(), 2);
        let b = pool.take().map(|b| (b.is_empty(), b.capacity() > 0));
        assert_eq!(b, Some((true, true)));
        pool.empty();
        assert!(pool.take().is_none());
    }

    #[test]
    fn written_batches_beyond_the_spares_are_pooled_and_recorded_into_again() {
        static POOL: BatchPool = BatchPool::new(8);
        let mut p = Pending::with_pool(&POOL);
        let mut written: Vec<Batch> = (0..SPARES_KEPT + 2).map(|_| batch_of("w")).collect();
        p.give_back(&mut written);
        assert!(written.is_empty());
        assert_eq!(p.spares.len(), SPARES_KEPT);
        assert!(p.spares.iter().all(Batch::is_empty));
        assert_eq!(POOL.len(), 2);
        // Spares first, then the pool: no new batch while either has one.
        for left in [2, 2, 1, 0] {
            p.close_batch();
            assert_eq!(POOL.len(), left);
        }
        // A closed transcript's spares (none left) and its empty batch go to the pool; a new
        // transcript records into a pooled batch.
        p.full.clear();
        p.batch.clear();
        drop(p);
        assert_eq!(POOL.len(), 1);
        let q = Pending::with_pool(&POOL);
        assert_eq!(POOL.len(), 0);
        assert!(q.batch.capacity() > 0);
    }

    #[test]
    fn line_times_never_go_back() {
        let mut p = Pending::new();
        let got: Vec<i64> = [5, 7, 6, 7, 9, 1]
            .into_iter()
            .map(|ms| p.line_millis(ms))
            .collect();
        assert_eq!(got, [5, 7, 7, 7, 9, 9]);
    }

    #[test]
    fn hand_overs_are_counted_and_queue_the_transcript_once() {
        let mut p = Pending::new();
        // Nothing recorded, nothing owed: no hand-over.
        assert_eq!(p.hand_over(true), (0, false));
        line(&mut p, "a");
        assert_eq!(p.hand_over(false), (1, true));
        line(&mut p, "b");
        // Still queued: counted, not queued again.
        assert_eq!(p.hand_over(true), (2, false));
        let taken = p.take(Vec::new());
        assert_eq!((taken.sync, taken.seq, taken.batches.len()), (true, 2, 1));
        assert_eq!(taken.batches[0].len(), 2);
        assert!(p.batch.is_empty());
        // Taken and fsync'd: nothing owed, no hand-over.
        assert_eq!(p.hand_over(true), (2, false));
        line(&mut p, "c");
        assert_eq!(p.hand_over(false), (3, true));
        // Lines written without an fsync: an fsync is owed even with no new line.
        let taken = p.take(taken.batches);
        assert!(!taken.sync);
        assert_eq!(p.hand_over(true), (4, true));
        assert!(p.take(taken.batches).sync);
    }

    #[test]
    fn closed_batches_are_taken_in_order_and_written_ones_reused() {
        let mut p = Pending::new();
        line(&mut p, "first");
        p.close_batch();
        line(&mut p, "second");
        p.close_batch();
        line(&mut p, "third");
        let mut taken = p.take(Vec::new());
        let lens: Vec<usize> = taken.batches.iter().map(Batch::len).collect();
        assert_eq!(lens, vec![5, 6, 5]);
        p.give_back(&mut taken.batches);
        assert_eq!(p.spares.len(), SPARES_KEPT);
        assert!(taken.batches.is_empty());
        // A spare is recorded into next, emptied.
        p.close_batch();
        assert!(p.batch.is_empty() && p.batch.capacity() > 0);
        assert_eq!(p.spares.len(), SPARES_KEPT - 1);
    }
}
