//! Context estimation (serialized JSON length / 4, raised to the latest reported usage, never
//! summing older usages) and usage normalization.

use std::sync::Arc;

use serde_json::Value;

use super::message::Message;

/// Characters per token used by the serialized estimate.
pub const CONTEXT_ESTIMATE_CHARS_PER_TOKEN: usize = 4;

/// Normalized token usage of one provider call, read the Anthropic way: the prompt is
/// `input_tokens + cache_read_tokens + cache_creation_tokens` (OpenAI's and Gemini's prompt
/// counts include their cached part, which the decoders move to `cache_read_tokens`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TokenUsage {
    /// Prompt tokens neither read from nor written to the cache.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Total, when the provider reported one.
    pub total_tokens: Option<u64>,
    /// Prompt tokens read from the cache (Anthropic `cache_read_input_tokens`, OpenAI
    /// `prompt_tokens_details.cached_tokens`, Gemini `cachedContentTokenCount`).
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the cache (Anthropic `cache_creation_input_tokens`).
    pub cache_creation_tokens: u64,
}

impl TokenUsage {
    /// `totalTokens` if present, else the prompt ([`Self::prompt_tokens`]) + output.
    pub fn total(&self) -> u64 {
        self.total_tokens
            .unwrap_or(self.prompt_tokens() + self.output_tokens)
    }

    /// The whole prompt: uncached input, cache reads and cache writes.
    pub fn prompt_tokens(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_creation_tokens
    }

    /// Sets the prompt from a vendor count that includes its `cached` part (OpenAI
    /// `prompt_tokens`, Gemini `promptTokenCount`).
    pub fn set_prompt(&mut self, prompt: u64, cached: u64) {
        self.cache_read_tokens = cached.min(prompt);
        self.input_tokens = prompt - self.cache_read_tokens;
    }
}

impl std::ops::AddAssign for TokenUsage {
    /// Sums two calls' usage (a turn's usage); the total is the sum of both totals.
    fn add_assign(&mut self, other: TokenUsage) {
        let total = self.total() + other.total();
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_creation_tokens += other.cache_creation_tokens;
        self.total_tokens = Some(total);
    }
}

/// The effective context estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContextEstimate {
    /// The value to use.
    pub used_tokens: u64,
    /// `ceil(len(JSON(msgs)) / 4)`.
    pub serialized_tokens: u64,
    /// Latest provider usage, if any.
    pub provider_tokens: Option<u64>,
    /// Caller floor, if given and > 0.
    pub usage_floor_tokens: Option<u64>,
}

fn num(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    if let Some(u) = v.as_u64() {
        return Some(u);
    }
    v.as_f64()
        .filter(|f| f.is_finite() && *f >= 0.0)
        .map(|f| f as u64)
}

fn usage_from_map(m: &serde_json::Map<String, Value>) -> Option<TokenUsage> {
    let input = num(m.get("inputTokens")).or_else(|| num(m.get("promptTokens")))?;
    let output = num(m.get("outputTokens")).or_else(|| num(m.get("completionTokens")))?;
    Some(TokenUsage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: num(m.get("totalTokens")),
        ..Default::default()
    })
}

/// `readTokenUsageFromMessage`: metadata keys, else metadata `usage` (object or JSON string).
pub fn read_token_usage(message: &Message) -> Option<TokenUsage> {
    let meta = message.metadata.as_ref()?;
    if let Some(u) = usage_from_map(meta) {
        return Some(u);
    }
    match meta.get("usage")? {
        Value::Object(o) => usage_from_map(o),
        Value::String(s) => match serde_json::from_str::<Value>(s).ok()? {
            Value::Object(o) => usage_from_map(&o),
            _ => None,
        },
        _ => None,
    }
}

/// `estimateSerializedContextTokens` from a known JSON length.
pub fn serialized_tokens_from_len(json_len: usize) -> u64 {
    json_len.div_ceil(CONTEXT_ESTIMATE_CHARS_PER_TOKEN) as u64
}

/// `estimateSerializedContextTokens(msgs)`.
pub fn estimate_serialized_tokens(messages: &[Arc<Message>]) -> u64 {
    let refs: Vec<&Message> = messages.iter().map(|m| m.as_ref()).collect();
    serialized_tokens_from_len(serde_json::to_string(&refs).map_or(0, |s| s.len()))
}

/// `estimateContextTokensFromMessages` with a precomputed serialized length (see
/// [`crate::core::store::ConversationStore::serialized_len`]).
pub fn estimate_context_with_len(
    messages: &[Arc<Message>],
    json_len: usize,
    usage_floor: Option<f64>,
) -> ContextEstimate {
    let latest = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, m)| read_token_usage(m).map(|u| (i, u.total())));
    estimate_from_parts(json_len, latest, messages.len(), usage_floor)
}

/// The estimator's rule from its parts: serialized JSON length, the latest usage
/// `(index, total)` and the number of messages. Post-response usage on the last message is
/// exact; otherwise the max of serialized, latest usage and floor. Usages are never summed.
pub fn estimate_from_parts(
    json_len: usize,
    latest: Option<(usize, u64)>,
    count: usize,
    usage_floor: Option<f64>,
) -> ContextEstimate {
    let serialized = serialized_tokens_from_len(json_len);
    let floor = usage_floor
        .filter(|f| f.is_finite() && *f > 0.0)
        .map(|f| f.ceil() as u64);
    let used = match latest {
        Some((i, p)) if i + 1 == count => p.max(floor.unwrap_or(0)),
        Some((_, p)) => serialized.max(p).max(floor.unwrap_or(0)),
        None => serialized.max(floor.unwrap_or(0)),
    };
    ContextEstimate {
        used_tokens: used,
        serialized_tokens: serialized,
        provider_tokens: latest.map(|(_, p)| p),
        usage_floor_tokens: floor,
    }
}

/// `estimateContextTokensFromMessages(msgs, {usageFloorTokens})`.
pub fn estimate_context_tokens(
    messages: &[Arc<Message>],
    usage_floor: Option<f64>,
) -> ContextEstimate {
    let refs: Vec<&Message> = messages.iter().map(|m| m.as_ref()).collect();
    let len = serde_json::to_string(&refs).map_or(0, |s| s.len());
    estimate_context_with_len(messages, len, usage_floor)
}
