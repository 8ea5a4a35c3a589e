//! The time of the event being emitted. A streaming step that has just read the clock (a text
//! delta's arrival, read for the provider call's idle timeout) lends that time to what it
//! emits synchronously on its thread, so a reader of the time (the transcript's line stamp)
//! does not read the clock again: a read costs ~30 ns, a turn streams tens of deltas.

use std::cell::Cell;
use std::time::{Instant, SystemTime};

thread_local! {
    static LENT: Cell<Option<SystemTime>> = const { Cell::new(None) };
}

/// The time lent on this thread ([`lend`]) or, when none is, the clock's.
pub fn event_time() -> SystemTime {
    LENT.with(Cell::get).unwrap_or_else(SystemTime::now)
}

/// Runs `f` with `at` as this thread's event time (the previous one comes back after it,
/// also when `f` unwinds).
pub fn lend<R>(at: SystemTime, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<SystemTime>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(LENT.with(|c| c.replace(Some(at))));
    f()
}

/// Wall-clock times of monotonic instants: the wall clock read once, at the start of a
/// provider call, then followed by the monotonic clock (within a call the two drift by at
/// most the clock's slewing, well under a millisecond per second).
#[derive(Clone, Copy, Debug)]
pub struct WallAnchor {
    mono: Instant,
    wall: SystemTime,
}

impl WallAnchor {
    /// Anchored now.
    pub fn now() -> Self {
        WallAnchor {
            mono: Instant::now(),
            wall: SystemTime::now(),
        }
    }

    /// The monotonic instant the anchor was taken at.
    pub fn instant(&self) -> Instant {
        self.mono
    }

    /// The wall-clock time of `at` (an instant before the anchor: the anchor's time).
    pub fn wall(&self, at: Instant) -> SystemTime {
        let since = at.saturating_duration_since(self.mono);
        self.wall.checked_add(since).unwrap_or(self.wall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_lent_time_is_the_event_time_only_while_lent() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_234_567);
        let before = SystemTime::now();
        assert!(event_time() >= before);
        let inner = lend(at, || {
            let nested = SystemTime::UNIX_EPOCH + Duration::from_millis(7);
            assert_eq!(lend(nested, event_time), nested);
            event_time()
        });
        assert_eq!(inner, at);
        assert!(event_time() >= before);
        // Another thread never sees it.
        lend(at, || {
            let other = std::thread::spawn(event_time).join().unwrap();
            assert_ne!(other, at);
        });
    }

    #[test]
    fn a_lent_time_is_given_back_when_the_lender_unwinds() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(42);
        let r = std::panic::catch_unwind(|| lend(at, || panic!("boom")));
        assert!(r.is_err());
        assert_ne!(event_time(), at);
    }

    #[test]
    fn anchored_wall_times_follow_the_monotonic_clock() {
        let a = WallAnchor::now();
        let later = a.instant() + Duration::from_millis(1500);
        assert_eq!(
            a.wall(later).duration_since(a.wall(a.instant())).unwrap(),
            Duration::from_millis(1500)
        );
        // An instant before the anchor is the anchor's time.
        let earlier = a.instant().checked_sub(Duration::from_millis(5));
        if let Some(e) = earlier {
            assert_eq!(a.wall(e), a.wall(a.instant()));
        }
        let now = SystemTime::now();
        let diff = match now.duration_since(a.wall(Instant::now())) {
            Ok(d) => d,
            Err(e) => e.duration(),
        };
        assert!(diff < Duration::from_millis(50), "{diff:?}");
    }
}
