//! ConversationStore: append-only history with a pending (streaming) assistant buffer.
//!
//! Exactly one system message lives at index 0 and is updated in place; nothing is ever trimmed.
//! The serialized size of every message is cached at append time so context estimation over
//! the whole history is O(1) per call instead of re-serializing (no O(n²) history work).

use std::sync::Arc;

use super::history::{EventEntry, HistoryEntry};
use super::image::estimated_json_len;
use super::message::{Message, MessageState, Metadata, NativeContent, Role, ToolCall};
use super::recent_json::RecentJson;
use super::tokens::{estimate_from_parts, read_token_usage, ContextEstimate};
use super::util::new_uuid;

/// The assistant message being streamed.
#[derive(Debug, Clone, Default)]
pub struct PendingAssistant {
    /// Id the committed message will get.
    pub id: String,
    /// Text streamed so far.
    pub text: String,
    /// Tool calls collected so far (deduplicated by id).
    pub tool_calls: Vec<ToolCall>,
    /// Vendor-format content kept with the message ([`Message::native`]).
    pub native: Option<NativeContent>,
}

/// Append-only conversation history.
#[derive(Debug, Default, Clone)]
pub struct ConversationStore {
    entries: Vec<HistoryEntry>,
    /// Shared with the [`Self::snapshot`]s taken (a provider request's), copied on a change
    /// only while one is held.
    messages: Arc<Vec<Arc<Message>>>,
    /// Cached `serde_json::to_string(msg).len()` per message.
    json_lens: Vec<usize>,
    json_total: usize,
    /// Index and total of the latest message carrying provider usage.
    latest_usage: Option<(usize, u64)>,
    pending: Option<PendingAssistant>,
    /// The JSON text of the last appended messages, until their `message` event takes it.
    recent_json: RecentJson,
}

