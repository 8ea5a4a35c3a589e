//! Compaction (history becomes `[system, assistant "[Context Summary]…"]`): the exact summary
//! request, the history after, PreCompact (blocking) / PostCompact hooks, failures leaving history
//! untouched, and automatic compaction before a turn, against the scripted provider and the fake
//! server.

use std::sync::Arc;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support::provider_cases;
use crate::support::session::*;
use robota_engine::core::hooks::HookEvent;
use robota_engine::core::message::{Message, Role};
use robota_engine::session::compaction::{compact_instructions_section, summary_prompt};
use robota_engine::session::{CompactError, CompactTrigger, Session, SessionRunOptions};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::support::session::{PROMPT_HEAD, PROMPT_TAIL};

fn roles_and_contents(s: &Session) -> Vec<(Role, String)> {
    s.messages()
        .iter()
        .map(|m| (m.role, m.content.clone()))
        .collect()
}

fn run(s: &Session, text: &str) {
    rt().block_on(s.run(Message::user(text), SessionRunOptions::default()))
        .unwrap();
}

#[test]
fn manual_compaction_sends_the_reference_prompt_and_replaces_history() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([{"text": "hi there"}, {"text": "  SUMMARY  "}]));
    let session = Session::new(options(provider.clone(), dir.path(), vec![])).unwrap();
    run(&session, "hello");
    let done = rt()
        .block_on(session.compact(
            Some("keep file paths"),
            CompactTrigger::Manual,
            &CancellationToken::new(),
        ))
        .unwrap();
    assert_eq!(done.summary, "SUMMARY");
    assert_eq!(done.trigger, CompactTrigger::Manual);
    let req = &provider.requests()[1];
    assert_eq!(req.messages.len(), 1);
    assert_eq!(req.messages[0].role, Role::User);
    assert_eq!(
        req.messages[0].content,
        format!("{PROMPT_HEAD}\nAdditional focus:\nkeep file paths\n\n{PROMPT_TAIL}")
    );
    assert!(req.tools.is_empty());
    assert_eq!(req.model, "test-model");
    assert_eq!(
        roles_and_contents(&session),
        vec![
            (Role::System, "You are a test assistant.".to_string()),
            (Role::Assistant, "[Context Summary]\nSUMMARY".to_string()),
        ]
    );
    assert!(done.after.used_tokens < done.before.used_tokens);
    assert_eq!(session.context_state(), done.after);
}

#[test]
fn the_instructions_source_is_read_at_the_first_compaction_only() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([{"text": "hi there"}, {"text": "S1"}, {"text": "S2"}]));
    let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut o = options(provider.clone(), dir.path(), vec![]);
    let counted = reads.clone();
    o.compact_instructions_source = Some(Arc::new(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Some("from the project".into())
    }));
    let session = Session::new(o).unwrap();
    run(&session, "hello");
    assert_eq!(
        reads.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "not at creation"
    );
    for _ in 0..2 {
        rt().block_on(session.compact(None, CompactTrigger::Manual, &CancellationToken::new()))
            .unwrap();
    }
    assert_eq!(reads.load(std::sync::atomic::Ordering::SeqCst), 1, "once");
    assert_eq!(
        provider.requests()[1].messages[0].content,
        format!("{PROMPT_HEAD}\nAdditional focus:\nfrom the project\n\n{PROMPT_TAIL}")
    );
    assert!(provider.requests()[2].messages[0]
        .content
        .contains("\nAdditional focus:\nfrom the project\n\n"));
}

