//! The JSON text of the messages appended last. The store serialises every message it appends
//! anyway (to keep the history's JSON length for context estimates); an interactive session then
//! reports the same message as a `message` event, whose document is that text. Keeping the text
//! until the event takes it serialises a message once instead of twice. Bounded: only the last
//! few messages, none larger than [`MAX_BYTES`], so a store whose messages are never reported
//! (an engine without a session) holds a few kilobytes at most.

use std::collections::VecDeque;
use std::sync::Arc;

use super::message::Message;

/// Messages kept (a round appends at most a few before its events take them).
const KEEP: usize = 8;
/// Larger texts are not kept (the event serialises such a message again).
pub const MAX_BYTES: usize = 16 * 1024;

/// The JSON text of the last appended messages, by message identity.
#[derive(Default)]
pub struct RecentJson {
    items: VecDeque<(Arc<Message>, Vec<u8>)>,
}

impl RecentJson {
    /// Keeps `json`, the text of `m` (dropping the oldest kept text when full).
    pub fn keep(&mut self, m: &Arc<Message>, json: Vec<u8>) {
        if json.len() > MAX_BYTES {
            return;
        }
        if self.items.len() == KEEP {
            self.items.pop_front();
        }
        self.items.push_back((m.clone(), json));
    }

    /// The kept text of `m` (this very message, not an equal one), removed from the store.
    pub fn take(&mut self, m: &Arc<Message>) -> Option<Vec<u8>> {
        let i = self.items.iter().position(|(k, _)| Arc::ptr_eq(k, m))?;
        self.items.remove(i).map(|(_, json)| json)
    }
}

/// A copy of a store starts without kept texts (they are a cache of the original's).
impl Clone for RecentJson {
    fn clone(&self) -> Self {
        RecentJson::default()
    }
}

impl std::fmt::Debug for RecentJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RecentJson({} kept)", self.items.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_few_by_identity_and_gives_each_once() {
        let mut r = RecentJson::default();
        let msgs: Vec<Arc<Message>> = (0..KEEP + 2)
            .map(|i| Arc::new(Message::user(format!("m{i}"))))
            .collect();
        for (i, m) in msgs.iter().enumerate() {
            r.keep(m, format!("{i}").into_bytes());
        }
        // The two oldest were dropped; an equal message that is not the same one gets nothing.
        assert_eq!(r.take(&msgs[0]), None);
        assert_eq!(r.take(&msgs[1]), None);
        assert_eq!(r.take(&Arc::new((*msgs[2]).clone())), None);
        assert_eq!(r.take(&msgs[2]), Some(b"2".to_vec()));
        assert_eq!(r.take(&msgs[2]), None);
        assert_eq!(
            r.take(&msgs[KEEP + 1]),
            Some(format!("{}", KEEP + 1).into_bytes())
        );
        // Too large a text is not kept; a clone of the cache is empty.
        r.keep(&msgs[0], vec![b' '; MAX_BYTES + 1]);
        assert_eq!(r.take(&msgs[0]), None);
        r.keep(&msgs[0], b"x".to_vec());
        assert_eq!(r.clone().take(&msgs[0]), None);
        assert_eq!(r.take(&msgs[0]), Some(b"x".to_vec()));
    }
}
