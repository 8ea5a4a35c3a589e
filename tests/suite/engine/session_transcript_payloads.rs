//! External payloads of the JSONL transcript: a value over 32 KiB goes to
//! `<session_id>.payloads/<sha256>.json` once and the line holds a reference; children first,
//! secrets redacted before anything is written; `load` resolves references back and `validate`
//! flags incomplete ones.

use robota_engine::session::transcript::check::{load, validate};
use robota_engine::session::transcript::payloads::PAYLOAD_LIMIT_BYTES;
use robota_engine::session::transcript::Transcript;
use serde_json::{json, Map, Value};

fn sha(bytes: &[u8]) -> String {
    ring::digest::digest(&ring::digest::SHA256, bytes)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn fields(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn values_over_32_kib_go_to_payload_files_children_first() {
    assert_eq!(PAYLOAD_LIMIT_BYTES, 32768);
    let dir = tempfile::tempdir().unwrap();
    let t = Transcript::open(dir.path(), "s1").unwrap();
    let big = "x".repeat(40_000);
    let big_json = serde_json::to_vec(&Value::String(big.clone())).unwrap();
    let items: Vec<String> = (0..40)
        .map(|i| format!("{i}{}", "y".repeat(1000)))
        .collect();
    t.record("session_init", 0, &Map::new()).unwrap();
    t.record(
        "tool_end",
        1,
        &fields(json!({"output": big, "tool_name": "Read"})),
    )
    .unwrap();
    t.record(
        "message",
        1,
        &fields(json!({"content": {"text": big, "role": "tool"}, "extra": {"api_key": "sk-secret", "items": items}})),
    )
    .unwrap();
    t.sync().unwrap();
    let out = lines(t.path());
    let h = sha(&big_json);
    let reference = json!({"kind": "external-payload", "encoding": "json", "sha256": h,
                           "byteLength": big_json.len(), "relativePath": format!("s1.payloads/{h}.json")});
    assert_eq!(out[1]["output"], reference);
    assert_eq!(out[1]["tool_name"], "Read", "small fields stay inline");
    // The child went out; its parent, small afterwards, stayed inline.
    assert_eq!(
        out[2]["content"],
        json!({"text": reference, "role": "tool"})
    );
    assert_eq!(out[2]["extra"]["api_key"], "[REDACTED]");
    let items_ref = &out[2]["extra"]["items"];
    assert_eq!(items_ref["kind"], "external-payload");
    let payload_dir = dir.path().join("s1.payloads");
    let files: Vec<_> = std::fs::read_dir(&payload_dir).unwrap().collect();
    assert_eq!(files.len(), 2, "the same value is written once");
    assert_eq!(
        std::fs::read(payload_dir.join(format!("{h}.json"))).unwrap(),
        big_json
    );
    for f in files {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(!text.contains("sk-secret"));
    }
    // Read back: references resolved to the values.
    let back = load(t.path()).unwrap();
    assert_eq!(back[1]["output"], Value::String(big.clone()));
    assert_eq!(back[2]["content"]["text"], Value::String(big));
    assert_eq!(back[2]["extra"]["items"], json!(items));
}

#[test]
fn incomplete_or_altered_references_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let t = Transcript::open(dir.path(), "s2").unwrap();
    t.record("session_init", 0, &Map::new()).unwrap();
    t.record(
        "tool_end",
        1,
        &fields(json!({"output": {"kind": "external-payload", "sha256": "ab"}})),
    )
    .unwrap();
    t.sync().unwrap();
    let entries = load(t.path()).unwrap();
    let issues = validate(&entries);
    let bad: Vec<_> = issues
        .iter()
        .filter(|i| i.code == "PAYLOAD_REFERENCE_INVALID")
        .collect();
    assert_eq!(bad.len(), 1, "{issues:?}");
    assert_eq!(bad[0].line, Some(2));

    // A complete reference whose file was altered fails the load, naming the line.
    let t3 = Transcript::open(dir.path(), "s3").unwrap();
    t3.record("session_init", 0, &Map::new()).unwrap();
    t3.record(
        "tool_end",
        1,
        &fields(json!({"output": "z".repeat(40_000)})),
    )
    .unwrap();
    t3.sync().unwrap();
    let pdir = dir.path().join("s3.payloads");
    let file = std::fs::read_dir(&pdir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&file, "\"changed\"").unwrap();
    let e = load(t3.path()).unwrap_err();
    assert!(e.contains("line 2"), "{e}");
    assert!(e.contains("does not match its sha256"), "{e}");
}