impl ConversationStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Rebuilds a store from saved entries.
    pub fn from_entries(entries: Vec<HistoryEntry>) -> Self {
        let mut s = Self::new();
        for e in entries {
            match e {
                HistoryEntry::Chat(m) => {
                    s.push_message(m);
                }
                HistoryEntry::Event(ev) => s.entries.push(HistoryEntry::Event(ev)),
            }
        }
        // Restored messages were reported in the session's earlier life: no event will take
        // their text, so none is kept (an idle resumed session holds no copies).
        s.recent_json = RecentJson::default();
        s
    }

    fn push_message(&mut self, m: Arc<Message>) -> usize {
        if let Some(u) = read_token_usage(&m) {
            self.latest_usage = Some((self.messages.len(), u.total()));
        }
        let json = message_json(&m);
        let len = estimated_json_len(&m, json.len());
        self.recent_json.keep(&m, json);
        self.json_total += len;
        self.json_lens.push(len);
        Arc::make_mut(&mut self.messages).push(m.clone());
        self.entries.push(HistoryEntry::Chat(m));
        self.messages.len() - 1
    }

    /// Appends a message; returns its index among chat messages.
    pub fn append(&mut self, message: Message) -> usize {
        self.push_message(Arc::new(message))
    }

    /// Appends an event entry (`addEntry`).
    pub fn add_event(&mut self, entry: EventEntry) {
        self.entries.push(HistoryEntry::Event(Box::new(entry)));
    }

    /// Sets the single system message at index 0: replaced in place if present, else inserted.
    pub fn set_system(&mut self, content: &str) {
        if let Some(first) = self.messages.first() {
            if first.role == Role::System {
                if first.content == content {
                    return;
                }
                let mut m = (**first).clone();
                m.content = content.to_string();
                let m = Arc::new(m);
                let len = json_len(&m);
                self.json_total = self.json_total - self.json_lens[0] + len;
                self.json_lens[0] = len;
                let old_id = first.id.clone();
                Arc::make_mut(&mut self.messages)[0] = m.clone();
                if let Some(e) = self
                    .entries
                    .iter_mut()
                    .find(|e| e.as_message().is_some_and(|x| x.id == old_id))
                {
                    *e = HistoryEntry::Chat(m);
                }
                return;
            }
        }
        let m = Arc::new(Message::system(content));
        let len = json_len(&m);
        if let Some((i, _)) = self.latest_usage.as_mut() {
            *i += 1;
        }
        self.json_total += len;
        self.json_lens.insert(0, len);
        Arc::make_mut(&mut self.messages).insert(0, m.clone());
        self.entries.insert(0, HistoryEntry::Chat(m));
    }

    /// The JSON text of `m` (`serde_json::to_vec`) when it is one of the messages appended last
    /// and its text was not taken yet (then `None`: serialise it).
    pub fn take_json(&mut self, m: &Arc<Message>) -> Option<Vec<u8>> {
        self.recent_json.take(m)
    }

    /// Chat messages (`getMessagesForAPI` source), cheap to clone.
    pub fn messages(&self) -> &[Arc<Message>] {
        &self.messages
    }

    /// The chat messages as they are now, shared in O(1) (a provider request holds them for
    /// its call without copying the history each round). While a snapshot is held, the next
    /// change to the messages copies them once; drop it first.
    pub fn snapshot(&self) -> Arc<Vec<Arc<Message>>> {
        self.messages.clone()
    }

    /// What a model is sent: [`Self::snapshot`] without the messages a model is never sent
    /// ([`Message::is_sent_to_model`]: a failed call's `Request failed: …`, an answer aborted
    /// before any text); shared in O(1) when there are none.
    pub fn model_snapshot(&self) -> Arc<Vec<Arc<Message>>> {
        if self.messages.iter().all(|m| m.is_sent_to_model()) {
            return self.messages.clone();
        }
        Arc::new(
            self.messages
                .iter()
                .filter(|m| m.is_sent_to_model())
                .cloned()
                .collect(),
        )
    }

    /// The full timeline (`getHistory`).
    pub fn entries(&self) -> &[HistoryEntry] {
        &self.entries
    }

    /// Number of chat messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// True when there are no chat messages.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Length of `JSON.stringify(messages)` computed from the per-message cache.
    pub fn serialized_len(&self) -> usize {
        let n = self.messages.len();
        if n == 0 {
            2
        } else {
            2 + self.json_total + (n - 1)
        }
    }

    /// Index and total of the latest message carrying provider usage (cached: what a scan
    /// of [`Self::messages`] from the end with [`read_token_usage`] finds).
    pub fn latest_usage(&self) -> Option<(usize, u64)> {
        self.latest_usage
    }

    /// `estimateContextTokensFromMessages` over the whole history with `pending` appended, in
    /// O(size of `pending`): the pre-send estimate.
    pub fn estimate_with(&self, pending: &Message, usage_floor: Option<f64>) -> ContextEstimate {
        let sep = usize::from(!self.messages.is_empty());
        let latest = match read_token_usage(pending) {
            Some(u) => Some((self.messages.len(), u.total())),
            None => self.latest_usage,
        };
        estimate_from_parts(
            self.serialized_len() + json_len(pending) + sep,
            latest,
            self.messages.len() + 1,
            usage_floor,
        )
    }

    /// `estimateContextTokensFromMessages` over the whole history in O(1): uses the cached
    /// serialized length and the cached latest usage.
    pub fn estimate(&self, usage_floor: Option<f64>) -> ContextEstimate {
        estimate_from_parts(
            self.serialized_len(),
            self.latest_usage,
            self.messages.len(),
            usage_floor,
        )
    }

    /// Removes everything (the `clear` command); keeps the system message when `keep_system`.
    pub fn clear(&mut self, keep_system: bool) {
        let system = if keep_system {
            self.messages
                .first()
                .filter(|m| m.role == Role::System)
                .cloned()
        } else {
            None
        };
        *self = Self::new();
        if let Some(s) = system {
            self.push_message(s);
        }
    }

    /// `beginAssistant()`: creates the pending buffer if absent.
    pub fn begin_assistant(&mut self) {
        if self.pending.is_none() {
            self.pending = Some(PendingAssistant {
                id: new_uuid(),
                ..Default::default()
            });
        }
    }

    /// `appendStreaming(delta)`.
    pub fn append_streaming(&mut self, delta: &str) {
        if let Some(p) = self.pending.as_mut() {
            p.text.push_str(delta);
        }
    }

    /// `appendToolCall(tc)`: ignored when a pending call already has that id.
    pub fn append_tool_call(&mut self, call: ToolCall) {
        if let Some(p) = self.pending.as_mut() {
            if !p.tool_calls.iter().any(|c| c.id == call.id) {
                p.tool_calls.push(call);
            }
        }
    }

    /// Keeps vendor-format content with the pending message (no-op without one).
    pub fn set_pending_native(&mut self, native: NativeContent) {
        if let Some(p) = self.pending.as_mut() {
            p.native = Some(native);
        }
    }

    /// `hasPendingAssistant()`.
    pub fn has_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// `getPendingContent()`.
    pub fn pending_content(&self) -> &str {
        self.pending.as_ref().map_or("", |p| p.text.as_str())
    }

    /// `commitAssistant(state, metadata?)`: appends the pending message (text always kept) and
    /// clears the buffer. Returns the committed message and its index; `None` when nothing was pending.
    pub fn commit_assistant(
        &mut self,
        state: MessageState,
        metadata: Option<Metadata>,
    ) -> Option<(Arc<Message>, usize)> {
        let p = self.pending.take()?;
        let mut m = Message::assistant(p.text);
        m.id = p.id;
        m.state = state;
        m.tool_calls = p.tool_calls;
        m.metadata = metadata.map(Box::new);
        m.native = p.native.map(Box::new);
        let m = Arc::new(m);
        let idx = self.push_message(m.clone());
        Some((m, idx))
    }

    /// `discardPending()`.
    pub fn discard_pending(&mut self) {
        self.pending = None;
    }
}

