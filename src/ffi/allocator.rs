//! The library's heap (default feature `mimalloc`): the allocations the library's own threads
//! make go through mimalloc instead of the host's `malloc`. The agent loop allocates and frees a
//! few hundred small blocks per model round (events, messages, request bodies); mimalloc's
//! thread-local free lists make each of those ~20 instructions where glibc's `malloc`/`free`
//! took ~100 (docs/performance.md, docs/dev/perf.md §22). Nothing the library allocates is freed
//! by the host or the other way round (the ABI's `*_free` functions free what the library
//! gave), so the host's own `malloc` is untouched and may be anything.
//!
//! Which heap a block comes from depends on the thread
//! (`robota_engine::sdk::runtime::thread_role`): the runtime's workers and callback threads, and
//! a host thread while it drives a turn itself (`robota_session_run`), take it from mimalloc;
//! any other host thread — one that only submits, waits or answers — from the system's
//! `malloc`, because mimalloc gives every thread that allocates a heap of its own (~150–180 KB
//! resident: a page per size class it used), which a host running a hundred sessions from a
//! hundred threads of its own paid a hundred times over. A block is freed by the allocator that
//! owns it, on whatever thread: mimalloc's when it lies in the arena reserved at the first
//! allocation (one comparison) or `mi_is_in_heap_region` says so, else the system's.
//!
//! One setting differs from mimalloc's defaults: arenas are committed on demand
//! (`arena_eager_commit` = 0). Eagerly committed arenas are backed by transparent huge pages
//! on Linux, which put ~8 MB into a one-session process's resident set. The environment
//! variable `MIMALLOC_ARENA_EAGER_COMMIT` still overrides it, as every `MIMALLOC_*` does.

use std::alloc::{GlobalAlloc, Layout, System};
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

use mimalloc::MiMalloc;
use robota_engine::sdk::runtime::thread_role::on_library_thread;

/// mimalloc on the library's threads, the system's `malloc` on the host's; mimalloc with the
/// library's defaults applied before its first allocation.
pub(crate) struct LibraryAllocator;

/// mimalloc's `mi_option_arena_eager_commit` (index 4 of `mi_option_t`).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// The address space reserved for the library's heap at its first allocation (committed page by
/// page as it is used; mimalloc's own default reservation is the same 1 GiB).
const ARENA_BYTES: usize = 1 << 30;

extern "C" {
    // mimalloc's arena API (v2, `mimalloc.h`), compiled into `libmimalloc-sys` but not bound by it.
    fn mi_reserve_os_memory_ex(
        size: usize,
        commit: bool,
        allow_large: bool,
        exclusive: bool,
        arena_id: *mut c_int,
    ) -> c_int;
    fn mi_arena_area(arena_id: c_int, size: *mut usize) -> *mut c_void;
}

static SETUP: Once = Once::new();
/// Where the reserved arena starts and how long it is (0 until it exists, or if it could not be
/// reserved: then every free asks mimalloc).
static ARENA_START: AtomicUsize = AtomicUsize::new(0);
static ARENA_LEN: AtomicUsize = AtomicUsize::new(0);

/// Applies the library's defaults once, before the first block is taken from mimalloc (an
/// arena's commit mode is read when the first arena is reserved), and reserves the arena whose
/// range tells the library's blocks from the system's in one comparison.
#[inline]
fn configure() {
    SETUP.call_once(|| {
        // SAFETY: `mi_option_set_default` only stores a value in mimalloc's option table (and
        // keeps a value the environment set); it takes no pointers and may run at any time.
        unsafe { libmimalloc_sys::mi_option_set_default(ARENA_EAGER_COMMIT, 0) };
        // mimalloc's process and this (library) thread's heap, whose random state the
        // reservation's address hint reads; no memory is reserved yet.
        // SAFETY: takes no arguments; may be called more than once.
        unsafe { libmimalloc_sys::mi_thread_init() };
        let mut id: c_int = 0;
        let mut len: usize = 0;
        // SAFETY: both functions write only through the out-pointers given, which point to
        // live locals; the reservation takes address space from the OS, not from this
        // allocator.
        unsafe {
            if mi_reserve_os_memory_ex(ARENA_BYTES, false, false, false, &mut id) == 0 {
                let start = mi_arena_area(id, &mut len);
                if !start.is_null() {
                    ARENA_START.store(start as usize, Ordering::Relaxed);
                    ARENA_LEN.store(len, Ordering::Release);
                }
            }
        }
    });
}

/// Whether mimalloc owns `ptr`: inside the reserved arena (one comparison), or anywhere else
/// mimalloc put a block (a huge one, a later arena), which mimalloc's own map tells.
#[inline]
fn from_mimalloc(ptr: *mut u8) -> bool {
    let len = ARENA_LEN.load(Ordering::Acquire);
    if (ptr as usize).wrapping_sub(ARENA_START.load(Ordering::Relaxed)) < len {
        return true;
    }
    // SAFETY: `mi_is_in_heap_region` only compares the address with mimalloc's arenas and
    // segment map; it never dereferences a pointer mimalloc does not own.
    unsafe { libmimalloc_sys::mi_is_in_heap_region(ptr.cast()) }
}

