//! Model prices (USD per million tokens) and the cost of a call's usage, for the
//! `max_cost_usd` budget. The prices are Anthropic's public list prices
//! (<https://platform.claude.com/docs/en/about-claude/pricing>, checked 2026-11-25): standard
//! API rates, 5-minute cache writes, no batch discount. Usage is read the Anthropic way:
//! `input_tokens` excludes cache reads and writes, which are priced on their own.

use super::tokens::TokenUsage;

/// Prompt size (input + cache reads + cache writes) above which a long-context model bills
/// its premium rates.
pub const LONG_CONTEXT_THRESHOLD: u64 = 200_000;

/// One model's prices in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPrice {
    /// Uncached input.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Cache writes (5-minute TTL).
    pub cache_write: f64,
    /// Cache reads.
    pub cache_read: f64,
    /// A prompt over [`LONG_CONTEXT_THRESHOLD`] tokens bills input-side rates ×2 and output
    /// ×1.5 (Anthropic's 1M-context pricing).
    pub long_context: bool,
}

/// Claude Opus 4.5 / 4.6.
pub const OPUS_4_5: ModelPrice = ModelPrice {
    input: 5.0,
    output: 25.0,
    cache_write: 6.25,
    cache_read: 0.5,
    long_context: false,
};

/// Claude Opus 4.6 (1M context: premium rates above 200K prompt tokens).
pub const OPUS_4_6: ModelPrice = ModelPrice {
    long_context: true,
    ..OPUS_4_5
};

/// Claude Sonnet 4.5 / 4.6 (1M context: premium rates above 200K prompt tokens).
pub const SONNET_4_5: ModelPrice = ModelPrice {
    input: 3.0,
    output: 15.0,
    cache_write: 3.75,
    cache_read: 0.3,
    long_context: true,
};

/// Claude Haiku 4.5.
pub const HAIKU_4_5: ModelPrice = ModelPrice {
    input: 1.0,
    output: 5.0,
    cache_write: 1.25,
    cache_read: 0.1,
    long_context: false,
};

impl ModelPrice {
    /// The cost of one call's usage in micro-USD (tokens × USD/MTok = micro-USD), rounded up.
    pub fn cost_micro_usd(&self, u: &TokenUsage) -> u64 {
        let prompt = u.input_tokens + u.cache_read_tokens + u.cache_creation_tokens;
        let (inp, out) = if self.long_context && prompt > LONG_CONTEXT_THRESHOLD {
            (2.0, 1.5)
        } else {
            (1.0, 1.0)
        };
        let micro = inp
            * (u.input_tokens as f64 * self.input
                + u.cache_read_tokens as f64 * self.cache_read
                + u.cache_creation_tokens as f64 * self.cache_write)
            + out * u.output_tokens as f64 * self.output;
        micro.ceil() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_follow_the_list_prices() {
        let u = TokenUsage {
            input_tokens: 1000,
            output_tokens: 100,
            cache_read_tokens: 2000,
            cache_creation_tokens: 400,
            total_tokens: None,
        };
        // 1000×3 + 100×15 + 2000×0.3 + 400×3.75 = 3000 + 1500 + 600 + 1500
        assert_eq!(SONNET_4_5.cost_micro_usd(&u), 6600);
        assert_eq!(HAIKU_4_5.cost_micro_usd(&u), 2200);
        let long = TokenUsage {
            input_tokens: 250_000,
            output_tokens: 1000,
            ..Default::default()
        };
        assert_eq!(SONNET_4_5.cost_micro_usd(&long), 1_500_000 + 22_500);
        assert_eq!(OPUS_4_5.cost_micro_usd(&long), 1_250_000 + 25_000);
    }
}
