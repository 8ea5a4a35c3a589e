//! Session snapshots and resume documents (`robota_session_resume`'s `resume_json`, a saved
//! session file's text), and transcript entries checked by the transcript validator.
//! `data[0]` picks: a resume document, a bare snapshot (as read from `session_dir`), or
//! transcript lines (JSONL).
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::sdk::runtime::Runtime;
use robota_engine::sdk::persistence::snapshot::parse_resume;
use robota_engine::session::transcript::check::validate;
use std::sync::OnceLock;

fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("robota-fuzz-{}", std::process::id()));
        let cfg = serde_json::json!({
            "providers": {"s": {"kind": "scripted"}},
            "session_dir": dir.join("sessions"),
            "worker_threads": 1,
        });
        match Runtime::from_json(&cfg.to_string()) {
            Ok(rt) => rt,
            Err(e) => panic!("fuzz runtime: {e}"),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    match sel % 3 {
        0 => drop(parse_resume(runtime().shared(), text)),
        1 => {
            let doc = format!("{{\"v\":1,\"snapshot\":{}}}", serde_json::json!(text));
            drop(parse_resume(runtime().shared(), &doc));
        }
        _ => {
            let entries: Vec<serde_json::Value> = text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            drop(validate(&entries));
        }
    }
});
