//! Messages merged by role, as the Anthropic and Gemini request bodies send them: consecutive
//! items of the same role form one message `{"role": …, KEY: [items…]}`.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// A merged message: its role and the range of its items.
struct Span {
    role: &'static str,
    start: usize,
    end: usize,
}

/// Items in history order and the messages they form; serialises as the array of messages,
/// each `{"role": …, key: [items…]}`.
pub(crate) struct Merged<T> {
    /// Every item, in order (push a message's items, then [`Merged::close`] it).
    pub(crate) items: Vec<T>,
    spans: Vec<Span>,
    key: &'static str,
}

impl<T> Merged<T> {
    /// An empty list for about `messages` messages whose items go under `key`.
    pub(crate) fn new(key: &'static str, messages: usize) -> Self {
        Merged {
            items: Vec::with_capacity(messages + messages / 2),
            spans: Vec::with_capacity(messages),
            key,
        }
    }

    /// Ends a message of `role` whose items were pushed from index `start` on: a message with
    /// no item is left out, one of the previous message's role joins it.
    pub(crate) fn close(&mut self, role: &'static str, start: usize) {
        let end = self.items.len();
        if end == start {
            return;
        }
        match self.spans.last_mut() {
            Some(last) if last.role == role => last.end = end,
            _ => self.spans.push(Span { role, start, end }),
        }
    }

    /// The index of the last item of each merged message of `role`, newest first.
    pub(crate) fn last_items_of(&self, role: &'static str) -> impl Iterator<Item = usize> + '_ {
        self.spans
            .iter()
            .rev()
            .filter(move |s| s.role == role)
            .map(|s| s.end - 1)
    }
}

struct Message<'s, T> {
    role: &'static str,
    key: &'static str,
    items: &'s [T],
}

impl<T: Serialize> Serialize for Message<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("role", self.role)?;
        map.serialize_entry(self.key, self.items)?;
        map.end()
    }
}

impl<T: Serialize> Serialize for Merged<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.spans.iter().map(|span| Message {
            role: span.role,
            key: self.key,
            items: self.items.get(span.start..span.end).unwrap_or_default(),
        }))
    }
}
