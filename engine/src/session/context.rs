//! ContextWindowTracker: used/max tokens and percentages (used % capped at 100, two decimals),
//! and whether auto-compaction is due (used % at or above the threshold).

use serde::Serialize;

use crate::core::message::Message;
use crate::core::store::ConversationStore;
use crate::core::util::round2;

/// Auto-compaction threshold (fraction of the window).
pub const AUTO_COMPACT_THRESHOLD: f64 = 0.835;

/// The context-window state shown to users.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ContextState {
    /// Estimated tokens in use.
    pub used_tokens: u64,
    /// The window size.
    pub max_tokens: u64,
    /// `min(100, used / max × 100)`, two decimals.
    pub used_percentage: f64,
    /// `100 − used_percentage`, two decimals.
    pub remaining_percentage: f64,
}

/// Tracks the context window of one session.
#[derive(Debug, Clone)]
pub struct ContextWindowTracker {
    max_tokens: u64,
    used_tokens: u64,
}

impl ContextWindowTracker {
    /// A tracker for a window of `max_tokens` (0 is treated as 1 to avoid dividing by zero).
    pub fn new(max_tokens: u64) -> Self {
        ContextWindowTracker {
            max_tokens: max_tokens.max(1),
            used_tokens: 0,
        }
    }

    /// Changes the window size (model switch).
    pub fn set_max_tokens(&mut self, max_tokens: u64) {
        self.max_tokens = max_tokens.max(1);
    }

    /// Sets used tokens from the shared estimator over the store's messages (provider usage
    /// when the last message carries it, else the serialized estimate).
    pub fn update_from_store(&mut self, store: &ConversationStore) {
        // O(1): the store caches the serialized length and the latest usage (a scan of the
        // whole history per call made every turn O(history)).
        self.used_tokens = store.estimate(None).used_tokens;
    }

    /// Like [`Self::update_from_store`] with `pending` appended (the pre-send estimate).
    pub fn update_with_pending(&mut self, store: &ConversationStore, pending: &Message) {
        self.used_tokens = store.estimate_with(pending, None).used_tokens;
    }

    /// Sets used tokens directly.
    pub fn set_used_tokens(&mut self, used: u64) {
        self.used_tokens = used;
    }

    /// Back to zero (after clearing history).
    pub fn reset(&mut self) {
        self.used_tokens = 0;
    }

    /// The current state.
    pub fn state(&self) -> ContextState {
        let used_pct =
            round2((self.used_tokens as f64 / self.max_tokens as f64 * 100.0).min(100.0));
        ContextState {
            used_tokens: self.used_tokens,
            max_tokens: self.max_tokens,
            used_percentage: used_pct,
            remaining_percentage: round2(100.0 - used_pct),
        }
    }

    /// Whether auto-compaction is due at `threshold` (`0 < t ≤ 1`; `None` = disabled).
    pub fn should_auto_compact(&self, threshold: Option<f64>) -> bool {
        threshold.is_some_and(|t| self.state().used_percentage >= t * 100.0)
    }
}
