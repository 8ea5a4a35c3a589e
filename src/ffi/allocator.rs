//! The library's heap (default feature `mimalloc`): every allocation the library makes goes
//! through mimalloc instead of the host's `malloc`. The agent loop allocates and frees a few
//! hundred small blocks per model round (events, messages, request bodies); mimalloc's
//! thread-local free lists make each of those ~20 instructions where glibc's `malloc`/`free`
//! took ~100 (docs/performance.md, docs/dev/perf.md §22). Nothing the library allocates is freed
//! by the host or the other way round (the ABI's `*_free` functions free what the library
//! gave), so the host's own `malloc` is untouched and may be anything.
//!
//! One setting differs from mimalloc's defaults: arenas are committed on demand
//! (`arena_eager_commit` = 0). Eagerly committed arenas are backed by transparent huge pages
//! on Linux, which put ~8 MB into a one-session process's resident set. The environment
//! variable `MIMALLOC_ARENA_EAGER_COMMIT` still overrides it, as every `MIMALLOC_*` does.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, Ordering};

use mimalloc::MiMalloc;

/// mimalloc with the library's defaults applied before its first allocation.
pub(crate) struct LibraryAllocator;

/// mimalloc's `mi_option_arena_eager_commit` (index 4 of `mi_option_t`).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

static CONFIGURED: AtomicBool = AtomicBool::new(false);

/// Applies the library's defaults once, before the first block is taken from mimalloc (an
/// arena's commit mode is read when the first arena is reserved). Two threads racing here
/// both set the same default, which is harmless.
#[inline]
fn configure() {
    if !CONFIGURED.load(Ordering::Relaxed) {
        // SAFETY: `mi_option_set_default` only stores a value in mimalloc's option table (and
        // keeps a value the environment set); it takes no pointers and may run at any time.
        unsafe { libmimalloc_sys::mi_option_set_default(ARENA_EAGER_COMMIT, 0) };
        CONFIGURED.store(true, Ordering::Relaxed);
    }
}

// SAFETY: every method configures mimalloc's defaults (no allocation) and then delegates to
// `MiMalloc` with the caller's arguments, so the `GlobalAlloc` contract is mimalloc's.
unsafe impl GlobalAlloc for LibraryAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        configure();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract for `layout`.
        unsafe { MiMalloc.alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        configure();
        // SAFETY: as for `alloc`.
        unsafe { MiMalloc.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator (so from `MiMalloc`) with `layout`.
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; the caller upholds the rest.
        unsafe { MiMalloc.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: LibraryAllocator = LibraryAllocator;

#[cfg(test)]
mod tests {
    /// The library's default is in place once anything was allocated (the test harness has).
    #[test]
    fn arenas_are_committed_on_demand_unless_the_environment_says_otherwise() {
        let boxed = Box::new([7u8; 64]);
        assert_eq!(boxed[63], 7);
        // SAFETY: reads one entry of mimalloc's option table.
        let value = unsafe { libmimalloc_sys::mi_option_get(super::ARENA_EAGER_COMMIT) };
        let expected = match std::env::var("MIMALLOC_ARENA_EAGER_COMMIT") {
            Ok(v) => v.trim().parse::<std::os::raw::c_long>().unwrap_or(0),
            Err(_) => 0,
        };
        assert_eq!(value, expected);
    }
}
