//! Conversion helpers shared by the wire formats: tool arguments, tool-call id bookkeeping,
//! system prompt collection and the streamed-response accumulator.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::core::message::{Message, Role, ToolCall};
use crate::core::provider::{ChatResponse, StopReason};
use crate::core::tokens::TokenUsage;

/// Parses tool-call arguments into a JSON object: invalid or non-object arguments become
/// `{}` (vendors require an object; the tool already reported the bad arguments).
pub fn args_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(m)) => Value::Object(m),
        _ => Value::Object(Map::new()),
    }
}

/// All system messages joined with a blank line (`None` when there are none).
pub fn system_text(messages: &[Arc<Message>]) -> Option<String> {
    let parts: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == Role::System && !m.content.is_empty())
        .map(|m| m.content.as_str())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// Gives every tool call of a conversation a unique, vendor-valid id while keeping the link
/// between a call and its result (providers such as some OpenAI-compatible servers reuse
/// ids like `call_0` in every turn).
#[derive(Default)]
pub struct ToolIdMap {
    current: HashMap<String, String>,
    used: HashSet<String>,
}

impl ToolIdMap {
    /// Registers the id of a call in an assistant turn; returns the id to send (`id` itself,
    /// not copied, when it is already vendor-valid and not taken).
    pub fn call<'a>(&mut self, id: &'a str) -> Cow<'a, str> {
        if !id.is_empty() && id.chars().all(id_char) && !self.used.contains(id) {
            // No earlier call had this id (it would be taken), so no mapping to replace:
            // a result for `id` is sent as `id`.
            self.used.insert(id.to_string());
            return Cow::Borrowed(id);
        }
        let base: String = id
            .chars()
            .map(|c| if id_char(c) { c } else { '_' })
            .collect();
        let base = if base.is_empty() {
            "call".to_string()
        } else {
            base
        };
        let mut out = base.clone();
        let mut n = 1;
        while self.used.contains(&out) {
            out = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(out.clone());
        self.current.insert(id.to_string(), out.clone());
        Cow::Owned(out)
    }

    /// The id to send for a tool result answering `id`.
    pub fn result<'a>(&self, id: &'a str) -> Cow<'a, str> {
        match self.current.get(id) {
            Some(mapped) => Cow::Owned(mapped.clone()),
            None => Cow::Borrowed(id),
        }
    }
}

/// Whether vendors accept `c` in a tool-call id (others are sent as `_`).
fn id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// A tool call being assembled from stream fragments.
#[derive(Debug, Clone, Default)]
pub struct PartialCall {
    /// Vendor id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments JSON text so far.
    pub arguments: String,
}

/// What a decoder accumulates over one streamed response.
#[derive(Debug, Default)]
pub struct Accumulated {
    /// Streamed text.
    pub content: String,
    /// Tool calls in order.
    pub calls: Vec<PartialCall>,
    /// Usage, when reported.
    pub usage: Option<TokenUsage>,
    /// Stop reason, when reported.
    pub stop: Option<StopReason>,
    /// Something reached the caller.
    pub delivered: bool,
}

impl Accumulated {
    /// Clears everything.
    pub fn reset(&mut self) {
        *self = Accumulated::default();
    }

    /// Usage, created on first use.
    pub fn usage_mut(&mut self) -> &mut TokenUsage {
        self.usage.get_or_insert_with(TokenUsage::default)
    }

    /// Builds the response. Aborted responses keep the partial text and drop unfinished calls.
    pub fn into_response(self, aborted: bool) -> ChatResponse {
        if aborted {
            return ChatResponse {
                content: self.content,
                tool_calls: Vec::new(),
                usage: self.usage,
                stop_reason: StopReason::Aborted,
                native: None,
            };
        }
        let tool_calls: Vec<ToolCall> = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let id = if c.id.is_empty() {
                    format!("call_{i}")
                } else {
                    c.id
                };
                let args = if c.arguments.trim().is_empty() {
                    "{}".to_string()
                } else {
                    c.arguments
                };
                ToolCall::new(id, c.name, args)
            })
            .collect();
        let stop_reason = match self.stop {
            Some(s) => s,
            None if !tool_calls.is_empty() => StopReason::ToolUse,
            None => StopReason::EndTurn,
        };
        ChatResponse {
            content: self.content,
            tool_calls,
            usage: self.usage,
            stop_reason,
            native: None,
        }
    }
}

