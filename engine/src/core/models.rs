//! The model table: context window, max output and list prices of the anthropic, openai and
//! gemini chat models, generated from LiteLLM's model catalog (`engine/data/models.tsv`, written
//! by `engine/data/update_models.py`; its header names the catalog version and date), embedded
//! and parsed once. Also `formatTokenCount`.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::pricing::{LongContextPrice, ModelPrice};

/// Fallback context window for unknown models.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;
/// Fallback max output tokens for unknown models.
pub const DEFAULT_MAX_OUTPUT: u64 = 16_384;

/// The generated table (tab-separated; `#` lines are its header comment).
const MODELS_TSV: &str = include_str!("../../data/models.tsv");

/// One model definition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelDefinition {
    /// API id (as the vendor's API names it).
    pub id: &'static str,
    /// `anthropic`, `openai` or `gemini`.
    pub provider: &'static str,
    /// Context window (input tokens).
    pub context_window: u64,
    /// Max output tokens.
    pub max_output: u64,
    /// List prices (USD per million tokens), when the catalog gives input and output prices.
    pub price: Option<ModelPrice>,
}

/// Every model of the table, in its order.
pub fn models() -> impl Iterator<Item = ModelDefinition> {
    rows(MODELS_TSV).filter_map(parse_row)
}

/// The table's rows by id, each left as text until it is looked up: a process that looks up
/// its session's model parses one row, not all of them (parsing every row took ~40 µs of a
/// process's first session).
fn rows_by_id() -> &'static HashMap<&'static str, &'static str> {
    static INDEX: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    INDEX.get_or_init(|| {
        rows(MODELS_TSV)
            .map(|row| (row.split('\t').next().unwrap_or(row), row))
            .collect()
    })
}

/// The data rows of the generated text (no header comment, no column names).
fn rows(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("id\t") && !l.is_empty())
}

fn parse_row(line: &'static str) -> Option<ModelDefinition> {
    let f: Vec<&'static str> = line.split('\t').collect();
    if f.len() != 12 {
        return None;
    }
    // USD per token → USD per million tokens (rounded to 1e-9: no binary noise in the table).
    let usd =
        |i: usize| -> Option<f64> { f[i].parse::<f64>().ok().map(|p| (p * 1e15).round() / 1e9) };
    let price = match (usd(4), usd(5)) {
        (Some(input), Some(output)) => {
            let cache_write = usd(6).unwrap_or(input);
            let cache_read = usd(7).unwrap_or(input);
            Some(ModelPrice {
                input,
                output,
                cache_write,
                cache_read,
                above_200k: usd(8).map(|long_input| LongContextPrice {
                    input: long_input,
                    output: usd(9).unwrap_or(output),
                    cache_write: usd(10).unwrap_or(cache_write),
                    cache_read: usd(11).unwrap_or(cache_read),
                }),
            })
        }
        _ => None,
    };
    Some(ModelDefinition {
        id: f[0],
        provider: f[1],
        context_window: f[2].parse().ok()?,
        max_output: f[3].parse().ok()?,
        price,
    })
}

/// Looks a model up by exact id (a malformed row is left out).
pub fn find_model(id: &str) -> Option<ModelDefinition> {
    rows_by_id().get(id).copied().and_then(parse_row)
}

/// List prices of a model id (`None` when the table does not price it).
pub fn model_price(id: &str) -> Option<ModelPrice> {
    find_model(id).and_then(|m| m.price)
}

/// Context window for a model id (unknown → [`DEFAULT_CONTEXT_WINDOW`]).
pub fn model_context_window(id: &str) -> u64 {
    find_model(id).map_or(DEFAULT_CONTEXT_WINDOW, |m| m.context_window)
}

/// Max output for a model id (unknown → [`DEFAULT_MAX_OUTPUT`]).
pub fn model_max_output(id: &str) -> u64 {
    find_model(id).map_or(DEFAULT_MAX_OUTPUT, |m| m.max_output)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_generated_table_parses() {
        let rows = MODELS_TSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("id\t"))
            .count();
        assert_eq!(models().count(), rows);
        assert!(rows > 100, "{rows}");
    }

    #[test]
    fn every_model_is_found_by_its_id_and_nothing_else_is() {
        let all: Vec<ModelDefinition> = models().collect();
        for m in &all {
            assert_eq!(find_model(m.id), Some(*m), "{}", m.id);
        }
        let ids: std::collections::HashSet<&str> = all.iter().map(|m| m.id).collect();
        assert_eq!(ids.len(), all.len(), "an id is in the table twice");
        for unknown in ["", "id", "no-such-model", "#", "claude"] {
            assert_eq!(find_model(unknown), None, "{unknown}");
        }
        let known = find_model("gpt-4o").expect("gpt-4o is in the table");
        assert_eq!((known.provider, known.context_window), ("openai", 128_000));
    }
}
