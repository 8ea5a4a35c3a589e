//! Through the C ABI: the `compact` command and automatic compaction (events, the summary
//! request on the wire, a blocking PreCompact), and the session store (persist after every
//! turn, list, delete, resume by id with hooks, permissions and mode kept).

use std::path::Path;

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi as ffi;

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("").to_string())
        .collect()
}

fn turn(s: *mut robota::ffi::robota_session, text: &str) -> Vec<Value> {
    let id = ffi::submit(s, text);
    let evs = ffi::events_until(s, "turn_completed");
    assert_eq!(
        robota_session_wait(s, id, 30_000, std::ptr::null_mut()),
        ROBOTA_OK
    );
    evs
}

#[test]
fn compact_command_summarizes_with_the_project_instructions_and_reports_events() {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["hi ", "there"])));
    server.enqueue(Reply::openai(&Turn::text(["SUM"])));
    let dir = tempfile::tempdir().unwrap();
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("openai")}}).to_string(),
    );
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"p","model":"m","cwd":dir.path(),"delivery":"pull",
                "system_prompt":"SYS"})
        .to_string(),
    )
    .unwrap();
    turn(s, "hello");
    // Written after the session started: the project's instructions are read when the first
    // compaction needs them.
    std::fs::write(
        dir.path().join("CLAUDE.md"),
        "# Project\nx\n## Compact Instructions\nKeep the API list.\n## Other\ny\n",
    )
    .unwrap();
    let out = ffi::command(s, r#"{"name":"compact"}"#).unwrap();
    assert_eq!(out["success"], true, "{out}");
    let (b, a) = (&out["data"]["before"], &out["data"]["after"]);
    assert_eq!(
        out["message"],
        format!("Context compacted: {b}% -> {a}%"),
        "{out}"
    );
    assert_eq!(out["data"]["summary"], "SUM");
    let reqs = server.requests();
    let prompt = reqs[1].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        prompt.contains("\nAdditional focus:\nKeep the API list.\n\nDrop verbose"),
        "{prompt}"
    );
    assert!(
        prompt.ends_with("Conversation:\nuser: hello\nassistant: hi there"),
        "{prompt}"
    );
    assert_eq!(reqs[1].body["messages"].as_array().unwrap().len(), 1);
    assert!(reqs[1].body.get("tools").is_none());
    let evs = ffi::events_until(s, "context_update");
    assert_eq!(types(&evs), vec!["compacted", "context_update"]);
    assert_eq!(evs[0]["trigger"], "manual");
    assert_eq!(evs[0]["summary"], "SUM");
    assert_eq!(evs[0]["after"]["used_percentage"], *a);
    assert_eq!(evs[1]["used_percentage"], *a);
    let mut conv = std::ptr::null_mut();
    assert_eq!(
        robota_session_messages(s, std::ptr::null(), &mut conv, std::ptr::null_mut()),
        ROBOTA_OK
    );
    // SAFETY: owned NUL-terminated string from the library.
    let text = unsafe { std::ffi::CStr::from_ptr(conv) }
        .to_string_lossy()
        .into_owned();
    robota_string_free(conv);
    let v: Value = serde_json::from_str(&text).unwrap();
    let contents: Vec<&str> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(contents, vec!["SYS", "[Context Summary]\nSUM"]);
    // A failed summary request: history untouched, the reason in the message.
    server.enqueue(Reply::error(500, r#"{"error":{"message":"down"}}"#));
    let out = ffi::command(s, r#"{"name":"compact","args":"x"}"#).unwrap();
    assert_eq!(out["success"], false);
    assert!(
        out["message"]
            .as_str()
            .unwrap()
            .starts_with("Context not compacted: the summary request failed:"),
        "{out}"
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn automatic_compaction_before_a_turn_and_a_blocking_precompact_hook() {
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("block");
    let usage = json!({"input_tokens": 900, "output_tokens": 100});
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"text":"one","usage":usage}, {"text":"SUM"},
            {"text":"two","usage":{"input_tokens": 800, "output_tokens": 50}},
            {"text":"three"}]}}})
        .to_string(),
    );
    let hook = format!(
        "if [ -e '{}' ]; then echo nope >&2; exit 2; fi",
        flag.display()
    );
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","cwd":dir.path(),"delivery":"pull",
                "context_window":1000,
                "hooks":{"PreCompact":[{"matcher":"","hooks":[{"type":"command","command":hook}]}]}})
        .to_string(),
    )
    .unwrap();
    turn(s, "first");
    let evs = turn(s, "second");
    let t = types(&evs);
    let c = t.iter().position(|x| x == "compacted").expect("compacted");
    assert_eq!(t[0], "turn_started");
    assert_eq!(t[c + 1], "context_update");
    assert_eq!(evs[c]["trigger"], "auto");
    assert_eq!(evs[c]["summary"], "SUM");
    assert_eq!(evs.last().unwrap()["stop_reason"], "complete");
    assert_eq!(evs.last().unwrap()["response"], "two");
    // Full again, but PreCompact blocks: a warning, the turn goes on uncompacted.
    std::fs::write(&flag, "").unwrap();
    let evs = turn(s, "third");
    let w: Vec<&Value> = evs.iter().filter(|e| e["type"] == "warning").collect();
    assert_eq!(w.len(), 1, "{evs:?}");
    assert_eq!(w[0]["code"], "COMPACTION_FAILED");
    assert_eq!(
        w[0]["message"],
        "automatic compaction did not happen: compaction blocked by a PreCompact hook: nope"
    );
    assert!(!types(&evs).contains(&"compacted".to_string()));
    assert_eq!(evs.last().unwrap()["response"], "three");
    // Bad thresholds are refused with the field named.
    let e = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","auto_compact_threshold":2}).to_string(),
    )
    .unwrap_err();
    assert_eq!(e.status, ROBOTA_E_INVALID_CONFIG);
    assert!(
        e.message.contains("auto_compact_threshold"),
        "{}",
        e.message
    );
    robota_session_free(s);
    robota_runtime_free(rt);
}

