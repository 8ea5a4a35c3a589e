//! The Anthropic stream events' JSON shapes (only the fields the decoder reads).

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::providers::convert::JsonStr;

#[derive(Deserialize)]
pub(super) struct Typed<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: JsonStr<'a>,
}

#[derive(Deserialize, Default)]
pub(super) struct Usage {
    #[serde(default)]
    pub(super) input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) output_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_read_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
pub(super) struct MessageStart {
    pub(super) message: StartMessage,
}

#[derive(Deserialize)]
pub(super) struct StartMessage {
    #[serde(default)]
    pub(super) usage: Option<Usage>,
}

#[derive(Deserialize)]
pub(super) struct BlockStart {
    pub(super) index: usize,
    pub(super) content_block: Map<String, Value>,
}

#[derive(Deserialize)]
pub(super) struct BlockDelta<'a> {
    pub(super) index: usize,
    #[serde(borrow)]
    pub(super) delta: Delta<'a>,
}

#[derive(Deserialize)]
pub(super) struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: JsonStr<'a>,
    #[serde(default, borrow)]
    pub(super) text: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    pub(super) partial_json: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    pub(super) thinking: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    pub(super) signature: Option<JsonStr<'a>>,
    #[serde(default)]
    pub(super) citation: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct BlockStop {
    pub(super) index: usize,
}

#[derive(Deserialize)]
pub(super) struct MessageDelta {
    #[serde(default)]
    pub(super) delta: MessageDeltaBody,
    #[serde(default)]
    pub(super) usage: Option<Usage>,
}

#[derive(Deserialize, Default)]
pub(super) struct MessageDeltaBody {
    #[serde(default)]
    pub(super) stop_reason: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct ErrorEvent {
    pub(super) error: ErrorBody,
}

#[derive(Deserialize)]
pub(super) struct ErrorBody {
    #[serde(rename = "type", default)]
    pub(super) kind: String,
    #[serde(default)]
    pub(super) message: String,
}
