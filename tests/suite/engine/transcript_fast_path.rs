//! The transcript's fast path for events that are already JSON text
//! (`Transcript::record_json_text`, which copies the members without parsing them when it can
//! prove the line the same) writes byte for byte the lines of the exact path
//! (`Transcript::record` of the parsed map): messages with tool calls, secrets in `arguments`
//! text and at any depth, line keys among the fields, unicode and escapes, floats, text that
//! `serde_json` would not write, values over 32 KiB (payload files), and random documents.

use std::path::Path;

use robota_engine::sdk::events::json::JsonDoc;
use robota_engine::sdk::events::{MESSAGE, TOOL_START};
use robota_engine::session::transcript::Transcript;
use serde_json::{json, Map, Value};

/// The lines without their timestamps (the rest must be identical).
fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let at = l.find("\",\"sessionId\"").unwrap();
            l[at..].to_string()
        })
        .collect()
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

/// Writes every `(turn, text)` both ways and compares the transcripts and payload files.
fn same_both_ways(docs: &[(u64, Vec<u8>)]) {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let exact = Transcript::open(a.path(), "s1").unwrap();
    let fast = Transcript::open(b.path(), "s1").unwrap();
    for (turn, text) in docs {
        let map = match serde_json::from_slice(text) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        exact.record("message", *turn, &map).unwrap();
        fast.record_json_text("message", *turn, text).unwrap();
    }
    exact.sync().unwrap();
    fast.sync().unwrap();
    let (la, lb) = (lines(exact.path()), lines(fast.path()));
    assert_eq!(la.len(), docs.len());
    for (i, (x, y)) in la.iter().zip(&lb).enumerate() {
        assert_eq!(
            x,
            y,
            "line {i} from {:?}",
            String::from_utf8_lossy(&docs[i].1)
        );
    }
    assert_eq!(
        files(&a.path().join("s1.payloads")),
        files(&b.path().join("s1.payloads"))
    );
}

fn doc(v: Value) -> Vec<u8> {
    serde_json::to_vec(&v).unwrap()
}

#[test]
fn hand_picked_documents_give_the_same_lines() {
    let big = "x".repeat(40_000);
    let tool_call = json!({"id": "c1", "type": "function",
        "function": {"name": "Read", "arguments": "{\"path\":\"src/main.rs\",\"limit\":10}"}});
    let mut docs = vec![
        doc(
            json!({"v": 1, "type": "message", "id": "m1", "role": "assistant",
            "content": "héllo ✓ 🎉 \"quoted\" \\ back\n\t\u{1}\u{8}\u{c}\u{1f}\u{7f}\u{2028}",
            "tool_calls": [tool_call], "state": "complete",
            "timestamp": "2026-11-27T10:00:00.000Z"}),
        ),
        doc(
            json!({"v": 1, "type": "tool_start", "tool_call_id": "c1", "tool_name": "Bash",
            "first_arg": "ls", "arguments": {"command": "ls", "api_key": "sk-1"}}),
        ),
        doc(
            json!({"v": 1, "type": "message", "tool_calls": [{"function":
            {"name": "Login", "arguments": "{\"user\":\"a\",\"Password\":\"hunter2\"}"}}]}),
        ),
        doc(json!({"m": {"arguments": "{\"\\u0061pi_key\":\"sk\"}"}})),
        doc(json!({"m": {"arguments": "{\"a\":\"a monkey\"}"}})),
        doc(
            json!({"m": {"arguments": "  {\"nested\":{\"x-api-key\":\"k\",\"arguments\":\"{\\\"secret\\\":1}\"}}"}}),
        ),
        doc(json!({"m": {"arguments": "not json with a token"}})),
        doc(json!({"m": {"arguments": "{\"path\":\"C:\\\\dir\"}"}})),
        doc(json!({"arguments": "{\"api_key\":\"top-level arguments text\"}"})),
        doc(json!({"arguments": "{\"path\":\"x\"}"})),
        doc(json!({"a": {"b": [{"c": {"refresh-token": "r"}}]}, "ok": true})),
        doc(json!({"authorization": "Bearer x", "Secret": {"deep": [1, 2]}, "n": null})),
        doc(json!({"authorization": big, "x_api_key": 1})),
        doc(
            json!({"v": 1, "type": "x", "timestamp": "t", "sessionId": "other", "event": "e",
            "turn_id": 7, "payload_x": 1, "": "empty key", "ke\"y": "quoted key",
            "line\nkey": 2}),
        ),
        doc(json!({"turn_id": 3, "input": {"text": "go", "display_input": "/go"}})),
        doc(
            json!({"used_tokens": 1234, "max_tokens": 200000, "used_percentage": 0.62,
            "remaining_percentage": 99.38, "f": [12.34, 0.1, 1e300, 5e-324,
            1.7976931348623157e308, -0.0, 100.0, 33.33, 0.30000000000000004,
            123456789.12345679, 1e21, 1e-7, 2.5e-5],
            "i": [0, -1, u64::MAX, i64::MIN, 999_999_999_999_999_999u64,
            1_000_000_000_000_000_000u64, -999_999_999_999_999_999i64]}),
        ),
        doc(json!({"output": big, "tool_name": "Read", "result": "success"})),
        doc(json!({"content": {"text": big}, "extra": {"items": vec!["y"; 40]}})),
        doc(json!({"small": "x".repeat(32 * 1024 - 2), "edge": "x".repeat(32 * 1024 - 1)})),
        doc(json!({})),
        doc(json!({"v": 1, "type": "turn_completed"})),
        doc(json!({"e": {}, "a": [], "aa": [[], {}, [{}]], "s": ""})),
    ];
    // Text serde_json does not write: whitespace, other escapes, a key twice, numbers out of
    // range or written differently, not an object, nesting beyond the parser's limit.
    for raw in [
        r#"{ "a" : 1 }"#,
        r#"{"a":"\/"}"#,
        r#"{"a":"\u0041"}"#,
        r#"{"a":"\u001F"}"#,
        r#"{"a":"\u000a"}"#,
        r#"{"a":1,"a":2,"b":3}"#,
        r#"{"a":{"k":1,"k":2}}"#,
        r#"{"v":1,"type":"x","type":"y","z":1}"#,
        r#"{"turn_id":1,"turn_id":2}"#,
        r#"{"a":1e400}"#,
        r#"{"a":1E5,"b":1.50,"c":-0,"d":007,"e":12345678901234567890123}"#,
        r#"{"a":0.1e1,"b":-0.0}"#,
        r#"[1,2]"#,
        r#""text""#,
        r#"{"a":1}x"#,
        r#"{"a":1"#,
        r#"{"a":tru}"#,
        "",
    ] {
        docs.push(raw.as_bytes().to_vec());
    }
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
    docs.push(deep.into_bytes());
    let deep_ok = format!("{{\"a\":{}1{}}}", "[".repeat(99), "]".repeat(99));
    docs.push(deep_ok.into_bytes());
    let docs: Vec<(u64, Vec<u8>)> = docs
        .into_iter()
        .flat_map(|d| [(0, d.clone()), (3, d)])
        .collect();
    same_both_ways(&docs);
}

