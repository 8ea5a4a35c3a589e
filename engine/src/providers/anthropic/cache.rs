//! Anthropic prompt-cache breakpoints, placed as Claude Code places them: one on the last tool
//! (the tools prefix), one on the system prompt, and one on the newest user message plus one on
//! the user message before it — the previous request ended there, so its cache entry is read
//! back while the newest one is written. They move forward each round; never more than the
//! API's limit of [`MAX_BREAKPOINTS`], counting any a kept vendor block already carries.

use serde::Serialize;
use serde_json::Value;

use super::body::{Block, Cached, RequestBody, System, SystemBlock};
use crate::core::prompt_cache::PromptCache;

/// The most `cache_control` breakpoints one request may carry.
pub(super) const MAX_BREAKPOINTS: usize = 4;

/// `{"type":"ephemeral"}`, with `"ttl":"1h"` for the one-hour lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(super) struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl: Option<&'static str>,
}

impl CacheControl {
    /// The breakpoint of a setting (`None` when caching is off).
    pub(super) fn of(setting: PromptCache) -> Option<Self> {
        let ttl = match setting {
            PromptCache::Off => return None,
            PromptCache::FiveMinutes => None,
            PromptCache::OneHour => Some("1h"),
        };
        Some(CacheControl {
            kind: "ephemeral",
            ttl,
        })
    }
}

/// A placeholder while a block moves into its [`Cached`] wrapper.
static TAKEN: Value = Value::Null;

/// Puts the breakpoints of `setting` on `body`: the newest user message, the one before it,
/// the system prompt, the last tool — in that order of priority while the limit allows.
pub(super) fn place_breakpoints(body: &mut RequestBody<'_>, setting: PromptCache) {
    let Some(control) = CacheControl::of(setting) else {
        return;
    };
    let mut left = MAX_BREAKPOINTS.saturating_sub(existing(body));
    let newest: Vec<usize> = body.messages.last_items_of("user").take(2).collect();
    for i in newest {
        if left == 0 {
            return;
        }
        if mark(&mut body.messages.items[i], control) {
            left -= 1;
        }
    }
    if left > 0 {
        if let Some(System::Text(text)) = body.system.take() {
            body.system = Some(System::Blocks([SystemBlock {
                kind: "text",
                text,
                cache_control: control,
            }]));
            left -= 1;
        }
    }
    if left > 0 {
        if let Some(tools) = &mut body.tools {
            tools.cache_control = Some(control);
        }
    }
}

/// Breakpoints the kept vendor blocks already carry.
fn existing(body: &RequestBody<'_>) -> usize {
    body.messages
        .items
        .iter()
        .filter(|b| matches!(b, Block::Native(v) if v.get("cache_control").is_some()))
        .count()
}

/// Gives `block` the breakpoint; a kept vendor block is left as it is (`false`).
fn mark(block: &mut Block<'_>, control: CacheControl) -> bool {
    if !matches!(block, Block::Wire(_)) {
        return false;
    }
    let Block::Wire(wire) = std::mem::replace(block, Block::Native(&TAKEN)) else {
        return false;
    };
    *block = Block::Cached(Cached {
        block: wire,
        cache_control: control,
    });
    true
}