/// A `data:` URL for an inline image.
pub fn data_url(mime_type: &str, data: &str) -> String {
    DataUrl { mime_type, data }.to_string()
}

/// A `data:` URL for an inline image, formatted where it is written (no `String` of a
/// possibly large image in between).
pub struct DataUrl<'a> {
    /// MIME type, e.g. `image/png`.
    pub mime_type: &'a str,
    /// Base64 data.
    pub data: &'a str,
}

impl std::fmt::Display for DataUrl<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "data:{};base64,{}", self.mime_type, self.data)
    }
}

/// A JSON string that borrows from the input when it has no escapes (serde's own `Cow<str>`
/// only borrows as a direct field, not inside `Option`). Derefs to `str`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonStr<'a>(pub Cow<'a, str>);

impl std::ops::Deref for JsonStr<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for JsonStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JsonStr<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(JsonStr(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(JsonStr(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(JsonStr(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// An array element type carrying a position (`index`, default 0).
pub trait Indexed {
    /// The element's `index`.
    fn index(&self) -> u32;
}

/// Deserializes an array (or `null`) keeping only the first element whose `index` is 0,
/// without allocating a `Vec` (one choice/candidate per chunk is the hot path).
pub fn first_indexed<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Indexed,
{
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de> + Indexed> Visitor<'de> for V<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an array or null")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut first = None;
            while let Some(item) = seq.next_element::<T>()? {
                if first.is_none() && item.index() == 0 {
                    first = Some(item);
                }
            }
            Ok(first)
        }
    }
    d.deserialize_any(V(std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_str_borrows_without_escapes() {
        let s: Option<JsonStr<'_>> = serde_json::from_str("\"plain\"").unwrap();
        assert!(matches!(s.unwrap().0, Cow::Borrowed("plain")));
        let s: JsonStr<'_> = serde_json::from_str("\"a\\nb\"").unwrap();
        assert_eq!(&*s, "a\nb");
    }

    #[test]
    fn args() {
        assert_eq!(args_object("{\"a\":1}"), serde_json::json!({"a":1}));
        assert_eq!(args_object("[1]"), serde_json::json!({}));
        assert_eq!(args_object("{bad"), serde_json::json!({}));
    }

    #[test]
    fn tool_ids_stay_unique_and_results_follow_their_call() {
        let mut ids = ToolIdMap::default();
        // A valid id not seen before is sent as it is (not copied), and so is its result.
        assert!(matches!(ids.call("call_0"), Cow::Borrowed("call_0")));
        assert!(matches!(ids.result("call_0"), Cow::Borrowed("call_0")));
        // The same id again (servers reuse `call_0` every turn): renamed, and the results
        // after it answer the new name.
        assert_eq!(ids.call("call_0"), "call_0_1");
        assert_eq!(ids.result("call_0"), "call_0_1");
        assert_eq!(ids.call("call_0"), "call_0_2");
        assert_eq!(ids.result("call_0"), "call_0_2");
        // An id that is the new name of another call is renamed too.
        assert_eq!(ids.call("call_0_1"), "call_0_1_1");
        // Characters a vendor refuses become `_`; an empty id becomes `call`.
        assert_eq!(ids.call("a:b"), "a_b");
        assert_eq!(ids.result("a:b"), "a_b");
        assert_eq!(ids.call("a.b"), "a_b_1");
        assert_eq!(ids.result("a.b"), "a_b_1");
        assert_eq!(ids.call("a_b"), "a_b_2");
        assert_eq!(ids.result("a_b"), "a_b_2");
        assert_eq!(ids.call(""), "call");
        // A result for an id no call had is sent as it is.
        assert_eq!(ids.result("unknown"), "unknown");
    }
}
