//! Through the C ABI: the default sandbox keeps a model's commands inside the workspace — the
//! escape tests. Writes outside it (a `/tmp` sibling, `$HOME`), a TCP connection to a local
//! listener, a fork bomb and a read of a denied path all fail;
//! what is allowed still works; Write/Edit/Read obey the same roots; the permission request
//! shows the mode; a bad `sandbox` or `tool_env` is refused with its name. (What children
//! inherit and the fallbacks without Landlock are in `tests/c/test_contained.c`: they need a
//! process of their own.)

use robota::ffi::{robota_runtime_free, robota_session_free, ROBOTA_E_INVALID_CONFIG};
use serde_json::{json, Value};

use crate::support_ffi::{events_until, respond, runtime, session_new, submit};

/// A scripted model that makes `calls` (`[name, arguments]`) in one round, then answers.
fn script(calls: &[(&str, Value)]) -> String {
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| json!({"id": format!("c{i}"), "name": name, "arguments": args}))
        .collect();
    json!({"v": 1, "providers": {"s": {"kind": "scripted",
        "turns": [{"tool_calls": calls}, {"text": "done"}]}}})
    .to_string()
}

/// One turn in `cwd` with `session` merged into a bypass-permissions pull session; the
/// tool_end events' `output`s in call order (the calls of a batch may end in any order).
fn turn(cwd: &std::path::Path, calls: &[(&str, Value)], session: Value) -> Vec<String> {
    let rt = runtime(&script(calls));
    let mut doc = json!({"v": 1, "provider": "s", "model": "m", "delivery": "pull",
        "permission_mode": "bypassPermissions", "cwd": cwd.to_str().unwrap()});
    if let (Value::Object(d), Value::Object(extra)) = (&mut doc, session) {
        d.extend(extra);
    }
    let s = session_new(rt, &doc.to_string()).unwrap();
    submit(s, "go");
    let mut ended: Vec<(String, String)> = events_until(s, "turn_completed")
        .into_iter()
        .filter(|e| e["type"] == "tool_end")
        .map(|e| {
            let id = e["tool_call_id"].as_str().unwrap().to_string();
            (id, e["output"].as_str().unwrap().to_string())
        })
        .collect();
    ended.sort_by_key(|(id, _)| id[1..].parse::<usize>().unwrap());
    let outputs = ended.into_iter().map(|(_, output)| output).collect();
    robota_session_free(s);
    robota_runtime_free(rt);
    outputs
}

fn bash(command: &str) -> (&'static str, Value) {
    ("Bash", json!({"command": command}))
}

fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let parent = tempfile::tempdir().unwrap();
    let ws = parent.path().canonicalize().unwrap().join("ws");
    std::fs::create_dir(&ws).unwrap();
    (parent, ws)
}

#[test]
fn writes_outside_the_workspace_fail_and_inside_succeed() {
    let (parent, ws) = workspace();
    let home = std::env::var("HOME").unwrap();
    let escape = format!("{home}/robota-escape-{}", std::process::id());
    let out = turn(
        &ws,
        &[bash(&format!(
            "echo in > inside.txt && echo ok-inside; echo t > \"$TMPDIR/t\" && echo ok-tmp; \
             echo s > ../sibling.txt || echo no-sibling; echo h > {escape} || echo no-home"
        ))],
        json!({}),
    );
    for expected in [
        "ok-inside",
        "ok-tmp",
        "no-sibling",
        "no-home",
        "Permission denied",
    ] {
        assert!(out[0].contains(expected), "{expected}: {}", out[0]);
    }
    assert_eq!(
        std::fs::read_to_string(ws.join("inside.txt")).unwrap(),
        "in\n"
    );
    assert!(!parent.path().join("sibling.txt").exists());
    assert!(!std::path::Path::new(&escape).exists());
    // `"mode": "off"`: the same command writes the sibling.
    turn(
        &ws,
        &[bash("echo s > ../sibling.txt")],
        json!({"sandbox": {"mode": "off"}}),
    );
    assert!(parent.path().join("sibling.txt").exists());
}