#[test]
fn event_documents_give_the_same_lines() {
    let call = json!({"command": "echo", "token": "t"});
    let docs = vec![
        (
            1,
            JsonDoc::new(MESSAGE, &json!({"role": "user", "content": "go"})),
        ),
        (
            1,
            JsonDoc::new(TOOL_START, &json!({"tool_call_id": "c", "arguments": call})),
        ),
        (2, JsonDoc::new(MESSAGE, &json!(["not", "an", "object"]))),
        (
            2,
            JsonDoc::new(MESSAGE, &json!({"turn_id": 2, "type": "shadow"})),
        ),
    ];
    let docs: Vec<(u64, Vec<u8>)> = docs
        .into_iter()
        .map(|(t, d)| (t, d.as_bytes().to_vec()))
        .collect();
    same_both_ways(&docs);
}

/// A random JSON value: keys from a pool with secret, line and `arguments` keys, strings with
/// escapes and unicode, floats from random bits.
fn random_value(rng: &mut fastrand::Rng, depth: usize) -> Value {
    const KEYS: [&str; 16] = [
        "a",
        "text",
        "api_key",
        "API-KEY",
        "arguments",
        "timestamp",
        "event",
        "turn_id",
        "v",
        "type",
        "tokens",
        "accessToken",
        "access_token",
        "x_api_key",
        "ké",
        "monkey",
    ];
    const CHARS: [char; 14] = [
        'a', 'k', 'e', 'y', ' ', '"', '\\', '\n', '\u{1}', '\u{1f}', 'é', '✓', '🎉', '{',
    ];
    let string = |rng: &mut fastrand::Rng| -> String {
        (0..rng.usize(0..12))
            .map(|_| CHARS[rng.usize(0..CHARS.len())])
            .collect()
    };
    match rng.usize(0..if depth > 3 { 6 } else { 9 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.bool()),
        2 => json!(rng.i64(..)),
        3 => json!(rng.u64(..) >> rng.u32(0..64)),
        4 => {
            // Any bits, or the short decimals events carry (percentages, costs).
            let f = match rng.usize(0..3) {
                0 => f64::from_bits(rng.u64(..)),
                1 => rng.i64(-100_000..100_000) as f64 / 100.0,
                _ => rng.u64(..1 << 50) as f64 / 10f64.powi(rng.i32(0..20)),
            };
            serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
        }
        5 => {
            if rng.usize(0..4) == 0 {
                let inner = random_value(rng, depth + 2);
                Value::String(format!(" {inner}"))
            } else {
                Value::String(string(rng))
            }
        }
        6 => Value::Array(
            (0..rng.usize(0..4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let mut m = Map::new();
            for _ in 0..rng.usize(0..5) {
                let k = KEYS[rng.usize(0..KEYS.len())].to_string();
                m.insert(k, random_value(rng, depth + 1));
            }
            Value::Object(m)
        }
    }
}

#[test]
fn random_documents_give_the_same_lines() {
    let mut rng = fastrand::Rng::with_seed(27);
    let docs: Vec<(u64, Vec<u8>)> = (0..3000)
        .map(|i| {
            let mut m = Map::new();
            for _ in 0..rng.usize(0..6) {
                let v = random_value(&mut rng, 0);
                let k =
                    ["arguments", "content", "turn_id", "password", "event", "x"][rng.usize(0..6)];
                m.insert(k.to_string(), v);
            }
            (i % 3, doc(Value::Object(m)))
        })
        .collect();
    same_both_ways(&docs);
}
