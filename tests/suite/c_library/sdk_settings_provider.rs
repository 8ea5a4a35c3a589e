//! The settings' provider profile and `autoCompactThreshold` applied to a session whose JSON
//! does not give its own (`providers[currentProvider]`, else the legacy `provider` block).

use std::path::Path;

use robota::ffi::{robota_runtime_free, robota_session_free};
use serde_json::json;

use crate::support::fake_server::{FakeServer, Reply, Turn};
use crate::support_ffi::{events_until, runtime, save, session_new, submit};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn runtime_json(root: &Path, server: &FakeServer) -> String {
    json!({"v":1,"providers":{"rt": server.provider_config("openai")},
           "env":{"ROBOTA_HOME": root.join("rhome"), "HOME": root.join("home"),
                  "SETTINGS_KEY": "sk-from-env"}})
    .to_string()
}

fn project(root: &Path, server: &FakeServer) -> std::path::PathBuf {
    let proj = root.join("proj");
    write(
        &root.join("rhome/settings.json"),
        &json!({"autoCompactThreshold": 0.5, "currentProvider": "mine",
                "providers": {"mine": {"type": "openai", "model": "user-model"}}})
        .to_string(),
    );
    write(
        &proj.join(".robota/settings.json"),
        &json!({"providers": {"mine": {"type": "anthropic", "model": "settings-model",
                "apiKey": "$ENV:SETTINGS_KEY", "baseURL": server.base_url_for("anthropic"),
                "timeout": 30000}}})
        .to_string(),
    );
    proj
}

#[test]
fn a_session_without_provider_uses_the_settings_profile_with_env_key() {
    let root = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    let proj = project(root.path(), &server);
    server.enqueue(Reply::anthropic(&Turn::text(["ok"])));
    let rt = runtime(&runtime_json(root.path(), &server));
    let s = session_new(
        rt,
        &json!({"v":1,"settings":"project","cwd":proj,"tools":[],"delivery":"pull"}).to_string(),
    )
    .unwrap();
    submit(s, "hi");
    let evs = events_until(s, "turn_completed");
    assert_eq!(evs.last().unwrap()["response"], "ok", "{evs:?}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(
        reqs[0].path, "/v1/messages",
        "the profile's type is anthropic"
    );
    assert_eq!(reqs[0].header("x-api-key"), Some("sk-from-env"));
    assert_eq!(reqs[0].body["model"], "settings-model");
    let saved = save(s);
    assert_eq!(saved["config"]["auto_compact_threshold"], 0.5);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn session_json_provider_and_threshold_win_over_settings() {
    let root = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    let proj = project(root.path(), &server);
    server.enqueue(Reply::openai(&Turn::text(["ok"])));
    let rt = runtime(&runtime_json(root.path(), &server));
    let s = session_new(
        rt,
        &json!({"v":1,"provider":"rt","settings":"project","cwd":proj,"tools":[],
                "auto_compact_threshold": 0.9,"delivery":"pull"})
        .to_string(),
    )
    .unwrap();
    submit(s, "hi");
    events_until(s, "turn_completed");
    let reqs = server.requests();
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(reqs[0].header("authorization"), Some("Bearer test-key"));
    assert_eq!(reqs[0].body["model"], "settings-model");
    assert_eq!(save(s)["config"]["auto_compact_threshold"], 0.9);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#[test]
fn no_provider_anywhere_is_a_config_error_naming_the_field() {
    let root = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    let rt = runtime(&runtime_json(root.path(), &server));
    let e = session_new(
        rt,
        &json!({"v":1,"model":"m","settings":"project","cwd":root.path(),"tools":[]}).to_string(),
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "session config: missing required field \"provider\" (and no settings file gives a provider profile)"
    );
    robota_runtime_free(rt);
}