#[test]
fn compact_instructions_are_the_default_focus_and_the_section_parser_follows_headings() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([{"text": "hi there"}, {"text": "S"}]));
    let mut o = options(provider.clone(), dir.path(), vec![]);
    o.compact_instructions = Some("only decisions".into());
    let session = Session::new(o).unwrap();
    run(&session, "hello");
    rt().block_on(session.compact(None, CompactTrigger::Manual, &CancellationToken::new()))
        .unwrap();
    assert_eq!(
        provider.requests()[1].messages[0].content,
        format!("{PROMPT_HEAD}\nAdditional focus:\nonly decisions\n\n{PROMPT_TAIL}")
    );
    let md = "# Project\nintro\n## Compact Instructions\nKeep APIs.\n### detail\nsub\n## Other\nno";
    assert_eq!(
        compact_instructions_section(md).as_deref(),
        Some("Keep APIs.\n### detail\nsub")
    );
    assert_eq!(
        compact_instructions_section("# compact instructions\n\n# x"),
        None
    );
    assert_eq!(compact_instructions_section("no headings"), None);
    assert_eq!(
        compact_instructions_section("# compact instructions\n\n"),
        None
    );
    assert_eq!(
        compact_instructions_section("#nope compact instructions\nx"),
        None
    );
    // Without focus: an empty line where the block would be; system messages are skipped.
    let msgs = vec![
        Arc::new(Message::system("sys")),
        Arc::new(Message::user("q")),
    ];
    assert_eq!(
        summary_prompt(&msgs, None),
        format!("{PROMPT_HEAD}\nDrop verbose tool outputs, debugging steps, and exploratory work that didn't lead to results.\n\nConversation:\nuser: q")
    );
}

#[test]
fn empty_history_failed_summary_and_blocking_precompact_leave_history_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([
        {"text": "hi there"},
        {"error": {"message": "summary boom"}},
        {"text": ""}
    ]));
    let mut o = options(provider.clone(), dir.path(), vec![]);
    let flag = dir.path().join("blocked");
    o.hooks = command_hook(
        HookEvent::PreCompact,
        "",
        &format!(
            "if [ -e '{}' ]; then echo 'not now' >&2; exit 2; fi",
            flag.display()
        ),
    );
    let session = Session::new(o).unwrap();
    let cancel = CancellationToken::new();
    assert_eq!(
        rt().block_on(session.compact(None, CompactTrigger::Manual, &cancel)),
        Err(CompactError::Empty)
    );
    assert_eq!(provider.call_count(), 0);
    run(&session, "hello");
    let before = roles_and_contents(&session);
    let e = rt()
        .block_on(session.compact(None, CompactTrigger::Manual, &cancel))
        .unwrap_err();
    assert!(
        matches!(&e, CompactError::Failed(m) if m.contains("summary boom")),
        "{e:?}"
    );
    assert_eq!(roles_and_contents(&session), before);
    let e = rt()
        .block_on(session.compact(None, CompactTrigger::Manual, &cancel))
        .unwrap_err();
    assert_eq!(
        e,
        CompactError::Failed("the model returned an empty summary".into())
    );
    assert_eq!(roles_and_contents(&session), before);
    std::fs::write(&flag, "").unwrap();
    let calls = provider.call_count();
    let e = rt()
        .block_on(session.compact(None, CompactTrigger::Manual, &cancel))
        .unwrap_err();
    assert_eq!(e, CompactError::Blocked("not now".into()));
    assert_eq!(
        e.to_string(),
        "compaction blocked by a PreCompact hook: not now"
    );
    assert_eq!(provider.call_count(), calls);
    assert_eq!(roles_and_contents(&session), before);
}

