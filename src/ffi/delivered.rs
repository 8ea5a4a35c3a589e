//! Which turns of a session have had their `TURN_COMPLETED` handed over to the host: the
//! callback returned (`thread`), or the event was queued (`pump`/`pull`) or discarded because
//! nobody listens. `robota_session_wait` blocks on this ("wait means delivered", ABI v1.1).
//!
//! Turn ids of a session start at 1 and every id gets exactly one `TURN_COMPLETED`, nearly
//! always in order (a dropped queued prompt reports before the running turn it followed), so
//! the set is a contiguous prefix plus the few ids completed out of order.

use std::collections::BTreeSet;

/// The set of turn ids whose `TURN_COMPLETED` was handed over.
#[derive(Debug, Default)]
pub(crate) struct DeliveredTurns {
    /// Every turn id `<= upto` was handed over.
    upto: u64,
    /// Ids above `upto + 1` handed over early.
    above: BTreeSet<u64>,
}

impl DeliveredTurns {
    /// Records that `turn`'s `TURN_COMPLETED` was handed over (0 = no turn: ignored).
    pub(crate) fn mark(&mut self, turn: u64) {
        if turn == 0 || turn <= self.upto {
            return;
        }
        if turn != self.upto + 1 {
            self.above.insert(turn);
            return;
        }
        self.upto = turn;
        while self.above.remove(&(self.upto + 1)) {
            self.upto += 1;
        }
    }

    /// True once `turn`'s `TURN_COMPLETED` was handed over.
    pub(crate) fn has(&self, turn: u64) -> bool {
        turn <= self.upto || self.above.contains(&turn)
    }

    /// True once every turn `1..=last` was handed over.
    pub(crate) fn all_upto(&self, last: u64) -> bool {
        last <= self.upto
    }
}

#[cfg(test)]
mod tests {
    use super::DeliveredTurns;

    #[test]
    fn in_order_marks_advance_the_prefix() {
        let mut d = DeliveredTurns::default();
        assert!(d.all_upto(0));
        assert!(!d.has(1));
        d.mark(1);
        d.mark(2);
        assert!(d.has(1) && d.has(2) && !d.has(3));
        assert!(d.all_upto(2) && !d.all_upto(3));
    }

    #[test]
    fn a_dropped_queued_turn_reporting_first_counts_once_the_gap_closes() {
        let mut d = DeliveredTurns::default();
        d.mark(1);
        d.mark(3); // queued turn 3 dropped by an abort of running turn 2
        assert!(d.has(3) && !d.has(2));
        assert!(!d.all_upto(3));
        d.mark(2);
        assert!(d.all_upto(3));
        assert!(d.above.is_empty());
        d.mark(0);
        d.mark(2);
        assert!(d.all_upto(3) && !d.has(4));
    }
}