fn persisted(rt: *mut robota::ffi::robota_runtime, id: &str, cwd: &Path, extra: Value) {
    let mut cfg = json!({"v":1,"provider":"s","model":"m","cwd":cwd,"delivery":"pull",
                         "persist":true,"session_id":id});
    for (k, v) in extra.as_object().unwrap() {
        cfg[k] = v.clone();
    }
    let s = ffi::session_new(rt, &cfg.to_string()).unwrap();
    turn(s, &format!("hello {id}"));
    robota_session_free(s);
}

#[test]
fn store_lists_deletes_and_resumes_by_id_across_runtimes() {
    let store = tempfile::tempdir().unwrap();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let rt_cfg =
        json!({"v":1,"providers":{"s":{"kind":"scripted"}},"session_dir":store.path()}).to_string();
    let rt = ffi::runtime(&rt_cfg);
    assert_eq!(
        ffi::store_list(rt, None).unwrap(),
        json!({"v":1,"sessions":[],"skipped":[]})
    );
    let hooks = json!({"Stop":[{"matcher":"","hooks":[{"type":"command","command":"true"}]}]});
    persisted(
        rt,
        "s-one",
        a.path(),
        json!({"name":"first","hooks":hooks,
        "permission_mode":"plan","permissions":{"allow":["Read(*)"],"deny":["Bash(*)"]}}),
    );
    std::thread::sleep(std::time::Duration::from_millis(5)); // distinct updated_at (ms)
    persisted(rt, "s-two", b.path(), json!({}));
    std::fs::write(store.path().join("broken.json"), "{\"v\":1,").unwrap();
    let full = std::fs::read_to_string(store.path().join("s-one.json")).unwrap();
    std::fs::write(store.path().join("cut.json"), &full[..full.len() - 40]).unwrap();
    robota_runtime_free(rt);

    // A new runtime (a host restart) sees them.
    let rt = ffi::runtime(&rt_cfg);
    let list = ffi::store_list(rt, None).unwrap();
    let ids: Vec<&str> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["s-two", "s-one"]);
    let one = &list["sessions"][1];
    assert_eq!(one["name"], "first");
    assert_eq!(one["message_count"], 1);
    assert_eq!(
        one["cwd"],
        a.path().canonicalize().unwrap().to_str().unwrap()
    );
    let keys: Vec<&String> = one.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        vec![
            "id",
            "name",
            "cwd",
            "created_at",
            "updated_at",
            "message_count"
        ]
    );
    let skipped: Vec<&str> = list["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["file"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, vec!["broken.json", "cut.json"]);
    let filtered = ffi::store_list(
        rt,
        Some(&json!({"cwd": a.path().canonicalize().unwrap()}).to_string()),
    )
    .unwrap();
    assert_eq!(filtered["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(filtered["sessions"][0]["id"], "s-one");
    let limited = ffi::store_list(rt, Some(r#"{"limit":1}"#)).unwrap();
    assert_eq!(limited["sessions"][0]["id"], "s-two");
    assert_eq!(limited["sessions"].as_array().unwrap().len(), 1);
    let e = ffi::store_list(rt, Some(r#"{"limit":"x"}"#)).unwrap_err();
    assert_eq!(e.status, ROBOTA_E_INVALID_CONFIG);
    assert!(e.message.contains("\"limit\""), "{}", e.message);

    // Resume by id: history, hooks, permissions and mode kept; persist continues.
    let s = ffi::session_resume(rt, r#"{"v":1,"session_id":"s-one","delivery":"pull"}"#).unwrap();
    let mut st = std::ptr::null_mut();
    assert_eq!(
        robota_session_state(s, &mut st, std::ptr::null_mut()),
        ROBOTA_OK
    );
    // SAFETY: owned NUL-terminated string from the library.
    let state: Value =
        serde_json::from_str(&unsafe { std::ffi::CStr::from_ptr(st) }.to_string_lossy()).unwrap();
    robota_string_free(st);
    assert_eq!(state["permission_mode"], "plan", "{state}");
    let saved = ffi::save(s);
    assert_eq!(saved["config"]["hooks"], hooks);
    assert_eq!(saved["config"]["permissions"]["deny"], json!(["Bash(*)"]));
    assert_eq!(saved["messages"][0]["content"], "hello s-one");
    assert_eq!(saved["messages"][1]["content"], "offline:hello s-one");
    turn(s, "again");
    // rename persists at once (reference setName).
    let out = ffi::command(s, r#"{"name":"rename","args":"renamed one"}"#).unwrap();
    assert_eq!(out["message"], "Session renamed to \"renamed one\".");
    let listed = ffi::store_list(rt, Some(r#"{"limit":1}"#)).unwrap();
    assert_eq!(listed["sessions"][0]["name"], "renamed one");
    robota_session_free(s);
    let list = ffi::store_list(rt, None).unwrap();
    assert_eq!(list["sessions"][0]["id"], "s-one");
    assert_eq!(list["sessions"][0]["message_count"], 2);

    // Delete: unknown id is NOT_FOUND, a bad id INVALID_CONFIG, a known one is gone.
    let e = ffi::store_delete(rt, "nope").unwrap_err();
    assert_eq!(e.status, ROBOTA_E_NOT_FOUND);
    assert!(e.message.contains("\"nope\""), "{}", e.message);
    assert_eq!(
        ffi::store_delete(rt, "../x").unwrap_err().status,
        ROBOTA_E_INVALID_CONFIG
    );
    ffi::store_delete(rt, "s-two").unwrap();
    assert!(!store.path().join("s-two.json").exists());
    let ids: Vec<Value> = ffi::store_list(rt, None).unwrap()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].clone())
        .collect();
    assert_eq!(ids, vec![json!("s-one")]);
    let e = ffi::session_resume(rt, r#"{"v":1,"session_id":"s-two"}"#).unwrap_err();
    assert_eq!(e.status, ROBOTA_E_NOT_FOUND);
    let e = ffi::session_resume(rt, r#"{"v":1,"session_id":"cut"}"#).unwrap_err();
    assert_eq!(e.status, ROBOTA_E_INVALID_JSON);
    assert!(e.message.contains("saved session"), "{}", e.message);
    assert_eq!(
        ffi::store_list(std::ptr::null_mut(), None)
            .unwrap_err()
            .status,
        ROBOTA_E_NULL_ARG
    );
    robota_runtime_free(rt);
}

#[test]
fn listing_many_files_in_parallel_keeps_order_filters_and_names_bad_files() {
    use robota_engine::session::store::list::list;
    let dir = tempfile::tempdir().unwrap();
    for i in 0..700u32 {
        let doc = json!({"v":1,"kind":"robota.session","session_id":format!("s{i:04}"),
            "name": null, "cwd": if i % 2 == 0 {"/even"} else {"/odd"},
            "created_at":"2026-01-01T00:00:00.000Z",
            "updated_at": format!("2026-01-01T00:{:02}:{:02}.000Z", i / 60, i % 60),
            "message_count": i, "config": {}, "messages": []});
        std::fs::write(
            dir.path().join(format!("s{i:04}.json")),
            serde_json::to_string_pretty(&doc).unwrap(),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("zz.json"), "not json").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
    let all = list(dir.path(), None, None).unwrap();
    assert_eq!(all.sessions.len(), 700);
    assert_eq!(all.sessions[0].id, "s0699");
    assert_eq!(all.sessions[699].id, "s0000");
    assert_eq!(all.sessions[0].message_count, 699);
    assert!(all
        .sessions
        .windows(2)
        .all(|w| w[0].updated_at >= w[1].updated_at));
    assert_eq!(all.skipped.len(), 1);
    assert_eq!(all.skipped[0].file, "zz.json");
    assert!(
        all.skipped[0].error.starts_with("not a session file"),
        "{:?}",
        all.skipped
    );
    let odd = list(dir.path(), Some("/odd"), Some(3)).unwrap();
    let ids: Vec<&str> = odd.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, vec!["s0699", "s0697", "s0695"]);
    assert!(list(&dir.path().join("missing"), None, None)
        .unwrap()
        .sessions
        .is_empty());
}
