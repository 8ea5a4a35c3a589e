//! JSON event documents written straight from borrowed structs: `{"v":1,"type":"<kind>",…}`
//! as text, NUL-terminated for the C callback, without building a `serde_json::Value` tree
//! (an event of the hot path — messages, tool start/end, context updates, turn start and
//! completion — used to be a map built, merged into a second map, queued, serialised and
//! dropped).

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::sdk::events::kind_name;

/// A JSON event document as text: an object whose first members are `"v":1` and
/// `"type":"<kind>"`, followed by the fields it was built from, in their order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonDoc {
    /// The text followed by one NUL byte (what the event callback receives).
    bytes: Vec<u8>,
    /// Length of the `{"v":1,"type":"<kind>"` prefix.
    prefix: usize,
}

impl JsonDoc {
    /// The document of event `kind` with the members of `fields` (a struct or map) after
    /// `"v"` and `"type"`. Anything that does not serialise as an object becomes `"data"`.
    pub fn new<T: Serialize + ?Sized>(kind: u32, fields: &T) -> Self {
        let mut bytes = Self::head(kind, 256);
        let prefix = bytes.len();
        if serde_json::to_writer(&mut bytes, fields).is_err() {
            // Only a map with non-string keys fails; report what was there as text.
            bytes.truncate(prefix);
        }
        Self::finish(bytes, prefix)
    }

    /// [`JsonDoc::new`] of fields already written as JSON text (`serde_json`'s output for
    /// them): the same document, without serialising them again.
    pub fn from_json(kind: u32, fields_json: &[u8]) -> Self {
        let mut bytes = Self::head(kind, fields_json.len() + 32);
        let prefix = bytes.len();
        bytes.extend_from_slice(fields_json);
        Self::finish(bytes, prefix)
    }

    /// `{"v":1,"type":"<kind>"` with room for `more` bytes.
    fn head(kind: u32, more: usize) -> Vec<u8> {
        let name = kind_name(kind);
        let mut bytes = Vec::with_capacity(20 + name.len() + more);
        bytes.extend_from_slice(b"{\"v\":1,\"type\":\"");
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(b'"');
        bytes
    }

    /// Joins the fields written after the head at `prefix` into the document.
    fn finish(mut bytes: Vec<u8>, prefix: usize) -> Self {
        match bytes.get(prefix..) {
            Some(b"{}") | Some(b"") => {
                bytes.truncate(prefix);
                bytes.push(b'}');
            }
            Some([b'{', ..]) => bytes[prefix] = b',',
            _ => {
                let data = bytes.split_off(prefix);
                bytes.extend_from_slice(b",\"data\":");
                bytes.extend_from_slice(&data);
                bytes.push(b'}');
            }
        }
        bytes.push(0);
        JsonDoc { bytes, prefix }
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        let text = &self.bytes[..self.bytes.len() - 1];
        // serde_json writes UTF-8 only, and the prefix is ASCII.
        std::str::from_utf8(text).unwrap_or_default()
    }

    /// The JSON text as bytes (UTF-8).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.bytes.len() - 1]
    }

    /// The text followed by a NUL byte.
    pub fn nul_terminated(&self) -> &[u8] {
        &self.bytes
    }

    /// The text and its NUL, owned.
    pub fn into_nul_terminated(self) -> Vec<u8> {
        self.bytes
    }

    /// The document as a JSON map (parsed again: for the cold paths that need a tree).
    pub fn to_map(&self) -> Map<String, Value> {
        match serde_json::from_str(self.as_str()) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }

    /// The pull-mode document `{"v":1,"kind":N,"type":"…","turn_id":N,…fields}` (a
    /// `turn_id` among the fields, which then comes first, is kept instead of the event's).
    pub fn pull_text(&self, kind: u32, turn_id: u64) -> String {
        let text = self.as_str();
        let name = kind_name(kind);
        let rest = text.get(self.prefix..).unwrap_or("}");
        let mut out = String::with_capacity(text.len() + 40);
        let _ = write!(out, "{{\"v\":1,\"kind\":{kind},\"type\":\"{name}\"");
        if !rest.starts_with(",\"turn_id\":") {
            let _ = write!(out, ",\"turn_id\":{turn_id}");
        }
        out.push_str(rest);
        out
    }
}

