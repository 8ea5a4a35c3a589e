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

/// A `content_block_start` of a text or tool-use block as the API streams it: only the fields
/// the decoder reads, a tool's `input` empty. Any other shape (another block type, an extra
/// or repeated field, a non-empty input) fails to parse and goes through [`BlockStart`], which
/// keeps the whole block.
#[derive(Deserialize)]
pub(super) struct PlainBlockStart<'a> {
    pub(super) index: usize,
    #[serde(borrow)]
    pub(super) content_block: PlainBlock<'a>,
}

/// The block of a [`PlainBlockStart`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PlainBlock<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: JsonStr<'a>,
    #[serde(default, borrow)]
    pub(super) text: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    pub(super) id: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    pub(super) name: Option<JsonStr<'a>>,
    /// Only checked: an input that is not `{}` makes the shape not plain.
    #[serde(default, rename = "input")]
    pub(super) _input: Option<EmptyObject>,
}

/// `{}` and nothing else.
pub(super) struct EmptyObject;

impl<'de> Deserialize<'de> for EmptyObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = EmptyObject;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an empty object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<EmptyObject, A::Error> {
                match m.next_key::<serde::de::IgnoredAny>()? {
                    None => Ok(EmptyObject),
                    Some(_) => Err(serde::de::Error::custom("not an empty object")),
                }
            }
        }
        d.deserialize_map(V)
    }
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
