//! Through the C ABI: without `session_dir`, the session store lives in `sessions` under the
//! runtime's `env` `ROBOTA_HOME` (else its `HOME`'s `.robota`), as settings resolve them:
//! persist, list, resume (a resumed `persist: true` snapshot writes there too) and delete.
//! Each case runs in a child process of this test binary whose own `HOME` is a temporary
//! directory (and `ROBOTA_HOME` unset): a store that ignored the runtime's `env` would write
//! there, never into the real `~/.robota`, and the case checks that it did not.

use std::path::{Path, PathBuf};
use std::process::Command;

use robota::ffi::*;
use serde_json::{json, Value};

use crate::support_ffi as ffi;

fn turn(s: *mut robota_session, text: &str) {
    let id = ffi::submit(s, text);
    ffi::events_until(s, "turn_completed");
    assert_eq!(
        robota_session_wait(s, id, 30_000, std::ptr::null_mut()),
        ROBOTA_OK
    );
}

/// Set in the child process that runs a case.
const CHILD: &str = "ROBOTA_TEST_STORE_HOME_CHILD";

/// Runs the ignored test `case` in a child process whose `HOME` is a fresh temporary directory.
fn in_child(case: &str) {
    let process_home = tempfile::tempdir().unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            &format!("suite::store_runtime_home::{case}"),
            "--exact",
            "--ignored",
        ])
        .env("HOME", process_home.path())
        .env_remove("ROBOTA_HOME")
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Nothing went to the process's own home.
    assert!(!process_home.path().join(".robota").exists());
}

/// Where the process's own store would put session `id` (the child's temporary `HOME`).
fn process_store_file(id: &str) -> PathBuf {
    let home = std::env::var_os("HOME").unwrap();
    PathBuf::from(home)
        .join(".robota")
        .join("sessions")
        .join(format!("{id}.json"))
}

fn ids(list: &Value) -> Vec<&str> {
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect()
}

/// Persists, lists, resumes and deletes session `id` in a runtime of `env`; `store` is where
/// its file must land.
fn store_round_trip(env: Value, store: &Path, id: &str) {
    let rt =
        ffi::runtime(&json!({"v":1,"env":env,"providers":{"s":{"kind":"scripted"}}}).to_string());
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"s","model":"m","delivery":"pull","persist":true,
                "session_id":id})
        .to_string(),
    )
    .unwrap();
    turn(s, "one");
    let snapshot = ffi::save(s);
    robota_session_free(s);
    let file = store.join(format!("{id}.json"));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["messages"][0]["content"], "one");
    assert_eq!(ids(&ffi::store_list(rt, None).unwrap()), vec![id]);

    // Resumed by id, and from a snapshot that carries `persist: true`: both write here.
    let s = ffi::session_resume(
        rt,
        &json!({"v":1,"session_id":id,"delivery":"pull"}).to_string(),
    )
    .unwrap();
    turn(s, "two");
    robota_session_free(s);
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["messages"][2]["content"], "two");
    let s = ffi::session_resume(rt, &json!({"v":1,"snapshot":snapshot}).to_string()).unwrap();
    turn(s, "three");
    robota_session_free(s);
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["messages"][2]["content"], "three");
    let own = process_store_file(id);
    assert!(!own.exists(), "{} was written", own.display());

    ffi::store_delete(rt, id).unwrap();
    assert!(!file.exists());
    assert_eq!(
        ffi::store_list(rt, None).unwrap(),
        json!({"v":1,"sessions":[],"skipped":[]})
    );
    robota_runtime_free(rt);
}

#[test]
fn the_store_lives_under_the_runtime_env_robota_home() {
    in_child("robota_home_case");
}

#[test]
fn the_store_lives_under_the_runtime_env_home() {
    in_child("home_case");
}

#[test]
#[ignore = "run by the_store_lives_under_the_runtime_env_robota_home in a child process"]
fn robota_home_case() {
    if std::env::var_os(CHILD).is_none() {
        return; // only meaningful with the child's temporary HOME
    }
    let home = tempfile::tempdir().unwrap();
    store_round_trip(
        json!({"ROBOTA_HOME": home.path()}),
        &home.path().join("sessions"),
        "robota-home",
    );
}

#[test]
#[ignore = "run by the_store_lives_under_the_runtime_env_home in a child process"]
fn home_case() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    // An empty ROBOTA_HOME counts as unset (as in settings): the runtime's HOME decides.
    store_round_trip(
        json!({"HOME": home.path(), "ROBOTA_HOME": ""}),
        &home.path().join(".robota").join("sessions"),
        "home",
    );
}
