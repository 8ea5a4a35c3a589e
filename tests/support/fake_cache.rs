//! Prompt caching as the vendors document it, applied by the fake server to the requests it
//! receives ([`super::fake_server::FakeServer::simulate_prompt_cache`]), so that a session's
//! cache reads and writes can be measured without a network.
//!
//! Tokens are approximated as bytes / 4 (rounded up) of the JSON of each prompt unit.
//! - **Anthropic** (`/v1/messages`): the prompt is the tools, then the system blocks, then the
//!   message content blocks, in order. A block with `cache_control` is a breakpoint: the prefix
//!   up to and including it is written to the cache when it is at least
//!   [`CacheRules::anthropic_min_tokens`] long. A request reads the longest cached prefix that
//!   ends at a breakpoint or at one of the 20 blocks before it; it writes from there up to its
//!   last cacheable breakpoint; the rest is plain input.
//! - **OpenAI** (`/chat/completions`): automatic: the prompt (tools, then messages) shares a
//!   prefix with an earlier prompt of the same `prompt_cache_key`; once that prefix is at
//!   least [`CacheRules::openai_min_tokens`] long, it is read in steps of
//!   [`CacheRules::openai_step`] tokens beyond the minimum. Nothing is billed as a write.
//!   The Responses API (`/responses`) likewise, its prompt being the tools, the
//!   `instructions` and the input items.
//! - **Gemini** (`:streamGenerateContent` / `:generateContent`): implicit caching: the prompt
//!   (system instruction, tools, then the contents) shares a prefix with an earlier prompt;
//!   once that prefix is at least [`CacheRules::gemini_min_tokens`] long, all of it is read
//!   (`cachedContentTokenCount`). Nothing is billed as a write.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

use serde_json::Value;

/// How far back from a breakpoint Anthropic looks for an earlier cache entry (blocks).
const LOOKBACK_BLOCKS: usize = 20;

/// The documented thresholds, scalable down for small test prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheRules {
    /// Shortest prefix Anthropic caches (1024 tokens for Sonnet and Opus).
    pub anthropic_min_tokens: u64,
    /// Shortest prompt OpenAI caches (1024 tokens).
    pub openai_min_tokens: u64,
    /// OpenAI's cache grows in steps of this many tokens (128).
    pub openai_step: u64,
    /// Shortest prefix Gemini's implicit cache serves (1024 tokens for 2.5 Flash).
    pub gemini_min_tokens: u64,
}

impl CacheRules {
    /// The vendors' documented values.
    pub fn documented() -> Self {
        CacheRules {
            anthropic_min_tokens: 1024,
            openai_min_tokens: 1024,
            openai_step: 128,
            gemini_min_tokens: 1024,
        }
    }

    /// The documented values divided by `factor` (for short test prompts).
    pub fn scaled_down(factor: u64) -> Self {
        let d = Self::documented();
        CacheRules {
            anthropic_min_tokens: d.anthropic_min_tokens / factor,
            openai_min_tokens: d.openai_min_tokens / factor,
            openai_step: (d.openai_step / factor).max(1),
            gemini_min_tokens: d.gemini_min_tokens / factor,
        }
    }
}

/// What one request's prompt costs: its size and the parts read from and written to the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PromptUsage {
    /// The whole prompt (tokens).
    pub prompt: u64,
    /// Read from the cache.
    pub read: u64,
    /// Written to the cache (Anthropic only).
    pub written: u64,
}

impl PromptUsage {
    /// Neither read nor written.
    pub fn uncached(&self) -> u64 {
        self.prompt - self.read - self.written
    }
}

/// The cache the fake server keeps over the requests it receives.
#[derive(Debug)]
pub struct PromptCacheSim {
    rules: CacheRules,
    /// Hashes of the Anthropic prefixes written.
    anthropic: HashSet<u64>,
    /// Earlier OpenAI prompts by `prompt_cache_key` (`""` without one).
    openai: HashMap<String, Vec<Vec<u8>>>,
    /// Earlier Gemini prompts.
    gemini: Vec<Vec<u8>>,
}

/// Approximate tokens of `bytes` bytes.
pub fn tokens(bytes: usize) -> u64 {
    bytes.div_ceil(4) as u64
}

impl PromptCacheSim {
    /// An empty cache under `rules`.
    pub fn new(rules: CacheRules) -> Self {
        PromptCacheSim {
            rules,
            anthropic: HashSet::new(),
            openai: HashMap::new(),
            gemini: Vec::new(),
        }
    }

