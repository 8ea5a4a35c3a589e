//! Unit tests of [`super::AnthropicDecoder`]: fast and full text paths agree, interleaved text
//! blocks keep their own text in the kept vendor blocks.

use serde_json::json;

use super::AnthropicDecoder;
use crate::core::provider::StreamSink;
use crate::providers::config::{HttpProviderConfig, ProviderKind};
use crate::providers::http::StreamDecoder;
use crate::providers::sse::SseEvent;

struct S(String);
impl StreamSink for S {
    fn on_text(&mut self, d: &str) {
        self.0.push_str(d);
    }
}

fn cfg() -> HttpProviderConfig {
    HttpProviderConfig::parse("a", ProviderKind::Anthropic, &json!({})).unwrap()
}

fn feed(d: &mut AnthropicDecoder, sink: &mut S, event: &str, data: &str) -> Result<(), String> {
    d.event(
        SseEvent {
            event,
            data,
            id: "",
        },
        sink,
    )
    .map_err(|e| e.to_string())
}

#[test]
fn fast_and_full_paths_agree() {
    for text in ["plain", r#"esc\n\"q\""#, r"\u00e9t\u00e9", ""] {
        let mut d = AnthropicDecoder::new(cfg(), "m");
        let mut sink = S(String::new());
        let start =
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#;
        feed(&mut d, &mut sink, "content_block_start", start).unwrap();
        for data in [
            format!(
                r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{text}"}}}}"#
            ),
            format!(
                r#"{{"delta":{{"text":"{text}","type":"text_delta"}},"index":0,"type":"content_block_delta"}}"#
            ),
        ] {
            feed(&mut d, &mut sink, "content_block_delta", &data).unwrap();
        }
        let want: String = serde_json::from_str(&format!("\"{text}\"")).unwrap();
        assert_eq!(sink.0, format!("{want}{want}"));
        assert_eq!(d.acc.content, sink.0);
    }
}

