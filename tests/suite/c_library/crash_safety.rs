//! Crash safety: a child process (this test binary re-invoked on [`crash_child`]) runs
//! persisted sessions with transcripts through the C ABI — new and resumed sessions, turns
//! with a tool call, a save after every turn, transcript lines for every event — and is
//! killed with SIGKILL at random points, in a loop. After every kill each session file still
//! parses and resumes, the store lists them all with nothing skipped, each transcript loads,
//! and no temp file of a save is left behind once the store saved or listed again.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support_ffi as ffi;

/// Where the child works (set only on the child's command line environment).
const CHILD_DIR: &str = "ROBOTA_CRASH_CHILD_DIR";
const SESSIONS: usize = 6;
const KILLS: usize = 30;

fn runtime_config(dir: &Path) -> String {
    let mut turns = Vec::new();
    for _ in 0..200 {
        turns.push(json!({"deltas":["Read","ing ","the ","note."],"delay_ms":1,
            "tool_calls":[{"name":"Read","arguments":{"filePath": dir.join("note.txt")}}]}));
        turns.push(json!({"deltas":["It ","says ","hi."],"delay_ms":1}));
    }
    json!({"v":1,"providers":{"s":{"kind":"scripted","turns":turns}},
           "session_dir": dir.join("sessions")})
    .to_string()
}

fn session_config(dir: &Path, id: &str) -> String {
    json!({"v":1,"provider":"s","model":"m","cwd":dir,"delivery":"pull","persist":true,
           "permission_mode":"bypassPermissions","session_id":id,
           "transcript": dir.join("logs")})
    .to_string()
}

/// The child's work: forever, open (or resume) a random session, run 1–3 turns, free it.
/// Prints one line per finished turn. Runs only when the parent started it.
#[test]
#[ignore = "the child process of crash_safety_sigkill_loop"]
fn crash_child() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return;
    };
    let dir = Path::new(&dir);
    let rt = ffi::runtime(&runtime_config(dir));
    println!("ready");
    loop {
        let id = format!("s{}", fastrand::usize(0..SESSIONS));
        let s = if dir.join("sessions").join(format!("{id}.json")).exists() {
            ffi::session_resume(
                rt,
                &json!({"v":1,"session_id":id,"delivery":"pull"}).to_string(),
            )
        } else {
            ffi::session_new(rt, &session_config(dir, &id))
        };
        let s = s.unwrap_or_else(|e| panic!("open {id}: {e:?}"));
        for _ in 0..fastrand::u32(1..=3) {
            let turn = ffi::submit(s, "what does the note say?");
            let st = robota_session_wait(s, turn, 30_000, std::ptr::null_mut());
            assert_eq!(st, ROBOTA_OK, "turn of {id}");
            println!("turn {id}");
        }
        robota_session_free(s);
    }
}

/// Temp files of interrupted saves in the session directory.
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("sessions"))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

/// Everything on disk is usable: returns (sessions, transcripts) checked.
fn check_disk(dir: &Path, round: usize) -> (usize, usize) {
    let rt = ffi::runtime(&runtime_config(dir));
    let mut ids = Vec::new();
    for entry in std::fs::read_dir(dir.join("sessions"))
        .into_iter()
        .flatten()
    {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_suffix(".json") else {
            continue;
        };
        let text = std::fs::read_to_string(dir.join("sessions").join(&name)).unwrap();
        let v: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("round {round}: {name} does not parse: {e}"));
        assert_eq!(v["session_id"], id, "round {round}: {name}");
        ids.push(id.to_string());
    }
    ids.sort();
    // The store lists every session and skips nothing.
    let list = ffi::store_list(rt, None).unwrap();
    let mut listed: Vec<String> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    listed.sort();
    assert_eq!(listed, ids, "round {round}: store list {list}");
    assert_eq!(list["skipped"], json!([]), "round {round}");
    // Listing cleaned up what interrupted saves left.
    assert_eq!(temp_files(dir), Vec::<String>::new(), "round {round}");
    // Every session resumes (and reopens its transcript for appending).
    for id in &ids {
        let s = ffi::session_resume(
            rt,
            &json!({"v":1,"session_id":id,"delivery":"pull"}).to_string(),
        )
        .unwrap_or_else(|e| panic!("round {round}: resume {id}: {e:?}"));
        robota_session_free(s);
    }
    robota_runtime_free(rt);
    // Every transcript loads, also after the resumes above appended to it.
    let mut transcripts = 0;
    for entry in std::fs::read_dir(dir.join("logs")).into_iter().flatten() {
        let path = entry.unwrap().path();
        let lines = robota_engine::session::transcript::check::load(&path)
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        // Lines are on disk from the end of the session's first turn (written and fsync'd
        // then, off the turn's path): a kill before that leaves the created file empty.
        if lines.is_empty() {
            continue;
        }
        assert_eq!(
            lines[0]["event"],
            "session_init",
            "round {round}: {} starts with {}",
            path.display(),
            lines[0]
        );
        transcripts += 1;
    }
    (ids.len(), transcripts)
}

