//! Claude model metadata (`CLAUDE_MODELS`, with list prices from [`super::pricing`]) and
//! `formatTokenCount`.

use super::pricing::{ModelPrice, HAIKU_4_5, OPUS_4_5, OPUS_4_6, SONNET_4_5};

/// Fallback context window for unknown models.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;
/// Fallback max output tokens for unknown models.
pub const DEFAULT_MAX_OUTPUT: u64 = 16_384;

/// One model definition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelDefinition {
    /// API id.
    pub id: &'static str,
    /// Human-readable name.
    pub name: &'static str,
    /// Context window in tokens.
    pub context_window: u64,
    /// Max output tokens.
    pub max_output: u64,
    /// List prices (USD per million tokens).
    pub price: ModelPrice,
}

/// Known Claude models (4.5+), keyed by exact API id.
pub const CLAUDE_MODELS: &[ModelDefinition] = &[
    ModelDefinition {
        id: "claude-opus-4-6",
        name: "Claude Opus 4.6",
        context_window: 1_000_000,
        max_output: 128_000,
        price: OPUS_4_6,
    },
    ModelDefinition {
        id: "claude-sonnet-4-6",
        name: "Claude Sonnet 4.6",
        context_window: 1_000_000,
        max_output: 64_000,
        price: SONNET_4_5,
    },
    ModelDefinition {
        id: "claude-haiku-4-5",
        name: "Claude Haiku 4.5",
        context_window: 200_000,
        max_output: 64_000,
        price: HAIKU_4_5,
    },
    ModelDefinition {
        id: "claude-haiku-4-5-20251001",
        name: "Claude Haiku 4.5",
        context_window: 200_000,
        max_output: 64_000,
        price: HAIKU_4_5,
    },
    ModelDefinition {
        id: "claude-sonnet-4-5",
        name: "Claude Sonnet 4.5",
        context_window: 200_000,
        max_output: 64_000,
        price: SONNET_4_5,
    },
    ModelDefinition {
        id: "claude-sonnet-4-5-20250929",
        name: "Claude Sonnet 4.5",
        context_window: 200_000,
        max_output: 64_000,
        price: SONNET_4_5,
    },
    ModelDefinition {
        id: "claude-opus-4-5",
        name: "Claude Opus 4.5",
        context_window: 200_000,
        max_output: 64_000,
        price: OPUS_4_5,
    },
    ModelDefinition {
        id: "claude-opus-4-5-20251101",
        name: "Claude Opus 4.5",
        context_window: 200_000,
        max_output: 64_000,
        price: OPUS_4_5,
    },
];

/// Looks a model up by exact id.
pub fn find_model(id: &str) -> Option<&'static ModelDefinition> {
    CLAUDE_MODELS.iter().find(|m| m.id == id)
}

/// List prices of a model id (`None` when the table does not know it).
pub fn model_price(id: &str) -> Option<ModelPrice> {
    find_model(id).map(|m| m.price)
}

/// Context window for a model id (unknown → [`DEFAULT_CONTEXT_WINDOW`]).
pub fn model_context_window(id: &str) -> u64 {
    find_model(id).map_or(DEFAULT_CONTEXT_WINDOW, |m| m.context_window)
}

/// Max output for a model id (unknown → [`DEFAULT_MAX_OUTPUT`]).
pub fn model_max_output(id: &str) -> u64 {
    find_model(id).map_or(DEFAULT_MAX_OUTPUT, |m| m.max_output)
}

/// Human-readable name (unknown → the id itself).
pub fn model_name(id: &str) -> String {
    find_model(id).map_or_else(|| id.to_string(), |m| m.name.to_string())
}

fn one_decimal(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if (r - r.trunc()).abs() < f64::EPSILON {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// `formatTokenCount`: `200K`, `1M`, `1.2M`, `1.5K`, `<1K`, `0K`.
pub fn format_token_count(tokens: i64) -> String {
    if tokens >= 1_000_000 {
        format!("{}M", one_decimal(tokens as f64 / 1_000_000.0))
    } else if tokens <= 0 {
        "0K".to_string()
    } else if tokens < 1000 {
        "<1K".to_string()
    } else {
        format!("{}K", one_decimal(tokens as f64 / 1000.0))
    }
}