#[test]
fn interleaved_text_blocks_keep_their_own_text() {
    let mut d = AnthropicDecoder::new(cfg(), "m");
    let mut sink = S(String::new());
    let start = |i: usize, t: &str| {
        format!(r#"{{"type":"content_block_start","index":{i},"content_block":{t}}}"#)
    };
    let text = |i: usize, t: &str| {
        format!(
            r#"{{"type":"content_block_delta","index":{i},"delta":{{"type":"text_delta","text":"{t}"}}}}"#
        )
    };
    let f = |d: &mut AnthropicDecoder, s: &mut S, e: &str, x: String| feed(d, s, e, &x).unwrap();
    f(
        &mut d,
        &mut sink,
        "content_block_start",
        start(0, r#"{"type":"text","text":"A"}"#),
    );
    f(
        &mut d,
        &mut sink,
        "content_block_start",
        start(
            1,
            r#"{"type":"web_search_tool_result","tool_use_id":"s","content":[]}"#,
        ),
    );
    f(
        &mut d,
        &mut sink,
        "content_block_start",
        start(2, r#"{"type":"text","text":""}"#),
    );
    f(&mut d, &mut sink, "content_block_delta", text(2, "b"));
    f(&mut d, &mut sink, "content_block_delta", text(0, "a"));
    f(&mut d, &mut sink, "content_block_delta", text(2, "c"));
    assert_eq!(sink.0, "Abac");
    let n = d.into_response(false).native.unwrap();
    assert_eq!(
        n.blocks,
        vec![
            json!({"type":"text","text":"Aa"}),
            json!({"type":"web_search_tool_result","tool_use_id":"s","content":[]}),
            json!({"type":"text","text":"bc"}),
        ]
    );
}

/// `content_block_start` read in the plain shape (no `Map` of the block) gives what the full
/// reading gives: the same block with an extra field (which only the full reading accepts,
/// and ignores for text, tool-use and thinking blocks; server and unknown blocks keep it, so
/// they are not compared here) must decode to the same response and errors.
#[test]
fn plain_and_full_block_starts_agree() {
    let blocks = [
        r#"{"type":"text","text":""}"#,
        r#"{"type":"text","text":"Hi \"you\" \u00e9"}"#,
        r#"{"type":"text","text":null}"#,
        r#"{"type":"text"}"#,
        r#"{"type":"text","text":"a","text":"b"}"#,
        r#"{"type":"text","citations":[]}"#,
        r#"{"type":"text","text":5}"#,
        r#"{"type":"tool_use","id":"toolu_1","name":"add","input":{}}"#,
        r#"{"type":"tool_use","id":"toolu_1","name":"add","input":{"a":1,"b":[2]}}"#,
        r#"{"type":"tool_use","id":"toolu_1","name":"add","input":null}"#,
        r#"{"type":"tool_use","id":"toolu_1","name":"add","input":[]}"#,
        r#"{"type":"tool_use","name":"add"}"#,
        r#"{"type":"tool_use","id":null,"name":7,"input":{}}"#,
        r#"{"type":"thinking","thinking":"hm","signature":"s"}"#,
    ];
    let run = |block: &str, index: usize| {
        let mut d = AnthropicDecoder::new(cfg(), "m");
        let mut sink = S(String::new());
        let mut out = Vec::new();
        let start = |i: usize, b: &str| {
            format!(r#"{{"type":"content_block_start","index":{i},"content_block":{b}}}"#)
        };
        out.push(feed(
            &mut d,
            &mut sink,
            "content_block_start",
            &start(index, block),
        ));
        let delta = r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":3}"}}"#;
        out.push(feed(&mut d, &mut sink, "content_block_delta", delta));
        let text =
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#;
        out.push(feed(&mut d, &mut sink, "content_block_delta", text));
        let stop = r#"{"type":"content_block_stop","index":0}"#;
        out.push(feed(&mut d, &mut sink, "content_block_stop", stop));
        format!("{out:?} {:?} {:?}", sink.0, d.into_response(false))
    };
    for block in blocks {
        let full = block.replacen('{', r#"{"zz_extra":1,"#, 1);
        for index in [0, 1] {
            assert_eq!(run(block, index), run(&full, index), "{block} at {index}");
        }
    }
}

/// The compact `input_json_delta` and `content_block_stop` (fast paths) decode as the same
/// events with their fields reordered (full reading): same arguments, same errors for text,
/// closed and unknown blocks.
#[test]
fn fast_and_full_input_and_stop_agree() {
    let run = |fast: bool| {
        let mut d = AnthropicDecoder::new(cfg(), "m");
        let mut sink = S(String::new());
        let delta = |i: usize, part: &str| {
            if fast {
                format!(
                    r#"{{"type":"content_block_delta","index":{i},"delta":{{"type":"input_json_delta","partial_json":"{part}"}}}}"#
                )
            } else {
                format!(
                    r#"{{"delta":{{"partial_json":"{part}","type":"input_json_delta"}},"index":{i},"type":"content_block_delta"}}"#
                )
            }
        };
        let stop = |i: usize| {
            if fast {
                format!(r#"{{"type":"content_block_stop","index":{i}}}"#)
            } else {
                format!(r#"{{"index":{i},"type":"content_block_stop"}}"#)
            }
        };
        let starts = [
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"t"}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"c1","name":"add","input":{}}}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"server_tool_use","id":"s1","name":"web_search","input":{}}}"#,
        ];
        let mut out = Vec::new();
        for s in starts {
            out.push(feed(&mut d, &mut sink, "content_block_start", s));
        }
        for (event, data) in [
            ("content_block_delta", delta(1, "")),
            ("content_block_delta", delta(1, r#"{\"a\""#)),
            ("content_block_delta", delta(1, r":1}")),
            ("content_block_delta", delta(2, r#"{\"query\":\"x\"}"#)),
            ("content_block_delta", delta(0, "x")),
            ("content_block_delta", delta(7, "x")),
            ("content_block_stop", stop(1)),
            ("content_block_delta", delta(1, "x")),
            ("content_block_stop", stop(1)),
            ("content_block_stop", stop(2)),
            ("content_block_stop", stop(0)),
            ("content_block_stop", stop(9)),
        ] {
            out.push(feed(&mut d, &mut sink, event, &data));
        }
        format!("{out:?} {:?} {:?}", sink.0, d.into_response(false))
    };
    let fast = run(true);
    assert_eq!(fast, run(false));
    assert!(fast.contains(r#"arguments: "{\"a\":1}""#), "{fast}");
    assert!(fast.contains("which is a text block"), "{fast}");
    assert!(fast.contains("which already stopped"), "{fast}");
    assert!(fast.contains("which never started"), "{fast}");
}