/// The pull-mode document of a text event (a text delta):
/// `{"v":1,"kind":N,"type":"…","turn_id":N,"text":"…"}`, written straight, without the map
/// and the copies of [`crate::sdk::events::Event::to_pull_json`] (a pull host takes one per
/// delta).
pub fn text_pull_text(kind: u32, turn_id: u64, text: &str) -> String {
    use std::io::Write as _;
    let name = kind_name(kind);
    // Room for the escapes of a short delta and the NUL the C string adds.
    let mut out = Vec::with_capacity(text.len() + name.len() + 72);
    // Writing to a Vec cannot fail.
    let _ = write!(
        out,
        "{{\"v\":1,\"kind\":{kind},\"type\":\"{name}\",\"turn_id\":{turn_id},\"text\":"
    );
    let _ = serde_json::to_writer(&mut out, text);
    out.push(b'}');
    // serde_json writes UTF-8 only, and the rest is ASCII.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdk::events::{CONTEXT_UPDATE, TURN_COMPLETED};
    use serde_json::json;

    #[test]
    fn fields_follow_v_and_type() {
        let d = JsonDoc::new(CONTEXT_UPDATE, &json!({"a": 1, "b": "x"}));
        assert_eq!(
            d.as_str(),
            r#"{"v":1,"type":"context_update","a":1,"b":"x"}"#
        );
        assert_eq!(d.nul_terminated().last(), Some(&0));
        let empty = JsonDoc::new(CONTEXT_UPDATE, &json!({}));
        assert_eq!(empty.as_str(), r#"{"v":1,"type":"context_update"}"#);
        let scalar = JsonDoc::new(CONTEXT_UPDATE, &json!([1]));
        assert_eq!(
            scalar.as_str(),
            r#"{"v":1,"type":"context_update","data":[1]}"#
        );
    }

    #[test]
    fn from_json_is_new_without_serialising_again() {
        for fields in [json!({"a": 1, "b": "x"}), json!({}), json!([1]), json!("s")] {
            let text = serde_json::to_vec(&fields).unwrap();
            assert_eq!(
                JsonDoc::from_json(CONTEXT_UPDATE, &text),
                JsonDoc::new(CONTEXT_UPDATE, &fields),
                "{fields}"
            );
        }
    }

    #[test]
    fn pull_text_inserts_kind_and_turn_id() {
        let d = JsonDoc::new(CONTEXT_UPDATE, &json!({"a": 1}));
        assert_eq!(
            d.pull_text(CONTEXT_UPDATE, 7),
            r#"{"v":1,"kind":11,"type":"context_update","turn_id":7,"a":1}"#
        );
        let t = JsonDoc::new(TURN_COMPLETED, &json!({"turn_id": 3, "x": true}));
        assert_eq!(
            t.pull_text(TURN_COMPLETED, 3),
            r#"{"v":1,"kind":16,"type":"turn_completed","turn_id":3,"x":true}"#
        );
        let e = JsonDoc::new(CONTEXT_UPDATE, &json!({}));
        assert_eq!(
            e.pull_text(CONTEXT_UPDATE, 0),
            r#"{"v":1,"kind":11,"type":"context_update","turn_id":0}"#
        );
    }

    #[test]
    fn a_text_event_pull_text_is_its_pull_json() {
        use crate::sdk::events::{Event, Payload, TEXT_DELTA};
        for text in [
            "",
            "plain",
            "quote \" back \\ nl \n tab \t",
            "nul \0 ctl \u{1}",
            "é 𝄞 ✓",
        ] {
            let ev = Event {
                kind: TEXT_DELTA,
                turn_id: 42,
                payload: Payload::Text(text.to_string()),
            };
            let direct = ev.to_pull_text();
            assert_eq!(direct, ev.to_pull_json().to_string(), "for {text:?}");
            assert_eq!(
                serde_json::from_str::<Value>(&direct).unwrap()["text"],
                Value::from(text)
            );
        }
        let ev = Event {
            kind: TEXT_DELTA,
            turn_id: 3,
            payload: Payload::Text("a\"b".into()),
        };
        assert_eq!(
            ev.to_pull_text(),
            r#"{"v":1,"kind":2,"type":"text_delta","turn_id":3,"text":"a\"b"}"#
        );
    }
}
