//! Which threads are the library's own. The library's global allocator (the `robota` crate,
//! `src/ffi/allocator.rs`) gives the library's threads — the runtime's workers, its callback
//! threads, and a host thread while it drives its second and later turns itself — a fast
//! thread-local heap, and every other thread the host's `malloc`: a host that calls in from a
//! hundred threads of its own then pays no per-thread heap for the few blocks a call allocates
//! there. A heap of its own costs a thread ~250 KB of touched memory and its setup; it pays
//! back over the turns a thread drives (~14 % fewer instructions per turn than `malloc`), not
//! on the one turn of a thread started for one session, so a host thread earns it by driving a
//! second turn.

use std::cell::Cell;

thread_local! {
    /// Set on the library's threads (and while a host thread drives a turn).
    static LIBRARY_THREAD: Cell<bool> = const { Cell::new(false) };
    /// Turns the calling thread began to drive itself.
    static TURNS_DRIVEN: Cell<u32> = const { Cell::new(0) };
}

/// Turns a host thread drives on `malloc` before it drives on the library's heap.
pub const TURNS_BEFORE_HEAP: u32 = 1;

/// Marks the calling thread as one of the library's own for the rest of its life.
pub fn mark_library_thread() {
    LIBRARY_THREAD.with(|flag| flag.set(true));
}

/// Whether the calling thread is one of the library's own (or is driving a turn).
#[inline]
pub fn on_library_thread() -> bool {
    LIBRARY_THREAD.with(Cell::get)
}

/// Counts the calling thread as the library's while it lives (a host thread driving a turn);
/// dropping it restores what the thread was.
pub struct LibraryThreadScope {
    was: bool,
}

impl LibraryThreadScope {
    /// Enters the scope on the calling thread.
    pub fn enter() -> Self {
        let was = LIBRARY_THREAD.with(|flag| flag.replace(true));
        Self { was }
    }

    /// For a thread about to drive a turn: enters the scope from the thread's second driven turn
    /// on ([`TURNS_BEFORE_HEAP`]); its first turn allocates as the thread otherwise does.
    pub fn enter_for_turn() -> Option<Self> {
        let before = TURNS_DRIVEN.with(|n| n.replace(n.get().saturating_add(1)));
        (before >= TURNS_BEFORE_HEAP).then(Self::enter)
    }
}

impl Drop for LibraryThreadScope {
    fn drop(&mut self) {
        LIBRARY_THREAD.with(|flag| flag.set(self.was));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_thread_is_the_hosts_until_marked_and_a_scope_restores_what_it_was() {
        std::thread::spawn(|| {
            assert!(!on_library_thread());
            {
                let _scope = LibraryThreadScope::enter();
                assert!(on_library_thread());
            }
            assert!(!on_library_thread());
            mark_library_thread();
            assert!(on_library_thread());
            {
                let _scope = LibraryThreadScope::enter();
            }
            assert!(on_library_thread());
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_host_thread_drives_its_first_turn_on_malloc_and_later_ones_on_the_library_heap() {
        std::thread::spawn(|| {
            let first = LibraryThreadScope::enter_for_turn();
            assert!(first.is_none());
            assert!(!on_library_thread());
            drop(first);
            for _ in 0..3 {
                let later = LibraryThreadScope::enter_for_turn();
                assert!(later.is_some());
                assert!(on_library_thread());
                drop(later);
                assert!(!on_library_thread());
            }
        })
        .join()
        .unwrap();
        // Each thread counts its own turns.
        std::thread::spawn(|| assert!(LibraryThreadScope::enter_for_turn().is_none()))
            .join()
            .unwrap();
    }
}
