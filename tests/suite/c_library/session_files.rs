//! Session files: a save killed with SIGKILL at any moment leaves the old or the new file
//! (never a torn one), and a `session_id` is validated wherever it becomes a path (create,
//! resume by id or snapshot, fork, save).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use robota::ffi::*;
use robota_engine::sdk::error::ErrorCode;
use robota_engine::sdk::persistence::snapshot::write_snapshot;
use robota_engine::session::store::SESSION_ID_RULE;
use serde_json::{json, Value};

use crate::support_ffi::{self as ffi, Failure};

/// Set in the child process the SIGKILL test starts: the session directory to save into.
const CHILD_ENV: &str = "ROBOTA_TEST_SAVE_LOOP_DIR";
/// The id of the session the child keeps growing.
const GROWING: &str = "grow-1";
/// Progress line prefix of the child (`@saved N`).
const PROGRESS: &str = "@saved ";
/// Children killed by the SIGKILL test.
const KILLS: u64 = 24;

fn runtime_with_dir(dir: &Path) -> *mut robota::ffi::robota_runtime {
    ffi::runtime(
        &json!({"v":1,"providers":{"s":{"kind":"scripted"}},"session_dir": dir}).to_string(),
    )
}

/// Waits for `turn` after draining its events (pull delivery).
fn run_turn(s: *mut robota::ffi::robota_session, text: &str) {
    let turn = ffi::submit(s, text);
    ffi::events_until(s, "turn_completed");
    assert_eq!(
        robota_session_wait(s, turn, 30_000, std::ptr::null_mut()),
        ROBOTA_OK
    );
}

/// Not a test by itself: the body of the child process that
/// [`saves_survive_sigkill_at_any_moment`] starts (this test binary, run with only this test
/// and [`CHILD_ENV`] set). It resumes (or creates) the persisted session and adds turns
/// forever, printing `@saved N` after each save. Without [`CHILD_ENV`] it returns at once.
#[test]
fn save_loop_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let dir = Path::new(&dir);
    let rt = runtime_with_dir(dir);
    let opts = r#""persist":true,"delivery":"pull""#;
    let s = if dir.join(format!("{GROWING}.json")).exists() {
        ffi::session_resume(rt, &format!(r#"{{"v":1,"session_id":"{GROWING}",{opts}}}"#))
    } else {
        ffi::session_new(
            rt,
            &format!(r#"{{"v":1,"provider":"s","model":"m","session_id":"{GROWING}",{opts}}}"#),
        )
    }
    .unwrap();
    let filler = "x".repeat(20_000);
    let mut out = std::io::stdout();
    for n in 1u64.. {
        run_turn(s, &format!("turn {n} {filler}"));
        // On its own line: libtest's "test … " prefix may precede the first one.
        writeln!(out, "\n{PROGRESS}{n}").unwrap();
        out.flush().unwrap();
    }
}

/// Every `*.json` file in `dir` parses as a snapshot and resumes; returns the growing
/// session's message count.
fn check_every_file_resumes(dir: &Path, round: u64) -> u64 {
    let rt = runtime_with_dir(dir);
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue; // temp files of killed saves (`.<name>.<pid>.<n>.tmp`)
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!(
                "round {round}: {} is torn ({} bytes): {e}",
                path.display(),
                text.len()
            )
        });
        assert_eq!(doc["kind"], "robota.session");
        let id = doc["session_id"].as_str().unwrap();
        let s = ffi::session_resume(
            rt,
            &json!({"v":1,"session_id": id,"delivery":"pull"}).to_string(),
        )
        .unwrap();
        assert_eq!(ffi::save(s)["messages"], doc["messages"]);
        if id == GROWING {
            count = doc["message_count"].as_u64().unwrap();
        }
        robota_session_free(s);
    }
    robota_runtime_free(rt);
    count
}

/// What identifies the saved file's current version.
fn fingerprint(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

fn names_in(dir: &Path) -> BTreeSet<std::ffi::OsString> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect()
}

/// Returns as soon as the directory shows a save in progress: a new file (a temp file) or a
/// change of the session file (a plain write would be truncating it now).
fn wait_until_a_save_starts(dir: &Path, round: u64) {
    let target = dir.join(format!("{GROWING}.json"));
    let names = names_in(dir);
    let base = fingerprint(&target);
    let deadline = Instant::now() + Duration::from_secs(30);
    while fingerprint(&target) == base && names_in(dir) == names {
        assert!(Instant::now() < deadline, "round {round}: no save started");
    }
}