// SAFETY: each block is taken from mimalloc or from `System` with the caller's layout and given
// back to the one that owns it (`from_mimalloc`) with that layout, so the `GlobalAlloc`
// contract is theirs; a block moved by `realloc` across the two is copied within both sizes.
unsafe impl GlobalAlloc for LibraryAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if on_library_thread() {
            configure();
            // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract for `layout`.
            unsafe { MiMalloc.alloc(layout) }
        } else {
            // SAFETY: as above.
            unsafe { System.alloc(layout) }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if on_library_thread() {
            configure();
            // SAFETY: as for `alloc`.
            unsafe { MiMalloc.alloc_zeroed(layout) }
        } else {
            // SAFETY: as for `alloc`.
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if from_mimalloc(ptr) {
            // SAFETY: `ptr` is a live mimalloc block this allocator gave with `layout`; mimalloc
            // takes a block back on any thread.
            unsafe { MiMalloc.dealloc(ptr, layout) }
        } else {
            // SAFETY: `ptr` is a live block `System` gave with `layout`.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let mine = from_mimalloc(ptr);
        if mine && on_library_thread() {
            // SAFETY: `ptr` is mimalloc's, given with `layout`; the caller upholds the rest.
            unsafe { MiMalloc.realloc(ptr, layout, new_size) }
        } else if !mine {
            // SAFETY: `ptr` is `System`'s, given with `layout`; the caller upholds the rest.
            unsafe { System.realloc(ptr, layout, new_size) }
        } else {
            // A library block grown on a host thread moves to the host's heap (mimalloc would
            // otherwise start a heap for this thread).
            // SAFETY: `new_size` with `layout`'s alignment is a valid layout (the caller's
            // contract); both blocks are live and at least `min(old, new)` bytes long.
            unsafe {
                let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                let moved = System.alloc(new_layout);
                if !moved.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                    MiMalloc.dealloc(ptr, layout);
                }
                moved
            }
        }
    }
}

#[global_allocator]
static ALLOCATOR: LibraryAllocator = LibraryAllocator;

#[cfg(test)]
mod tests {
    use super::{from_mimalloc, ARENA_LEN, ARENA_START};
    use robota_engine::sdk::runtime::thread_role::{mark_library_thread, LibraryThreadScope};
    use std::sync::atomic::Ordering;

    fn in_reserved_arena(ptr: *const u8) -> bool {
        let start = ARENA_START.load(Ordering::Relaxed);
        let len = ARENA_LEN.load(Ordering::Acquire);
        len > 0 && (ptr as usize) >= start && (ptr as usize) < start + len
    }

    /// The library's default is in place once a library thread allocated.
    #[test]
    fn arenas_are_committed_on_demand_unless_the_environment_says_otherwise() {
        std::thread::spawn(|| {
            mark_library_thread();
            let boxed = std::hint::black_box(Box::new([7u8; 64]));
            assert_eq!(boxed[63], 7);
        })
        .join()
        .unwrap();
        // SAFETY: reads one entry of mimalloc's option table.
        let value = unsafe { libmimalloc_sys::mi_option_get(super::ARENA_EAGER_COMMIT) };
        let expected = match std::env::var("MIMALLOC_ARENA_EAGER_COMMIT") {
            Ok(v) => v.trim().parse::<std::os::raw::c_long>().unwrap_or(0),
            Err(_) => 0,
        };
        assert_eq!(value, expected);
    }

    /// A host thread's blocks come from `malloc`, a library thread's from mimalloc, and each is
    /// freed or grown on the other kind of thread by its owner, its bytes kept.
    #[test]
    fn blocks_come_from_the_threads_heap_and_go_back_to_their_owner_anywhere() {
        let host: Vec<u8> = (0..100u8).collect();
        assert!(!from_mimalloc(host.as_ptr().cast_mut()));
        let library = std::thread::spawn(move || {
            mark_library_thread();
            let mut grown = host;
            grown.extend(100..=255u8);
            assert!(
                !from_mimalloc(grown.as_ptr().cast_mut()),
                "grown where it lives"
            );
            let mut own: Vec<u8> = (0..50u8).collect();
            assert!(from_mimalloc(own.as_ptr().cast_mut()));
            assert!(
                in_reserved_arena(own.as_ptr()),
                "the library's blocks are told by range"
            );
            own.reserve_exact(4096);
            assert!(from_mimalloc(own.as_ptr().cast_mut()));
            (grown, own)
        })
        .join()
        .unwrap();
        let (grown, mut own) = library;
        assert_eq!(grown, (0..=255u8).collect::<Vec<u8>>());
        own.extend(std::iter::repeat_n(9u8, 10_000));
        assert!(
            !from_mimalloc(own.as_ptr().cast_mut()),
            "moved to the host's heap"
        );
        assert_eq!(&own[..50], &(0..50u8).collect::<Vec<u8>>()[..]);
        assert_eq!(own.len(), 10_050);
        {
            let _driving = LibraryThreadScope::enter();
            let turn = std::hint::black_box(Box::new([1u8; 32]));
            assert!(from_mimalloc(turn.as_ptr().cast_mut()));
        }
        let after = std::hint::black_box(Box::new([1u8; 32]));
        assert!(!from_mimalloc(after.as_ptr().cast_mut()));
    }
}