#[test]
fn a_local_listener_is_out_of_reach_unless_the_network_is_allowed() {
    let (_parent, ws) = workspace();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 5); print(\"connected\")' 2>&1 | tail -1"
    );
    let out = turn(&ws, &[bash(&connect)], json!({}));
    assert!(out[0].contains("PermissionError"), "{}", out[0]);
    let out = turn(
        &ws,
        &[bash(&connect)],
        json!({"sandbox": {"network": true}}),
    );
    assert!(out[0].contains("connected"), "{}", out[0]);
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_ok(), "the allowed connection arrived");
    assert!(listener.accept().is_err(), "the refused one never did");
}

#[test]
fn a_fork_bomb_ends_with_a_clear_tool_error() {
    let (_parent, ws) = workspace();
    let out = turn(
        &ws,
        &[bash("bomb() { bomb | bomb & }; bomb; wait")],
        json!({"sandbox": {"limits": {"processes": 64}}}),
    );
    assert!(
        out[0].contains(
            "Command stopped: it tried to run more than 64 processes at once (the sandbox's limits.processes); everything it started was killed"
        ),
        "{}",
        out[0]
    );
    // The next command of the session runs normally.
    let out = turn(
        &ws,
        &[bash("echo fine")],
        json!({"sandbox": {"limits": {"processes": 64}}}),
    );
    assert!(out[0].contains("fine"), "{}", out[0]);
}

#[test]
fn denied_paths_cannot_be_read_by_commands_or_the_file_tools() {
    let (_parent, ws) = workspace();
    std::fs::create_dir(ws.join("private")).unwrap();
    std::fs::write(ws.join("private/key"), "the-private-key").unwrap();
    std::fs::write(ws.join("open.txt"), "open-text").unwrap();
    let out = turn(
        &ws,
        &[
            bash("cat private/key; cat open.txt"),
            ("Read", json!({"filePath": "private/key"})),
            ("Read", json!({"filePath": "open.txt"})),
            (
                "Grep",
                json!({"pattern": "-(private-key|text)", "outputMode": "content"}),
            ),
            ("Glob", json!({"pattern": "**/*"})),
        ],
        json!({"sandbox": {"deny_read": ["private"]}}),
    );
    assert!(out[0].contains("open-text"), "{}", out[0]);
    assert!(!out[0].contains("the-private-key"), "{}", out[0]);
    let denied = format!("The sandbox denies reading {}/private/key", ws.display());
    assert!(out[1].contains(&denied), "{}", out[1]);
    assert!(out[2].contains("open-text"), "{}", out[2]);
    // A search above the denied path skips it.
    assert!(
        out[3].contains("open.txt") && !out[3].contains("private"),
        "{}",
        out[3]
    );
    assert!(
        out[4].contains("open.txt") && !out[4].contains("private"),
        "{}",
        out[4]
    );
}

