//! The wire shapes of a Chat Completions stream chunk, borrowed from the chunk's text where
//! its strings have no escapes. Read by serde ([`super::decoder`]) or, for the compact common
//! shapes, by [`super::fast_path`]; both give the same values.

use serde::Deserialize;
use serde_json::Value;

use crate::providers::convert::{first_indexed, Indexed, JsonStr};

/// One chunk: the choice with `index` 0 (if any), the usage (last chunk), a stream error.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct Chunk<'a> {
    #[serde(default, borrow, deserialize_with = "first_indexed")]
    pub(super) choices: Option<Choice<'a>>,
    #[serde(default)]
    pub(super) usage: Option<Usage>,
    #[serde(default)]
    pub(super) error: Option<Value>,
}

/// A choice of a chunk: its delta and finish reason.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct Choice<'a> {
    #[serde(default)]
    pub(super) index: u32,
    #[serde(default, borrow)]
    pub(super) delta: Option<ChunkDelta<'a>>,
    #[serde(default, borrow)]
    pub(super) finish_reason: Option<JsonStr<'a>>,
}

/// One chunk: the choice with `index` 0 (if any), the usage (last chunk), a stream error.
/// A choice's delta: text, refusal, reasoning and tool-call fragments.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct ChunkDelta<'a> {
    #[serde(default, borrow)]
    pub(super) content: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    pub(super) refusal: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    pub(super) reasoning_content: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    pub(super) reasoning: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    pub(super) tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

/// A fragment of a tool call, keyed by `index` (or by `id` where a server omits it).
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct ToolCallDelta<'a> {
    #[serde(default)]
    pub(super) index: Option<usize>,
    #[serde(default)]
    pub(super) id: Option<String>,
    #[serde(default, borrow)]
    pub(super) function: Option<FunctionDelta<'a>>,
}

/// A tool call's name and a fragment of its JSON arguments.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct FunctionDelta<'a> {
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default, borrow)]
    pub(super) arguments: Option<JsonStr<'a>>,
}

/// Token counts of the usage chunk.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct Usage {
    #[serde(default)]
    pub(super) prompt_tokens: u64,
    #[serde(default)]
    pub(super) completion_tokens: u64,
    #[serde(default)]
    pub(super) total_tokens: Option<u64>,
    #[serde(default)]
    pub(super) prompt_tokens_details: Option<PromptDetails>,
}

/// Cached prompt tokens of the usage chunk.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct PromptDetails {
    #[serde(default)]
    pub(super) cached_tokens: Option<u64>,
}

impl Indexed for Choice<'_> {
    fn index(&self) -> u32 {
        self.index
    }
}