#[test]
fn hooks_see_the_trigger_and_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([{"text": "hi there"}, {"text": "S1"}, {"text": "S2"}]));
    let mut o = options(provider, dir.path(), vec![]);
    let pre = dir.path().join("pre.jsonl");
    let post = dir.path().join("post.jsonl");
    let mut hooks = command_hook(
        HookEvent::PreCompact,
        "",
        &format!("cat >> '{}'; echo >> '{}'", pre.display(), pre.display()),
    );
    let post_hooks = command_hook(
        HookEvent::PostCompact,
        "",
        &format!("cat >> '{}'; echo >> '{}'", post.display(), post.display()),
    );
    hooks = hooks.with_group(
        HookEvent::PostCompact,
        post_hooks.groups(HookEvent::PostCompact)[0].clone(),
    );
    o.hooks = hooks;
    let session = Session::new(o).unwrap();
    run(&session, "hello");
    let cancel = CancellationToken::new();
    rt().block_on(session.compact(Some("focus"), CompactTrigger::Manual, &cancel))
        .unwrap();
    rt().block_on(session.compact(None, CompactTrigger::Manual, &cancel))
        .unwrap();
    let lines = |p: &std::path::Path| -> Vec<Value> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let pre = lines(&pre);
    let post = lines(&post);
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0]["hook_event_name"], "PreCompact");
    assert_eq!(pre[0]["trigger"], "manual");
    assert_eq!(pre[0]["custom_instructions"], "focus");
    // Reference quirk: a bare manual compaction reports "auto" to PreCompact.
    assert_eq!(pre[1]["trigger"], "auto");
    assert_eq!(post[0]["trigger"], "manual");
    assert_eq!(post[0]["compact_summary"], "S1");
    assert_eq!(post[1]["trigger"], "manual");
    assert_eq!(post[1]["compact_summary"], "S2");
}

#[test]
fn auto_compaction_runs_before_a_turn_at_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let provider = scripted(json!([
        {"text": "hi there", "usage": {"input_tokens": 900, "output_tokens": 100}},
        {"text": "SUM"},
        {"text": "second answer"}
    ]));
    let mut o = options(provider.clone(), dir.path(), vec![]);
    o.context_max_tokens = Some(1000);
    let session = Session::new(o).unwrap();
    run(&session, "hello");
    assert!(session.auto_compact_due());
    run(&session, "next");
    let reqs = provider.requests();
    assert_eq!(reqs.len(), 3, "{:#?}", session.messages());
    assert_eq!(
        reqs[1].messages[0].content,
        format!("{PROMPT_HEAD}\n{PROMPT_TAIL}")
    );
    let sent: Vec<(Role, String)> = reqs[2]
        .messages
        .iter()
        .map(|m| (m.role, m.content.clone()))
        .collect();
    assert_eq!(
        sent,
        vec![
            (Role::System, "You are a test assistant.".to_string()),
            (Role::Assistant, "[Context Summary]\nSUM".to_string()),
            (Role::User, "next".to_string()),
        ]
    );
    // Disabled threshold: no compaction however full.
    assert_eq!(
        session.set_auto_compact_threshold(Some(1.5)),
        Err("autoCompactThreshold must be a number greater than 0 and at most 1.".into())
    );
    session.set_auto_compact_threshold(None).unwrap();
    assert!(!session.auto_compact_due());
}

#[test]
fn summary_request_over_the_fake_server_is_one_user_message_without_tools() {
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["hi ", "there"])));
    server.enqueue(Reply::anthropic(&Turn::text(["SUM", "MARY"])));
    let provider = provider_cases::provider(&server, "anthropic", json!({}));
    let dir = tempfile::tempdir().unwrap();
    let mut o = robota_engine::session::SessionOptions::new(provider, "test-model");
    o.cwd = dir.path().to_path_buf();
    o.system_message = "You are a test assistant.".into();
    let session = Session::new(o).unwrap();
    run(&session, "hello");
    let done = rt()
        .block_on(session.compact(None, CompactTrigger::Manual, &CancellationToken::new()))
        .unwrap();
    assert_eq!(done.summary, "SUMMARY");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let body = &reqs[1].body;
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": format!("{PROMPT_HEAD}\n{PROMPT_TAIL}")}
        ]}])
    );
    assert!(body.get("system").is_none(), "{body}");
    assert!(body.get("tools").is_none(), "{body}");
    assert_eq!(session.messages()[1].content, "[Context Summary]\nSUMMARY");
}
