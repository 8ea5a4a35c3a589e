//! Tests of [`super::fast_path`]: the fast reading of a chunk equals serde's over every
//! recorded vendor stream, generated chunks and mutations of them; other shapes and invalid
//! JSON are left to serde (tested in `fast_path_fallback_tests`).

use serde_json::{json, Value};

use super::fast_path::fast_chunk;
use super::wire::Chunk;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/vendor-streams/"
);

/// serde's reading of `data` (its error as text).
pub(super) fn full(data: &str) -> Result<Chunk<'_>, String> {
    serde_json::from_str(data).map_err(|e| e.to_string())
}

/// Whether `data` took the fast path (with no earlier chunk); when it did, the reading must
/// be serde's.
fn agrees(data: &str) -> bool {
    agrees_after(data, &mut String::new())
}

/// The same after the chunks that left `prefix`.
fn agrees_after(data: &str, prefix: &mut String) -> bool {
    match fast_chunk(data, prefix) {
        Some(fast) => {
            assert_eq!(
                Ok(&fast),
                full(data).as_ref(),
                "fast reading differs: {data}"
            );
            true
        }
        None => false,
    }
}

/// Every `data:` payload of every recorded stream of `vendor`.
fn recorded(vendor: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(format!("{DIR}{vendor}"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            if let Some(data) = line.strip_prefix("data:") {
                let data = data.strip_prefix(' ').unwrap_or(data).trim_end();
                if data != "[DONE]" {
                    out.push(data.to_string());
                }
            }
        }
    }
    out
}

