//! Buffers of text-delta events, recycled on the thread that delivers them: a delta's text is
//! copied into a buffer with room for the NUL the C callback gets after it
//! ([`crate::sdk::events::Payload::text`]); once the callback returned, delivery gives the buffer
//! back ([`give_back`]) and the next delta on that thread takes it instead of allocating.
//! With `inline` delivery the worker that emits a turn's deltas also delivers them, so a
//! stream of deltas allocates nothing per delta; elsewhere a thread keeps at most `KEPT`.

use std::cell::RefCell;

/// Buffers kept per thread, at most (a network chunk brings dozens of deltas at once, delivered
/// together at the end of the step).
const KEPT: usize = 64;

/// A buffer larger than this is not kept (a long delta's memory goes back at once).
const MAX_KEPT_BYTES: usize = 256;

thread_local! {
    static SPARE: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// An empty buffer with room for `len` bytes and a NUL: a kept one when this thread has one.
pub fn take(len: usize) -> String {
    let kept = SPARE
        .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.pop()))
        .ok()
        .flatten();
    match kept {
        Some(mut s) => {
            s.reserve(len + 1);
            s
        }
        None => String::with_capacity(len + 1),
    }
}

/// Keeps `s` (emptied) for the next [`take`] on this thread, when there is room.
pub fn give_back(mut s: String) {
    if s.capacity() > MAX_KEPT_BYTES {
        return;
    }
    s.clear();
    let _ = SPARE.try_with(|spare| {
        if let Ok(mut spare) = spare.try_borrow_mut() {
            if spare.len() < KEPT {
                spare.push(s);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_given_back_is_taken_again_on_its_thread_only() {
        let mut a = take(5);
        a.push_str("hello");
        let at = a.as_ptr();
        give_back(a);
        let b = take(3);
        assert!(b.is_empty());
        assert_eq!(b.as_ptr(), at, "the buffer given back is the one taken");
        assert!(b.capacity() >= 4);
        give_back(b);
        // Another thread has none of this thread's buffers.
        let other = std::thread::spawn(|| {
            let s = take(3);
            (s.as_ptr() as usize, s)
        })
        .join()
        .unwrap();
        assert_ne!(other.0, at as usize);
        // A large buffer is not kept; at most KEPT are.
        let big = String::with_capacity(MAX_KEPT_BYTES + 1);
        let big_at = big.as_ptr();
        give_back(big);
        let small = take(1);
        assert_ne!(small.as_ptr(), big_at);
        let many: Vec<String> = (0..KEPT + 4).map(|_| String::with_capacity(16)).collect();
        for s in many {
            give_back(s);
        }
        assert_eq!(SPARE.with(|s| s.borrow().len()), KEPT);
    }
}
