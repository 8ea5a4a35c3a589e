//! Model prices (USD per million tokens) and the cost of a call's usage, for the
//! `max_cost_usd` budget. The prices are the model table's ([`super::models`], from LiteLLM's
//! catalog): standard API rates, 5-minute cache writes, no batch discount. Usage is read the
//! Anthropic way: `input_tokens` excludes cache reads and writes, which are priced on their own.
//! Cache writes with the one-hour lifetime cost twice the input price (Anthropic's rule; the
//! 5-minute ones cost the table's rate, 1.25 times the input price).

use super::prompt_cache::PromptCache;
use super::tokens::TokenUsage;

/// One-hour cache writes cost this many times the input price.
pub const ONE_HOUR_WRITE_FACTOR: f64 = 2.0;

/// Prompt size (input + cache reads + cache writes) above which a model with
/// [`ModelPrice::above_200k`] rates bills them.
pub const LONG_CONTEXT_THRESHOLD: u64 = 200_000;

/// One model's prices in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPrice {
    /// Uncached input.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Cache writes (5-minute TTL; the input price when the catalog gives none).
    pub cache_write: f64,
    /// Cache reads (the input price when the catalog gives none).
    pub cache_read: f64,
    /// The rates of a prompt over [`LONG_CONTEXT_THRESHOLD`] tokens, for models that bill more
    /// for long prompts.
    pub above_200k: Option<LongContextPrice>,
}

/// The rates a long prompt bills (USD per million tokens).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LongContextPrice {
    /// Uncached input.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Cache writes.
    pub cache_write: f64,
    /// Cache reads.
    pub cache_read: f64,
}

impl ModelPrice {
    /// The cost of one call's usage in micro-USD (tokens × USD/MTok = micro-USD), rounded up.
    pub fn cost_micro_usd(&self, u: &TokenUsage) -> u64 {
        self.cost_micro_usd_cached(u, PromptCache::FiveMinutes)
    }

    /// [`Self::cost_micro_usd`] with the cache writes priced for `cache`'s lifetime.
    pub fn cost_micro_usd_cached(&self, u: &TokenUsage, cache: PromptCache) -> u64 {
        let prompt = u.prompt_tokens();
        let mut rates = match self.above_200k {
            Some(l) if prompt > LONG_CONTEXT_THRESHOLD => l,
            _ => LongContextPrice {
                input: self.input,
                output: self.output,
                cache_write: self.cache_write,
                cache_read: self.cache_read,
            },
        };
        if cache == PromptCache::OneHour {
            rates.cache_write = ONE_HOUR_WRITE_FACTOR * rates.input;
        }
        let micro = u.input_tokens as f64 * rates.input
            + u.cache_read_tokens as f64 * rates.cache_read
            + u.cache_creation_tokens as f64 * rates.cache_write
            + u.output_tokens as f64 * rates.output;
        micro.ceil() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_follow_the_rates_of_the_prompt_size() {
        let p = ModelPrice {
            input: 3.0,
            output: 15.0,
            cache_write: 3.75,
            cache_read: 0.3,
            above_200k: Some(LongContextPrice {
                input: 6.0,
                output: 22.5,
                cache_write: 7.5,
                cache_read: 0.6,
            }),
        };
        let u = TokenUsage {
            input_tokens: 1000,
            output_tokens: 100,
            cache_read_tokens: 2000,
            cache_creation_tokens: 400,
            total_tokens: None,
        };
        // 1000×3 + 100×15 + 2000×0.3 + 400×3.75 = 3000 + 1500 + 600 + 1500
        assert_eq!(p.cost_micro_usd(&u), 6600);
        let long = TokenUsage {
            input_tokens: 250_000,
            output_tokens: 1000,
            ..Default::default()
        };
        assert_eq!(p.cost_micro_usd(&long), 1_500_000 + 22_500);
        let flat = ModelPrice {
            above_200k: None,
            ..p
        };
        assert_eq!(flat.cost_micro_usd(&long), 750_000 + 15_000);
    }

    #[test]
    fn one_hour_cache_writes_cost_twice_the_input_price() {
        let p = ModelPrice {
            input: 3.0,
            output: 15.0,
            cache_write: 3.75,
            cache_read: 0.3,
            above_200k: None,
        };
        let u = TokenUsage {
            input_tokens: 100,
            cache_read_tokens: 10_000,
            cache_creation_tokens: 1000,
            ..Default::default()
        };
        // 100×3 + 10000×0.3 + 1000×3.75 (5m) or 1000×6 (1h)
        assert_eq!(p.cost_micro_usd(&u), 300 + 3000 + 3750);
        assert_eq!(
            p.cost_micro_usd_cached(&u, PromptCache::FiveMinutes),
            300 + 3000 + 3750
        );
        assert_eq!(
            p.cost_micro_usd_cached(&u, PromptCache::OneHour),
            300 + 3000 + 6000
        );
    }
}