/// Chunks of every shape the fast path is for, with the values that need care.
fn generated() -> Vec<Value> {
    let chunk = |choices: Value| {
        json!({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,
               "model":"gpt-x","system_fingerprint":"fp_1","choices":choices})
    };
    let texts = [
        "",
        "plain",
        "a\nb",
        "q\"uote\\",
        "é ü 日本 🎉",
        "tab\tcr\r",
        "\u{1}",
        "</script>",
    ];
    let mut out = Vec::new();
    for t in texts {
        for field in ["content", "refusal", "reasoning_content", "reasoning"] {
            out.push(chunk(
                json!([{"index":0,"delta":{field:t},"logprobs":null,"finish_reason":null}]),
            ));
        }
        out.push(chunk(json!([{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":t}}]},"logprobs":null,"finish_reason":null}])));
        out.push(chunk(json!([{"index":0,"delta":{"tool_calls":[{"index":2,"id":format!("call_{t}"),"type":"function","function":{"name":t,"arguments":""}}]},"logprobs":null,"finish_reason":null}])));
    }
    for reason in [
        "stop",
        "tool_calls",
        "length",
        "function_call",
        "content_filter",
    ] {
        out.push(chunk(
            json!([{"index":0,"delta":{},"logprobs":null,"finish_reason":reason}]),
        ));
    }
    let mut usage = chunk(json!([]));
    usage["usage"] = json!({"prompt_tokens":12,"completion_tokens":3,"total_tokens":15,
        "prompt_tokens_details":{"cached_tokens":4,"audio_tokens":0},
        "completion_tokens_details":{"reasoning_tokens":0,"accepted_prediction_tokens":0}});
    out.push(usage);
    out.push(json!({"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}));
    out.push(json!({"choices":null,"usage":null,"error":null}));
    // Fields the structs ignore, of every JSON type.
    let mut extra = chunk(
        json!([{"index":0,"delta":{"role":"assistant","content":"x","refusal":null,"audio":{"a":[1,-2.5e3,true,false,null]}},
        "logprobs":{"content":[{"token":"x","logprob":-0.25,"bytes":[120],"top_logprobs":[]}]},"finish_reason":null}]),
    );
    extra["service_tier"] = json!("default");
    extra["obfuscation"] = json!("a\"b");
    extra["usage"] = Value::Null;
    out.push(extra);
    // Several choices: the one with index 0 counts, wherever it is.
    out.push(chunk(json!([
        {"index":1,"delta":{"content":"one"},"finish_reason":null},
        {"index":0,"delta":{"content":"zero"},"finish_reason":null},
        {"index":0,"delta":{"content":"again"},"finish_reason":null}
    ])));
    out.push(chunk(json!([{"index":3,"delta":{"content":"three"}}])));
    // Servers that omit `index` or send nulls.
    out.push(chunk(json!([{"delta":{"content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":null}}]}}])));
    out.push(chunk(
        json!([{"index":0,"delta":null,"finish_reason":null}]),
    ));
    out.push(chunk(json!([{"index":0,"delta":{"tool_calls":null}}])));
    out.push(chunk(
        json!([{"index":0,"delta":{"tool_calls":[{"index":null,"id":null,"function":null}]}}]),
    ));
    out.push(chunk(json!([{"index":0,"delta":{"tool_calls":[]}}])));
    out
}

#[test]
fn fast_and_full_readings_agree_over_recorded_and_generated_chunks() {
    // Every OpenAI recording takes the fast path; the other vendors' chunks agree when
    // read as OpenAI chunks too.
    let openai = recorded("openai");
    assert!(openai.len() > 100, "{}", openai.len());
    let mut prefix = String::new();
    for data in &openai {
        assert!(agrees(data), "not on the fast path: {data}");
        assert!(
            agrees_after(data, &mut prefix),
            "not on the fast path: {data}"
        );
    }
    for vendor in ["anthropic", "gemini"] {
        for data in recorded(vendor) {
            agrees(&data);
        }
    }
    for v in generated() {
        let compact = v.to_string();
        assert!(agrees(&compact), "not on the fast path: {compact}");
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        assert!(agrees(&pretty), "not on the fast path: {pretty}");
        // Escapes serde_json does not write itself.
        let escaped = compact.replace('é', "\\u00e9").replace('/', "\\/");
        assert!(agrees(&escaped), "not on the fast path: {escaped}");
    }
}

#[test]
fn mutated_chunks_never_read_differently() {
    // Each recorded OpenAI chunk cut at every place, and with a byte inserted or replaced at
    // every place: whatever the fast path accepts, serde reads to the same value.
    let mut fast = 0;
    let mut total = 0;
    // The first three and last two chunks of each recording (every shape they hold).
    let mut inputs: Vec<String> = Vec::new();
    for name in [
        "length_max_tokens",
        "plain_text_usage",
        "refusal",
        "tool_call_single",
        "tool_calls_parallel",
    ] {
        let text = std::fs::read_to_string(format!("{DIR}openai/{name}.txt")).unwrap();
        let chunks: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter(|d| *d != "[DONE]")
            .collect();
        inputs.extend(chunks.iter().take(3).map(|s| s.to_string()));
        inputs.extend(
            chunks
                .iter()
                .skip(chunks.len().saturating_sub(2))
                .map(|s| s.to_string()),
        );
    }
    inputs.extend(generated().iter().map(Value::to_string));
    for data in &inputs {
        // After the unchanged chunk, as in a stream, when the mutation keeps its prefix.
        let mut prefix = String::new();
        assert!(agrees_after(data, &mut prefix), "{data}");
        for i in (0..=data.len()).filter(|&i| data.is_char_boundary(i)) {
            let mut cases = vec![data[..i].to_string()];
            for b in ["\"", "\\", "0", ",", ":", "}", " ", "\u{1}"] {
                cases.push(format!("{}{b}{}", &data[..i], &data[i..]));
                if i < data.len() && data.is_char_boundary(i + 1) {
                    cases.push(format!("{}{b}{}", &data[..i], &data[i + 1..]));
                }
            }
            for case in cases {
                total += 1;
                fast += usize::from(agrees(&case));
                assert_eq!(
                    agrees_after(&case, &mut prefix.clone()),
                    agrees(&case),
                    "{case}"
                );
            }
        }
    }
    // Most mutations are invalid JSON or change a known field's type; some remain valid.
    assert!(fast > 1000 && fast < total, "{fast} of {total}");
}

#[test]
fn strings_with_a_special_byte_anywhere_agree() {
    // Quotes, backslashes and control bytes at every place of strings of 0–40 bytes (the
    // string scan reads eight bytes at a time), beside multi-byte characters.
    for len in 0..40 {
        for at in 0..len {
            for special in [
                "\\\"", "\\\\", "\\n", "\\u00e9", "\u{1}", "\"", "\\", "\\x", "é",
            ] {
                let text: String = (0..len)
                    .map(|i| {
                        if i == at {
                            special.to_string()
                        } else {
                            ((b'a' + (i % 26) as u8) as char).to_string()
                        }
                    })
                    .collect();
                let data = format!(
                    r#"{{"id":"c","choices":[{{"index":0,"delta":{{"content":"{text}"}}}}]}}"#
                );
                let valid = full(&data).is_ok();
                assert_eq!(agrees(&data), valid, "{data}");
                // The text chunk's own reading, after a chunk with the same leading members.
                let compact = format!(
                    r#"{{"id":"c","choices":[{{"index":0,"delta":{{"content":"{text}"}},"logprobs":null,"finish_reason":null}}]}}"#
                );
                let mut prefix = r#"{"id":"c","#.to_string();
                assert_eq!(
                    agrees_after(&compact, &mut prefix),
                    full(&compact).is_ok(),
                    "{compact}"
                );
            }
        }
    }
}

#[test]
fn a_repeated_prefix_is_read_once_and_a_changed_one_again() {
    let mut prefix = String::new();
    let a = r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"}}]}"#;
    assert!(agrees_after(a, &mut prefix));
    assert_eq!(prefix, r#"{"id":"c1","object":"chat.completion.chunk","#);
    // The same leading members: resumed after them.
    assert!(agrees_after(&a.replace('x', "y"), &mut prefix));
    assert_eq!(prefix, r#"{"id":"c1","object":"chat.completion.chunk","#);
    // Other leading members are read (and checked) again, and kept instead.
    let b =
        r#"{"id":"c2","created":1,"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}"#;
    assert!(agrees_after(b, &mut prefix));
    assert_eq!(prefix, r#"{"id":"c2","created":1,"#);
    for bad in [
        r#"{"id":"c2","created":1,"choices":[],"choices":[]}"#,
        r#"{"id":"c2","created":1,"choices":[{"index":0,"delta":{"content":"\ud800"}}]}"#,
        r#"{"id":"c2","created":1,"#,
        r#"{"id":"c2","created":1,}"#,
        r#"{"id":"c2","created":1,"choices":[]}}"#,
    ] {
        assert!(!agrees_after(bad, &mut prefix.clone()), "{bad}");
        assert!(full(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_exact_hot_shapes_after_a_prefix_agree() {
    // Text, tool-argument and finish chunks as OpenAI sends them (read by comparisons), and
    // near misses: every valid one is read as serde reads it, every invalid one left to serde.
    let tail = r#","logprobs":null,"finish_reason":null}]}"#;
    let choices = r#""choices":[{"index":0,"delta":{"#;
    for rest in [
        format!(r#"{choices}"content":"a\"b\u00e9"}}{tail}"#),
        format!(r#"{choices}"content":""}}{tail}"#),
        format!(r#"{choices}"content":"a"b"}}{tail}"#),
        format!(r#"{choices}"content":"a"}} {tail}"#),
        format!(r#"{choices}"content":null}}{tail}"#),
        format!(
            r#"{choices}"tool_calls":[{{"index":12,"function":{{"arguments":"{{\"a\":1"}}}}]}}{tail}"#
        ),
        format!(r#"{choices}"tool_calls":[{{"index":0,"function":{{"arguments":""}}}}]}}{tail}"#),
        format!(r#"{choices}"tool_calls":[{{"index":01,"function":{{"arguments":"x"}}}}]}}{tail}"#),
        format!(
            r#"{choices}"tool_calls":[{{"index":1,"function":{{"name":"f","arguments":"x"}}}}]}}{tail}"#
        ),
        format!(
            r#"{choices}"tool_calls":[{{"index":1,"function":{{"arguments":"x","x":1}}}}]}}{tail}"#
        ),
        format!(r#"{choices}"tool_calls":[{{"index":1,"function":{{"arguments":"x"}}}}]}}{tail}"#)
            .replace("\"x\"}}", "\"x\"\"}}"),
        format!(r#"{choices}}},"logprobs":null,"finish_reason":"stop"}}]}}"#),
        format!(r#"{choices}}},"logprobs":null,"finish_reason":"tool_calls"}}]}}"#),
        format!(r#"{choices}}},"logprobs":null,"finish_reason":null}}]}}"#),
        format!(r#"{choices}}},"logprobs":null,"finish_reason":"st"op"}}]}}"#),
        format!(r#"{choices}}},"logprobs":null,"finish_reason":"stop"}}]}}}}"#),
    ] {
        let data = format!(r#"{{"id":"c",{rest}"#);
        let mut prefix = r#"{"id":"c","#.to_string();
        assert_eq!(
            agrees_after(&data, &mut prefix),
            full(&data).is_ok(),
            "{data}"
        );
    }
}
