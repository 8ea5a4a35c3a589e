//! The time of the event being emitted, in milliseconds since the Unix epoch (what the
//! transcript's line stamps hold). A streaming step that has just read the clock (a text
//! delta's arrival, read for the provider call's idle timeout) lends that time to the event
//! it emits synchronously on its thread, so its reader does not read the clock again (a read
//! costs ~30 ns here, and a turn streams tens of deltas). The first read takes the lent time:
//! anything later on that thread (a host callback that emits events of its own, however long
//! it runs) reads the clock.

use std::cell::Cell;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

thread_local! {
    static LENT: Cell<Option<i64>> = const { Cell::new(None) };
}

/// The wall clock now, in milliseconds since the epoch (0 before it).
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The time lent on this thread ([`lend`]), taken (the next read gets the clock's), or, when
/// none is lent, the clock's.
pub fn event_millis() -> i64 {
    LENT.with(Cell::take).unwrap_or_else(now_millis)
}

/// Runs `f` with `ms` lent as this thread's event time, for the first read (what was lent
/// before comes back after it, also when `f` unwinds).
pub fn lend<R>(ms: i64, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<i64>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(LENT.with(|c| c.replace(Some(ms))));
    f()
}

/// Wall-clock times of monotonic instants: the wall clock read once, at the start of a
/// provider call (just after the monotonic one), then followed by the monotonic clock (within
/// a call the two drift by at most the clock's slewing, well under a millisecond per second).
/// The anchor keeps the wall clock's nanoseconds and rounds only the sum: rounding either part
/// down would put the times it gives up to a millisecond behind a clock read just before.
#[derive(Clone, Copy, Debug)]
pub struct WallAnchor {
    mono: Instant,
    wall_ns: i64,
}

impl WallAnchor {
    /// Anchored now.
    pub fn now() -> Self {
        let mono = Instant::now();
        let wall_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        WallAnchor { mono, wall_ns }
    }

    /// The monotonic instant the anchor was taken at.
    pub fn instant(&self) -> Instant {
        self.mono
    }

    /// The wall-clock time, in milliseconds since the epoch, `since` after the anchor.
    pub fn millis_after(&self, since: Duration) -> i64 {
        let since = i64::try_from(since.as_nanos()).unwrap_or(i64::MAX);
        self.wall_ns.saturating_add(since) / 1_000_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lent_time_is_the_next_event_time_only_while_lent() {
        let before = now_millis();
        assert!(event_millis() >= before);
        let inner = lend(1_234_567, || {
            assert_eq!(lend(7, event_millis), 7);
            // The outer loan is back after the inner one, for one read.
            (event_millis(), event_millis())
        });
        assert_eq!(inner.0, 1_234_567);
        assert!(inner.1 >= before);
        assert!(event_millis() >= before);
        // Another thread never sees it.
        lend(1_234_567, || {
            let other = std::thread::spawn(event_millis).join().unwrap();
            assert!(other >= before);
        });
    }

    #[test]
    fn a_lent_time_is_given_back_when_the_lender_unwinds() {
        let r = std::panic::catch_unwind(|| lend(42, || panic!("boom")));
        assert!(r.is_err());
        assert_ne!(event_millis(), 42);
    }

    #[test]
    fn anchored_times_follow_the_monotonic_clock_and_match_the_wall_clock() {
        let a = WallAnchor::now();
        assert_eq!(
            a.millis_after(Duration::from_millis(1500)) - a.millis_after(Duration::ZERO),
            1500
        );
        let now = a.millis_after(Instant::now().saturating_duration_since(a.instant()));
        assert!((now_millis() - now).abs() < 50, "{now}");
        let chrono_now = chrono::Utc::now().timestamp_millis();
        assert!((chrono_now - now_millis()).abs() < 50);
    }

    #[test]
    fn an_anchored_time_is_never_behind_the_clock_read_before_it() {
        // Rounding the anchor down to its millisecond made a time up to 1 ms behind a clock
        // read made earlier: this loop crossed a millisecond boundary with it within ~1000
        // reads. The monotonic clock may run slightly slower than the wall clock (slewing), so
        // the time is read right after the anchor, well within any drift.
        for _ in 0..20_000 {
            let a = WallAnchor::now();
            let before = now_millis();
            let at = a.millis_after(Instant::now().saturating_duration_since(a.instant()));
            assert!(at >= before, "anchored {at} behind the clock's {before}");
        }
    }
}