/// Counts bytes written without storing them.
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `JSON.stringify(m).length` without allocating the string.
/// The serialized length of `m` as the context estimate counts it (images at a fixed size:
/// [`estimated_json_len`]).
fn json_len(m: &Message) -> usize {
    let mut c = ByteCounter(0);
    serde_json::to_writer(&mut c, m).map_or(0, |_| estimated_json_len(m, c.0))
}

/// `JSON.stringify(m)` as bytes (empty when it cannot be written, which [`json_len`] counts
/// as 0 too).
fn message_json(m: &Message) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    if serde_json::to_writer(&mut out, m).is_err() {
        out.clear();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_is_the_history_then_and_shares_it() {
        let mut s = ConversationStore::new();
        s.append(Message::user("a"));
        let snap = s.snapshot();
        assert!(std::ptr::eq(snap.as_ptr(), s.messages().as_ptr()));
        assert!(Arc::ptr_eq(&snap[0], &s.messages()[0]));
        // A change while it is held copies the list: the snapshot stays what it was.
        s.append(Message::assistant("b"));
        s.set_system("sys");
        assert_eq!(snap.len(), 1);
        let contents: Vec<&str> = s.messages().iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["sys", "a", "b"]);
        // Let go, the next change works on the list itself.
        drop(snap);
        let before = s.messages().as_ptr();
        let held = s.snapshot();
        assert!(std::ptr::eq(held.as_ptr(), before));
        drop(held);
        s.set_system("sys 2");
        assert!(std::ptr::eq(s.messages().as_ptr(), before));
        assert_eq!(s.messages()[0].content, "sys 2");
    }

    #[test]
    fn serialized_len_matches_real_json() {
        let mut s = ConversationStore::new();
        s.set_system("sys");
        s.append(Message::user("hello"));
        s.append(Message::assistant("world ✓"));
        let real =
            serde_json::to_string(&s.messages().iter().map(|m| m.as_ref()).collect::<Vec<_>>())
                .map_or(0, |x| x.len());
        assert_eq!(s.serialized_len(), real);
        s.set_system("a much longer system prompt");
        let real =
            serde_json::to_string(&s.messages().iter().map(|m| m.as_ref()).collect::<Vec<_>>())
                .map_or(0, |x| x.len());
        assert_eq!(s.serialized_len(), real);
        assert_eq!(
            s.messages()
                .iter()
                .filter(|m| m.role == Role::System)
                .count(),
            1
        );
    }

    /// The O(1) estimates equal Robota's scan over the whole history, with and
    /// without a pending message, whether or not (and where) messages carry usage.
    #[test]
    fn cached_estimates_equal_the_full_scan() {
        use crate::core::tokens::estimate_context_with_len;
        let with_usage = |text: &str, total: u64| {
            let mut m = Message::assistant(text);
            let mut meta = Metadata::new();
            meta.insert("inputTokens".into(), serde_json::json!(total - 1));
            meta.insert("outputTokens".into(), serde_json::json!(1));
            m.metadata = Some(Box::new(meta));
            m
        };
        let mut s = ConversationStore::new();
        let check = |s: &ConversationStore| {
            let scan = estimate_context_with_len(s.messages(), s.serialized_len(), Some(3.0));
            assert_eq!(s.estimate(Some(3.0)), scan);
            for pending in [Message::user("next question"), with_usage("answer", 9_000)] {
                let mut all = s.messages().to_vec();
                all.push(Arc::new(pending.clone()));
                let len = 2 + all.iter().map(|m| json_len(m)).sum::<usize>() + all.len() - 1;
                assert_eq!(
                    s.estimate_with(&pending, None),
                    estimate_context_with_len(&all, len, None)
                );
            }
        };
        check(&s);
        s.append(Message::user("hello"));
        check(&s);
        s.append(with_usage("first", 40_000));
        s.append(Message::user("more"));
        check(&s);
        s.set_system("sys");
        check(&s);
        s.append(with_usage("second", 50));
        check(&s);
        s.clear(true);
        check(&s);
    }
}