#[test]
fn write_and_edit_obey_the_writable_set() {
    let (parent, ws) = workspace();
    let extra = parent.path().canonicalize().unwrap().join("extra");
    std::fs::create_dir(&extra).unwrap();
    std::fs::write(parent.path().join("outside.txt"), "old").unwrap();
    let out = turn(
        &ws,
        &[
            ("Write", json!({"filePath": "inside.txt", "content": "in"})),
            (
                "Write",
                json!({"filePath": "../outside.txt", "content": "new"}),
            ),
            (
                "Edit",
                json!({"filePath": "../outside.txt", "oldString": "old", "newString": "new"}),
            ),
            (
                "Write",
                json!({"filePath": extra.join("ok.txt"), "content": "listed"}),
            ),
        ],
        json!({"sandbox": {"writable": [extra]}}),
    );
    assert!(out[0].contains("\"success\":true"), "{}", out[0]);
    let refused = format!(
        "The sandbox (workspace-write) does not allow writing {}/outside.txt",
        parent.path().canonicalize().unwrap().display()
    );
    assert!(out[1].contains(&refused), "{}", out[1]);
    assert!(out[2].contains(&refused), "{}", out[2]);
    assert!(out[3].contains("\"success\":true"), "{}", out[3]);
    assert_eq!(
        std::fs::read_to_string(parent.path().join("outside.txt")).unwrap(),
        "old"
    );
    assert_eq!(
        std::fs::read_to_string(extra.join("ok.txt")).unwrap(),
        "listed"
    );
    // read-only: nothing in the workspace either, from Bash or Write.
    let out = turn(
        &ws,
        &[
            bash("echo x > ro.txt || echo no-write"),
            ("Write", json!({"filePath": "ro2.txt", "content": "x"})),
        ],
        json!({"sandbox": {"mode": "read-only"}}),
    );
    assert!(out[0].contains("no-write"), "{}", out[0]);
    assert!(
        out[1].contains("The sandbox (read-only) does not allow writing"),
        "{}",
        out[1]
    );
    assert!(!ws.join("ro.txt").exists() && !ws.join("ro2.txt").exists());
}

#[test]
fn the_permission_request_of_a_bash_call_shows_the_sandbox_mode() {
    let (_parent, ws) = workspace();
    for (session, mode) in [
        (json!({}), "workspace-write"),
        (json!({"sandbox": {"mode": "read-only"}}), "read-only"),
        (json!({"sandbox": {"mode": "off"}}), "off"),
    ] {
        let rt = runtime(&script(&[bash("true")]));
        let mut doc = json!({"v": 1, "provider": "s", "model": "m", "delivery": "pull",
            "cwd": ws.to_str().unwrap(), "tools": ["Bash"]});
        if let (Value::Object(d), Value::Object(extra)) = (&mut doc, session) {
            d.extend(extra);
        }
        let s = session_new(rt, &doc.to_string()).unwrap();
        submit(s, "go");
        let events = events_until(s, "permission_request");
        let request = events.last().unwrap();
        assert_eq!(request["sandbox"], mode, "{request}");
        respond(
            rt,
            request["request_id"].as_u64().unwrap(),
            r#"{"decision":"deny"}"#,
        );
        events_until(s, "turn_completed");
        robota_session_free(s);
        robota_runtime_free(rt);
    }
}

#[test]
fn a_bad_sandbox_or_tool_env_is_refused_with_its_name() {
    let rt = runtime(&script(&[]));
    for (doc, message) in [
        (
            json!({"sandbox": {"mode": "open"}}),
            "session config: field \"sandbox\": unknown variant `open`",
        ),
        (
            json!({"sandbox": {"limits": {"cpu": 1}}}),
            "session config: field \"sandbox\": unknown field `cpu`",
        ),
        (
            json!({"sandbox": {"writable": [""]}}),
            "session config: field \"sandbox\": field \"writable\": a path is empty",
        ),
        (
            json!({"tool_env": {"inherit": "some"}}),
            "session config: field \"tool_env\": unknown variant `some`",
        ),
        (
            json!({"tool_env": {"set": {"A=B": "1"}}}),
            "session config: field \"tool_env\": field \"set\": \"A=B\" is not a variable name",
        ),
    ] {
        let mut d = json!({"v": 1, "provider": "s", "model": "m"});
        if let (Value::Object(m), Value::Object(extra)) = (&mut d, doc) {
            m.extend(extra);
        }
        let f = session_new(rt, &d.to_string()).unwrap_err();
        assert_eq!(f.status, ROBOTA_E_INVALID_CONFIG, "{message}");
        assert!(f.message.starts_with(message), "{} / {message}", f.message);
    }
    robota_runtime_free(rt);
}
