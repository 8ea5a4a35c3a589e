//! Which threads are the library's own. The library's global allocator (the `robota` crate,
//! `src/ffi/allocator.rs`) gives the library's threads — the runtime's workers, its callback
//! threads, and a host thread while it drives a turn itself — a fast thread-local heap, and
//! every other thread the host's `malloc`: a host that calls in from a hundred threads of its
//! own then pays no per-thread heap for the few blocks a call allocates there.

use std::cell::Cell;

thread_local! {
    /// Set on the library's threads (and while a host thread drives a turn).
    static LIBRARY_THREAD: Cell<bool> = const { Cell::new(false) };
}

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
}
