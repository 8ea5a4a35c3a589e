//! Cross-thread wake-ups batched per poll of a library task. A turn emits its events one by
//! one (a model chunk of 50 text deltas is 50 pushes); waking the session's dispatcher thread
//! at the first push makes it deliver one event, sleep, and be woken again for the next — a
//! futex wake and two context switches per event. Inside a [`Batched`] poll, a queue defers
//! its wake-up to the end of the poll instead, so everything the task emitted before it next
//! waits (for the network, a host tool, a timer) is handed over with one wake-up.
//!
//! Only the thread that polls a [`Batched`] future defers; pushes from any other thread (tool
//! threads, host calls inside callbacks) wake at once as before. Nothing the task does within
//! one poll may block on the deferred party, which holds for library tasks: they await.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A wake-up that can wait until the current batched poll ends.
pub trait DeferredWake: Send + Sync {
    /// Performs the wake-up now.
    fn wake_now(self: Arc<Self>);
}

#[derive(Default)]
struct Batch {
    open: bool,
    /// The deferred wake-ups are being performed: the task's poll is over, so the thread holds
    /// nothing of the task's (see [`at_poll_end`]).
    closing: bool,
    wakes: Vec<Arc<dyn DeferredWake>>,
    /// Wake-ups that may be performed once the polled task has finished its turn
    /// ([`turn_ended`]), when that comes before the end of the poll.
    turn_end: Vec<Arc<dyn DeferredWake>>,
}

thread_local! {
    static BATCH: RefCell<Batch> = RefCell::new(Batch::default());
}

/// Runs `w` at the end of the batched poll running on this thread, or now when there is none.
pub fn wake_soon(w: Arc<dyn DeferredWake>) {
    defer_or_wake(w, |b| &mut b.wakes);
}

/// Puts `w` on the list `list` picks from this thread's open batch, or performs it now when no
/// batched poll runs here.
fn defer_or_wake(
    w: Arc<dyn DeferredWake>,
    list: fn(&mut Batch) -> &mut Vec<Arc<dyn DeferredWake>>,
) {
    let now = BATCH
        .try_with(|b| {
            let mut b = b.borrow_mut();
            if b.open {
                list(&mut b).push(w.clone());
                false
            } else {
                true
            }
        })
        .unwrap_or(true);
    if now {
        w.wake_now();
    }
}

/// Runs `w` when the task polled on this thread reports the end of its turn ([`turn_ended`]),
/// or at the end of the poll if that comes first; now when there is no batched poll. For a
/// wake-up of somebody waiting for the turn's end, who would find the turn still running when
/// woken earlier, and whose wake-up need not wait for what the task drops after the turn.
pub fn wake_at_turn_end(w: Arc<dyn DeferredWake>) {
    defer_or_wake(w, |b| &mut b.turn_end);
}

/// The task polled on this thread has finished its turn: performs the wake-ups
/// [`wake_at_turn_end`] deferred.
pub fn turn_ended() {
    let wakes = BATCH
        .try_with(|b| std::mem::take(&mut b.borrow_mut().turn_end))
        .unwrap_or_default();
    if !wakes.is_empty() {
        perform(wakes, |b| &mut b.turn_end);
    }
}

/// Performs `wakes`, then gives the emptied buffer back to the list `list` picks, so the next
/// poll or turn does not allocate.
fn perform(
    mut wakes: Vec<Arc<dyn DeferredWake>>,
    list: fn(&mut Batch) -> &mut Vec<Arc<dyn DeferredWake>>,
) {
    for w in wakes.drain(..) {
        w.wake_now();
    }
    let _ = BATCH.try_with(|b| {
        let mut b = b.borrow_mut();
        let l = list(&mut b);
        if l.capacity() == 0 {
            *l = wakes;
        }
    });
}

/// True while this thread performs the wake-ups deferred to the end of a batched poll: the
/// poll is over and the task holds no lock, so a wake-up may do the woken party's work here
/// (`inline` event delivery runs host callbacks on the worker this way).
pub fn at_poll_end() -> bool {
    BATCH.try_with(|b| b.borrow().closing).unwrap_or(false)
}

/// How many wake-ups wait for the end of this thread's batched poll (for the C library's
/// delivery tests).
pub fn deferred() -> usize {
    BATCH
        .try_with(|b| {
            let b = b.borrow();
            b.wakes.len() + b.turn_end.len()
        })
        .unwrap_or(0)
}

/// Opens a batch on this thread; false when one is open already (nested poll).
fn open() -> bool {
    BATCH
        .try_with(|b| {
            let mut b = b.borrow_mut();
            !std::mem::replace(&mut b.open, true)
        })
        .unwrap_or(false)
}

/// Closes this thread's batch and performs its wake-ups (also when the poll panicked).
struct CloseOnDrop;

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        turn_ended();
        let wakes = BATCH
            .try_with(|b| {
                let mut b = b.borrow_mut();
                b.open = false;
                b.closing = !b.wakes.is_empty();
                std::mem::take(&mut b.wakes)
            })
            .unwrap_or_default();
        perform(wakes, |b| &mut b.wakes);
        let _ = BATCH.try_with(|b| b.borrow_mut().closing = false);
    }
}

/// A future whose polls batch the wake-ups it causes (see the module docs).
pub struct Batched<F>(pub F);

impl<F: Future + Unpin> Future for Batched<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let _close = open().then_some(CloseOnDrop);
        Pin::new(&mut self.0).poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counter(AtomicUsize);
    impl DeferredWake for Counter {
        fn wake_now(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn outside_a_batch_wakes_at_once() {
        let c = Arc::new(Counter(AtomicUsize::new(0)));
        wake_soon(c.clone());
        assert_eq!(c.0.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn inside_a_batch_wakes_when_the_poll_ends() {
        let c = Arc::new(Counter(AtomicUsize::new(0)));
        let seen_inside = Arc::new(AtomicUsize::new(usize::MAX));
        let (c2, seen) = (c.clone(), seen_inside.clone());
        let fut = Batched(Box::pin(async move {
            wake_soon(c2.clone());
            wake_soon(c2.clone());
            seen.store(c2.0.load(Ordering::SeqCst), Ordering::SeqCst);
        }));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(fut);
        assert_eq!(
            seen_inside.load(Ordering::SeqCst),
            0,
            "deferred inside the poll"
        );
        assert_eq!(c.0.load(Ordering::SeqCst), 2, "performed after it");
        // The batch is closed again: a later wake-up is immediate.
        wake_soon(c.clone());
        assert_eq!(c.0.load(Ordering::SeqCst), 3);
    }
}