/// Kills the child when the test fails half-way (no orphan keeps saving).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn saves_survive_sigkill_at_any_moment() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut last_count = 0;
    for round in 0..KILLS {
        let mut child = KillOnDrop(
            Command::new(&exe)
                .args([
                    "suite::session_files::save_loop_child",
                    "--exact",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, dir.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        // Synchronise on the child's progress: it has saved `wanted` times in this run.
        let wanted = 1 + round % 3;
        let mut lines = BufReader::new(child.0.stdout.take().unwrap()).lines();
        loop {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("round {round}: the child exited before saving"))
                .unwrap();
            if line == format!("{PROGRESS}{wanted}") {
                break;
            }
        }
        if round % 2 == 0 {
            // Let it run into its next turn for a varying moment (0 to ~3 ms).
            let spin_until = Instant::now() + Duration::from_micros((round * 613) % 3_000);
            while Instant::now() < spin_until {
                std::hint::spin_loop();
            }
        } else {
            // Or catch its next save in the act.
            wait_until_a_save_starts(dir.path(), round);
        }
        child.0.kill().unwrap(); // SIGKILL
        child.0.wait().unwrap();
        let count = check_every_file_resumes(dir.path(), round);
        assert!(
            count >= last_count + wanted,
            "round {round}: the saved session went from {last_count} to {count} turns"
        );
        last_count = count;
    }
    assert!(last_count >= KILLS, "{last_count}");
}

fn rejected(r: Result<*mut robota::ffi::robota_session, Failure>, id: &str) {
    let f = r.err().unwrap_or_else(|| panic!("{id:?} was accepted"));
    assert_eq!(f.status, ROBOTA_E_INVALID_CONFIG, "{id:?}: {}", f.message);
    assert!(f.message.contains(SESSION_ID_RULE), "{}", f.message);
    let shown: String = id.chars().take(64).collect();
    assert!(
        f.message.contains(&format!("invalid session_id {shown:?}")),
        "{}",
        f.message
    );
}

#[test]
fn bad_session_ids_are_rejected_wherever_they_become_a_path() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("sessions");
    let rt = runtime_with_dir(&dir);
    let s = ffi::session_new(
        rt,
        r#"{"v":1,"provider":"s","model":"m","session_id":"good","delivery":"pull"}"#,
    )
    .unwrap();
    run_turn(s, "hello");
    let snapshot = ffi::save(s);
    // A readable snapshot just outside the session directory: "../x" must not reach it.
    std::fs::write(root.path().join("x.json"), snapshot.to_string()).unwrap();
    let abs = root.path().join("abs");
    let long = "a".repeat(129);
    for id in [
        "../x",
        abs.to_str().unwrap(),
        ".hidden",
        "a/b",
        "",
        long.as_str(),
    ] {
        let with_id = json!({"v":1,"provider":"s","model":"m","session_id": id});
        rejected(ffi::session_new(rt, &with_id.to_string()), id);
        rejected(
            ffi::session_resume(rt, &json!({"v":1,"session_id": id}).to_string()),
            id,
        );
        let mut doc = snapshot.clone();
        doc["session_id"] = json!(id);
        rejected(
            ffi::session_resume(rt, &json!({"v":1,"snapshot": doc}).to_string()),
            id,
        );
        rejected(
            ffi::session_fork(s, &json!({"session_id": id}).to_string()),
            id,
        );
        let e = write_snapshot(dir.to_str().unwrap(), id, &snapshot).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidConfig, "{}", e.message);
        assert!(e.message.contains(SESSION_ID_RULE), "{}", e.message);
    }
    robota_session_free(s);
    robota_runtime_free(rt);
    assert_eq!(
        files_under(root.path()),
        [root.path().join("x.json")],
        "nothing was written for a bad id"
    );
}

/// Every file below `dir` (recursively), sorted.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn a_128_character_id_works_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime_with_dir(dir.path());
    let id = format!("Ab9_.-{}", "z".repeat(122));
    assert_eq!(id.len(), 128);
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","session_id": id,"persist":true,
                "delivery":"pull"})
        .to_string(),
    )
    .unwrap();
    run_turn(s, "hello");
    let file = dir.path().join(format!("{id}.json"));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["session_id"], id.as_str());
    assert_eq!(saved["message_count"], 1);
    let resumed = ffi::session_resume(
        rt,
        &json!({"v":1,"session_id": id,"delivery":"pull"}).to_string(),
    )
    .unwrap();
    assert_eq!(ffi::save(resumed)["messages"], saved["messages"]);
    let other = format!("{}-2", &id[..126]);
    let fork = ffi::session_fork(s, &json!({"session_id": other}).to_string()).unwrap();
    assert_eq!(ffi::save(fork)["session_id"], other.as_str());
    write_snapshot(dir.path().to_str().unwrap(), &other, &saved).unwrap();
    assert!(dir.path().join(format!("{other}.json")).exists());
    for h in [s, resumed, fork] {
        robota_session_free(h);
    }
    robota_runtime_free(rt);
}

/// A persisted session's file is written before its `TURN_COMPLETED` is handed over: a host
/// (or a binding's `run`) that resumes by id as soon as it sees the event finds the turn saved.
#[test]
fn persisted_turn_is_on_disk_when_turn_completed_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime_with_dir(dir.path());
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","session_id":"on-disk","persist":true,
                "delivery":"pull"})
        .to_string(),
    )
    .unwrap();
    for (n, text) in ["first", "second"].into_iter().enumerate() {
        ffi::submit(s, text);
        ffi::events_until(s, "turn_completed");
        // No wait: the event alone must mean the file holds this turn.
        let saved: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("on-disk.json")).unwrap(),
        )
        .unwrap();
        let users: Vec<&str> = saved["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user")
            .map(|m| m["content"].as_str().unwrap())
            .collect();
        assert_eq!(users.len(), n + 1, "{saved}");
        assert_eq!(users[n], text);
    }
    robota_session_free(s);
    robota_runtime_free(rt);
}