#[test]
fn crash_safety_sigkill_loop() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("note.txt"), "hi\n").unwrap();
    let exe = std::env::current_exe().unwrap();
    let (mut turns_seen, mut temp_seen, mut torn_seen) = (0usize, 0usize, 0usize);
    for round in 0..KILLS {
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "suite::crash_safety::crash_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        // Wait until the child is ready, then for 0–4 finished turns; then kill it, either
        // at once or after a few hundred microseconds (mid-turn, mid-save, mid-line).
        let wanted = 1 + fastrand::usize(0..5);
        let mut seen = 0;
        while seen < wanted {
            line.clear();
            let n = out.read_line(&mut line).unwrap();
            assert!(
                n > 0,
                "round {round}: the child exited on its own: {:?}",
                child.wait()
            );
            if line.starts_with("ready") || line.starts_with("turn") {
                seen += 1;
            }
        }
        turns_seen += seen - 1;
        if fastrand::bool() {
            let spin = std::time::Instant::now();
            let until = std::time::Duration::from_micros(fastrand::u64(0..3000));
            while spin.elapsed() < until {
                std::hint::spin_loop();
            }
        }
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(!status.success(), "round {round}: {status:?}");
        temp_seen += temp_files(dir).len();
        torn_seen += std::fs::read_dir(dir.join("logs"))
            .into_iter()
            .flatten()
            .filter(|e| {
                let bytes = std::fs::read(e.as_ref().unwrap().path()).unwrap_or_default();
                !bytes.is_empty() && !bytes.ends_with(b"\n")
            })
            .count();
        check_disk(dir, round);
    }
    let (sessions, transcripts) = check_disk(dir, KILLS);
    eprintln!(
        "crash safety: {KILLS} kills, {turns_seen} turns finished, {temp_seen} save temp files \
         and {torn_seen} torn transcript lines found after kills; {sessions} sessions and \
         {transcripts} transcripts intact"
    );
    assert!(sessions > 0 && transcripts > 0);
}

/// A kill between two writes of one transcript line (a line longer than the write buffer)
/// leaves a torn last line: it loads without that line, and a resumed session starts its
/// lines on a fresh line instead of gluing them to the torn one.
#[test]
fn torn_transcript_line_loads_and_resume_appends_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("note.txt"), "hi\n").unwrap();
    let rt = ffi::runtime(&runtime_config(dir));
    let s = ffi::session_new(rt, &session_config(dir, "torn")).unwrap();
    let turn = ffi::submit(s, "what does the note say?");
    assert_eq!(
        robota_session_wait(s, turn, 30_000, std::ptr::null_mut()),
        ROBOTA_OK
    );
    robota_session_free(s);
    robota_runtime_free(rt);
    let log = dir.join("logs").join("torn.jsonl");
    let whole = robota_engine::session::transcript::check::load(&log).unwrap();
    let bytes = std::fs::read(&log).unwrap();
    // Cut the last line in the middle, as a SIGKILL between two writes does.
    let last_start = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|b| *b == b'\n')
        .unwrap()
        + 1;
    let cut = last_start + (bytes.len() - last_start) / 2;
    std::fs::write(&log, &bytes[..cut]).unwrap();
    let torn = robota_engine::session::transcript::check::load(&log).unwrap();
    assert_eq!(torn, whole[..whole.len() - 1]);

    // Resume: the torn line is dropped and the new lines follow intact.
    let rt = ffi::runtime(&runtime_config(dir));
    let s = ffi::session_resume(rt, r#"{"v":1,"session_id":"torn","delivery":"pull"}"#).unwrap();
    let turn = ffi::submit(s, "again?");
    assert_eq!(
        robota_session_wait(s, turn, 30_000, std::ptr::null_mut()),
        ROBOTA_OK
    );
    robota_session_free(s);
    robota_runtime_free(rt);
    let after = robota_engine::session::transcript::check::load(&log).unwrap();
    assert_eq!(after[..torn.len()], torn[..]);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.ends_with('\n'));
    assert!(
        text.lines()
            .all(|l| serde_json::from_str::<Value>(l).is_ok()),
        "every line is whole JSON"
    );
    assert!(after[torn.len()..]
        .iter()
        .any(|l| l["event"] == "turn_completed"));
}

/// A save killed between writing its temp file and the rename leaves
/// `.<id>.json.<pid>.<n>.tmp`; the next listing removes those of processes that are
/// gone (never a live writer's), and the session itself is untouched.
#[test]
fn temp_files_of_dead_writers_are_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("note.txt"), "hi\n").unwrap();
    let rt = ffi::runtime(&runtime_config(dir));
    let s = ffi::session_new(rt, &session_config(dir, "t1")).unwrap();
    let turn = ffi::submit(s, "what does the note say?");
    assert_eq!(
        robota_session_wait(s, turn, 30_000, std::ptr::null_mut()),
        ROBOTA_OK
    );
    robota_session_free(s);
    // A child that has exited: its pid is free.
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let sessions = dir.join("sessions");
    let stale = format!(".t1.json.{dead}.0.tmp");
    let live = format!(".t1.json.{}.77.tmp", std::process::id());
    std::fs::write(sessions.join(&stale), "{\"v\":1,\"kind\":\"robota.sess").unwrap();
    std::fs::write(sessions.join(&live), "{").unwrap();
    let list = ffi::store_list(rt, None).unwrap();
    assert_eq!(list["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(list["skipped"], json!([]));
    assert_eq!(temp_files(dir), vec![live.clone()]);
    std::fs::remove_file(sessions.join(&live)).unwrap();
    robota_runtime_free(rt);
}
