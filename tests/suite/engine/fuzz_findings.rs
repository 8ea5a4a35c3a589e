//! Regression tests for what the fuzz targets (fuzz/, docs/reliability.md "Fuzzing") found.
//!
//! `decode_openai` / `decode_anthropic`: events after the vendor's end marker (`[DONE]`,
//! `message_stop`) that arrived in the same network chunk were still decoded, so the answer
//! depended on where the bytes were cut: trailing deltas were appended to the text (OpenAI) or a
//! delta for a closed block failed the whole call (Anthropic). Nothing after the end marker
//! counts now, whatever the chunking.
//!
//! `permission_patterns` (long run): a glob with deeply nested, unbalanced braces made globset's
//! `compile_matcher` panic ("regex compilation shouldn't fail") — in permission rules and in the
//! Glob tool, where the model writes the pattern. Globs compile through
//! `core::glob_match::compile` now, which returns the error.

use robota_engine::core::permissions::{
    evaluate_permission, glob_matches, PermissionDecision, PermissionLists, PermissionMode,
};
use robota_engine::core::provider::StopReason;
use robota_engine::providers::sse::SseParser;
use robota_engine::providers::stream::{feed_events, finish_events};
use robota_engine::providers::{HttpProviderConfig, ProviderKind};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::provider_cases::{chat, provider, Rec};
use crate::support::tools::{call, error, tool};

/// `turn` as `kind` frames, then `extra` after the end marker, all written as one chunk.
fn one_chunk_with_trailer(kind: &str, extra: &str) -> Reply {
    let mut bytes = Reply::for_kind(kind, &Turn::text(["Hel", "lo"])).frames_bytes();
    bytes.extend_from_slice(extra.as_bytes());
    Reply::raw_lines(&bytes).coalesced()
}

#[tokio::test]
async fn openai_deltas_after_done_in_the_same_chunk_are_ignored() {
    let server = FakeServer::start();
    server.enqueue(one_chunk_with_trailer(
        "openai",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" EXTRA\"},\"finish_reason\":null}]}\n\n",
    ));
    let p = provider(&server, "openai", json!({"max_retries": 0}));
    let mut sink = Rec::default();
    let r = chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.content, "Hello");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    assert_eq!(sink.text, vec!["Hel", "lo"]);
}

#[tokio::test]
async fn anthropic_events_after_message_stop_in_the_same_chunk_are_ignored() {
    let server = FakeServer::start();
    server.enqueue(one_chunk_with_trailer(
        "anthropic",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\
         \"delta\":{\"type\":\"text_delta\",\"text\":\" EXTRA\"}}\n\n",
    ));
    let p = provider(&server, "anthropic", json!({"max_retries": 0}));
    let mut sink = Rec::default();
    let r = chat(p.as_ref(), &mut sink, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.content, "Hello");
    assert_eq!(sink.text, vec!["Hel", "lo"]);
}

/// The fuzz property itself on one stream: cut at every byte, the decoded answer is the same.
#[test]
fn openai_decoding_is_the_same_at_every_split_point() {
    let mut stream = Reply::for_kind("openai", &Turn::text(["Hel", "lo"])).frames_bytes();
    stream.extend_from_slice(
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"X\"}}]}\n\n",
    );
    let entry = json!({"kind": "openai", "base_url": "http://127.0.0.1:9"});
    let cfg = HttpProviderConfig::parse("t", ProviderKind::OpenAi, &entry).unwrap();
    let decode = |parts: &[&[u8]]| {
        let mut d = robota_engine::providers::openai::OpenAiDecoder::new(cfg.clone());
        let mut parser = SseParser::new();
        let mut sink = Rec::default();
        for part in parts {
            feed_events(&mut parser, part, &mut d, &mut sink, |_, _| {}).unwrap();
        }
        finish_events(&mut parser, &mut d, &mut sink, |_, _| {}).unwrap();
        std::mem::take(&mut d.acc).into_response(false)
    };
    let whole = decode(&[&stream]);
    assert_eq!(whole.content, "Hello");
    for at in 1..stream.len() {
        let (a, b) = stream.split_at(at);
        assert_eq!(decode(&[a, b]), whole, "split at byte {at}");
    }
}

/// The minimized input of the `permission_patterns` crash (its pattern part).
const NESTED_BRACES: &str = r#",{B"|*,{*,{B{*,*,,{B"{",{B(,{|*{(,{B((*,{(*s{,*,{{B"({*,,{B,{B,{B|*,{B*s{(*,{(((,{B"{*,,{:,{,{{*,{*,{{*,{B"((,{B",{*,{**{*,{B*,{s{*,*,{B,{B",{(*|*,{B|{*,{B|,{{{*,s{|*,{B"**s{*{B"*,{B|*,{B"*,{s{*,{"((,{"s{*(({{{(*,{",{B,{(*s{*,*,,{B{B{*,,{,{B|,{B{**s{*,{B{|*{*,*,{:*,{B*,{B",{B"(s{(*,{**,{((*s{B",{B,{B{(*,{B|*,{(({*,{{*,*{:,}*}|4},}*}|3}6},|3}}*}},}*}|}|},}*}|}|},|3}}3}}|6},4}}*}|3}|},3}:/}*}|3}|6},|3},}((:}*}|2}}*}|3}6}}}3}|6},|}|},}*}}:}*}|2},}}3}|6},|3}:|7,}:,}*}2},}*}U3}|7,}3}|6}},}((*}*}|2},}*}|}|},3}:,}:/B,}*}|},}}3}|6},7}:|7,}3}|}|3}7"#;

#[test]
fn a_glob_whose_regex_is_refused_is_no_match_in_permission_rules() {
    assert!(!glob_matches(NESTED_BRACES, "ls"));
    let rule = format!("Bash({NESTED_BRACES})");
    let lists = PermissionLists {
        allow: vec![],
        deny: vec![rule],
    };
    assert_eq!(
        evaluate_permission(
            "Bash",
            &json!({"command": "ls"}),
            PermissionMode::BypassPermissions,
            &lists
        ),
        PermissionDecision::Auto
    );
}

#[tokio::test]
async fn a_glob_whose_regex_is_refused_is_an_invalid_pattern_for_the_glob_tool() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool("Glob", dir.path());
    let r = call(&t, json!({ "pattern": NESTED_BRACES })).await;
    assert_eq!(r["success"], false);
    assert!(
        error(&r).starts_with(&format!("Invalid glob pattern: {NESTED_BRACES}: ")),
        "{}",
        error(&r)
    );
}
