//! ConversationStore streaming state (one pending assistant buffer, committed or discarded) and
//! history entries.

use robota_engine::core::history::{messages_of, EventEntry, HistoryEntry};
use robota_engine::core::message::{Message, MessageState, Role, ToolCall};
use robota_engine::core::store::ConversationStore;
use serde_json::json;

#[test]
fn interrupted_suffix_only_on_interrupted_assistant_messages() {
    let mut s = ConversationStore::new();
    s.append(Message::user("q"));
    s.begin_assistant();
    s.append_streaming("partial");
    s.commit_assistant(MessageState::Interrupted, None);
    s.begin_assistant();
    s.append_streaming("whole");
    s.commit_assistant(MessageState::Complete, None);
    let api: Vec<String> = s
        .messages()
        .iter()
        .map(|m| m.content_for_api().into_owned())
        .collect();
    assert_eq!(
        api,
        vec![
            "q",
            "partial\n\n[This response was interrupted by the user]",
            "whole"
        ]
    );
}

#[test]
fn text_is_kept_alongside_tool_calls_and_duplicates_are_dropped() {
    let mut s = ConversationStore::new();
    s.begin_assistant();
    s.append_streaming("Let me look.");
    s.append_tool_call(ToolCall::new("id1", "Read", "{}"));
    s.append_tool_call(ToolCall::new("id1", "Read", "{\"x\":1}"));
    s.append_tool_call(ToolCall::new("id2", "Glob", "{}"));
    let (m, idx) = s.commit_assistant(MessageState::Complete, None).unwrap();
    assert_eq!(idx, 0);
    assert_eq!(m.content, "Let me look.");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(m.tool_calls[0].function.arguments, "{}");
    assert!(!s.has_pending());
}

#[test]
fn empty_commit_after_immediate_abort_and_noop_without_buffer() {
    let mut s = ConversationStore::new();
    assert!(s.commit_assistant(MessageState::Complete, None).is_none());
    s.begin_assistant();
    let (m, _) = s.commit_assistant(MessageState::Interrupted, None).unwrap();
    assert_eq!(m.content, "");
    assert_eq!(m.state, MessageState::Interrupted);
    assert!(m.tool_calls.is_empty());
    s.begin_assistant();
    s.append_streaming("gone");
    assert_eq!(s.pending_content(), "gone");
    s.discard_pending();
    assert_eq!(s.len(), 1);
}

#[test]
fn begin_is_idempotent_while_pending() {
    let mut s = ConversationStore::new();
    s.begin_assistant();
    s.append_streaming("a");
    s.begin_assistant();
    s.append_streaming("b");
    assert_eq!(s.pending_content(), "ab");
}

#[test]
fn history_entries_round_trip_and_filter_to_messages() {
    let mut s = ConversationStore::new();
    s.set_system("sys");
    s.append(Message::user("hi"));
    s.add_event(EventEntry::new(
        "tool-summary",
        json!({"tools":[],"summary":""}),
    ));
    s.append(Message::assistant("hello"));
    let json = serde_json::to_value(s.entries()).unwrap();
    assert_eq!(json[1]["category"], "chat");
    assert_eq!(json[1]["type"], "user");
    assert_eq!(json[1]["data"]["content"], "hi");
    assert_eq!(json[2]["category"], "event");
    assert_eq!(json[2]["type"], "tool-summary");
    let back: Vec<HistoryEntry> = serde_json::from_value(json).unwrap();
    assert_eq!(back, s.entries().to_vec());
    let msgs = messages_of(&back);
    assert_eq!(
        msgs.iter().map(|m| m.role).collect::<Vec<_>>(),
        vec![Role::System, Role::User, Role::Assistant]
    );
    let rebuilt = ConversationStore::from_entries(back);
    assert_eq!(rebuilt.serialized_len(), s.serialized_len());
}

#[test]
fn bad_history_entry_is_a_clear_error() {
    let err = serde_json::from_value::<HistoryEntry>(
        json!({"id":"1","timestamp":"t","category":"weird","type":"x"}),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("category must be \"chat\" or \"event\""),
        "{err}"
    );
}

#[test]
fn no_silent_cap() {
    let mut s = ConversationStore::new();
    s.set_system("sys");
    for i in 0..250 {
        s.append(Message::user(format!("m{i}")));
    }
    assert_eq!(s.len(), 251);
    assert_eq!(s.messages()[1].content, "m0");
}

#[test]
fn factories_generate_fresh_ids_and_complete_state() {
    let a = Message::user("x");
    let b = Message::user("x");
    assert_ne!(a.id, b.id);
    assert_eq!(a.state, MessageState::Complete);
    assert_eq!(Message::tool("r", "c", "T").state, MessageState::Complete);
}

#[test]
fn cached_estimate_matches_the_full_estimator() {
    use robota_engine::core::message::Metadata;
    use robota_engine::core::tokens::estimate_context_tokens;
    let mut s = ConversationStore::new();
    let check = |s: &ConversationStore| {
        for floor in [None, Some(5.0), Some(100_000.0)] {
            assert_eq!(
                s.estimate(floor),
                estimate_context_tokens(s.messages(), floor)
            );
        }
    };
    s.append(Message::user("hello"));
    check(&s);
    let mut meta = Metadata::new();
    meta.insert("inputTokens".into(), json!(1200));
    meta.insert("outputTokens".into(), json!(30));
    s.append(Message::assistant("answer").with_metadata(meta));
    check(&s);
    s.set_system("inserted later at index 0");
    check(&s);
    s.append(Message::tool("x".repeat(9000), "c", "T"));
    check(&s);
    s.clear(true);
    check(&s);
}

/// The store keeps the JSON text it wrote for each appended message (to count its length)
/// until the session's `message` event takes it: exactly `serde_json`'s text of that message,
/// given once, and only for the very message appended.
#[test]
fn appended_messages_hand_over_their_json_text_once() {
    let mut s = ConversationStore::new();
    s.append(Message::user("a \"quoted\" ✓ question"));
    s.begin_assistant();
    s.append_streaming("answer");
    s.append_tool_call(ToolCall::new("c1", "add", r#"{"a":1}"#));
    s.commit_assistant(MessageState::Complete, None);
    let msgs = s.messages().to_vec();
    for m in &msgs {
        let json = s.take_json(m).expect("kept");
        assert_eq!(json, serde_json::to_vec(m.as_ref()).unwrap());
        assert_eq!(s.take_json(m), None, "given once");
    }
    // The history's length is still the sum of those texts.
    let whole =
        serde_json::to_string(&msgs.iter().map(|m| m.as_ref()).collect::<Vec<_>>()).unwrap();
    assert_eq!(s.serialized_len(), whole.len());
    // An equal message that is not the appended one gets nothing.
    s.append(Message::user("again"));
    let copy = std::sync::Arc::new((*s.messages()[2]).clone());
    assert_eq!(s.take_json(&copy), None);
    // A store rebuilt from saved entries keeps no text: its messages were reported before.
    let mut restored = ConversationStore::from_entries(s.entries().to_vec());
    let last = restored.messages().last().cloned().unwrap();
    assert_eq!(restored.take_json(&last), None);
    assert_eq!(restored.serialized_len(), s.serialized_len());
}