    /// Applies the rules of the request's vendor (by `path`); `None` for other vendors.
    pub fn apply(&mut self, path: &str, body: &Value) -> Option<PromptUsage> {
        if path.ends_with("/v1/messages") {
            Some(self.anthropic(body))
        } else if path.ends_with("/chat/completions") {
            Some(self.openai(prompt_text(body, &["tools"], "messages"), body))
        } else if path.ends_with("/responses") {
            Some(self.openai(prompt_text(body, &["tools", "instructions"], "input"), body))
        } else if path.contains(":streamGenerateContent") || path.contains(":generateContent") {
            let text = prompt_text(body, &["systemInstruction", "tools"], "contents");
            Some(self.gemini(text))
        } else {
            None
        }
    }

    fn anthropic(&mut self, body: &Value) -> PromptUsage {
        let units = anthropic_units(body);
        // (prefix tokens, prefix hash, breakpoint) after each unit.
        let mut h = DefaultHasher::new();
        let mut bytes = 0;
        let mut ends = Vec::with_capacity(units.len());
        for (text, breakpoint) in &units {
            h.write(text.as_bytes());
            bytes += text.len();
            ends.push((tokens(bytes), h.clone().finish(), *breakpoint));
        }
        let prompt = tokens(bytes);
        let mut read = 0;
        for (b, _) in ends.iter().enumerate().filter(|(_, e)| e.2) {
            let from = b.saturating_sub(LOOKBACK_BLOCKS);
            if let Some(hit) = (from..=b)
                .rev()
                .find(|j| self.anthropic.contains(&ends[*j].1))
            {
                read = read.max(ends[hit].0);
            }
        }
        let mut last_written = read;
        for (t, hash, _) in ends.iter().filter(|e| e.2) {
            if *t >= self.rules.anthropic_min_tokens {
                self.anthropic.insert(*hash);
                last_written = last_written.max(*t);
            }
        }
        PromptUsage {
            prompt,
            read,
            written: last_written - read,
        }
    }

    fn openai(&mut self, text: Vec<u8>, body: &Value) -> PromptUsage {
        let key = body["prompt_cache_key"].as_str().unwrap_or("").to_string();
        let seen = self.openai.entry(key).or_default();
        let common = common_prefix(seen, &text);
        let (min, step) = (self.rules.openai_min_tokens, self.rules.openai_step);
        let shared = (common / 4) as u64;
        let read = if shared >= min {
            min + (shared - min) / step * step
        } else {
            0
        };
        let prompt = tokens(text.len());
        seen.push(text);
        PromptUsage {
            prompt,
            read: read.min(prompt),
            written: 0,
        }
    }

    fn gemini(&mut self, text: Vec<u8>) -> PromptUsage {
        let shared = (common_prefix(&self.gemini, &text) / 4) as u64;
        let prompt = tokens(text.len());
        self.gemini.push(text);
        let read = if shared >= self.rules.gemini_min_tokens {
            shared.min(prompt)
        } else {
            0
        };
        PromptUsage {
            prompt,
            read,
            written: 0,
        }
    }
}

/// The prompt's bytes in the order the model reads them: the `head` fields, then each item of
/// the `items` array.
fn prompt_text(body: &Value, head: &[&str], items: &str) -> Vec<u8> {
    let mut text = Vec::new();
    for field in head {
        text.extend_from_slice(body[*field].to_string().as_bytes());
    }
    for m in body[items].as_array().into_iter().flatten() {
        text.extend_from_slice(m.to_string().as_bytes());
    }
    text
}

/// The longest byte prefix `text` shares with one of the `seen` prompts.
fn common_prefix(seen: &[Vec<u8>], text: &[u8]) -> usize {
    seen.iter()
        .map(|p| p.iter().zip(text).take_while(|(a, b)| a == b).count())
        .max()
        .unwrap_or(0)
}

/// The Anthropic prompt in order as `(unit JSON without cache_control, breakpoint)`: each tool,
/// each system block, each message content block (a message's role goes with its first block).
fn anthropic_units(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut unit = |v: &Value, prefix: &str| {
        let mut v = v.clone();
        let breakpoint = v
            .as_object_mut()
            .and_then(|o| o.remove("cache_control"))
            .is_some();
        out.push((format!("{prefix}{v}"), breakpoint));
    };
    for t in body["tools"].as_array().into_iter().flatten() {
        unit(t, "tool:");
    }
    match &body["system"] {
        Value::Array(blocks) => blocks.iter().for_each(|b| unit(b, "system:")),
        Value::Null => {}
        s => unit(s, "system:"),
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        let role = format!("{}:", m["role"].as_str().unwrap_or(""));
        match &m["content"] {
            Value::Array(blocks) => {
                for (i, b) in blocks.iter().enumerate() {
                    unit(b, if i == 0 { &role } else { "" });
                }
            }
            c => unit(c, &role),
        }
    }
    out
}
