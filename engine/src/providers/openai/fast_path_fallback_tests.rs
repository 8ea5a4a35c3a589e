//! Tests of what [`super::fast_path`] leaves to serde: chunks that are not JSON, that serde
//! rejects or that only serde reads never take the fast path, and the decoder reports serde's
//! error for a bad chunk and the same events as before for good ones.

use serde_json::json;

use super::fast_path::fast_chunk;
use super::fast_path_tests::full;
use super::OpenAiDecoder;
use crate::core::provider::StreamSink;
use crate::providers::config::{HttpProviderConfig, ProviderKind};
use crate::providers::errors::malformed;
use crate::providers::http::StreamDecoder;
use crate::providers::sse::SseEvent;

#[test]
fn other_shapes_are_left_to_serde() {
    for data in [
        // Not JSON.
        r#"{"choices":[{"index":0,"delta":{"content":"x"}}]"#,
        r#"{"choices":[{"index":0,"delta":{"content":"x"}}]}}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"x"}}]} x"#,
        r#"{"choices":[{"index":0,"delta":{"content":"x",}}]}"#,
        r#"{"choices":[{"index":00,"delta":{"content":"x"}}]}"#,
        r#"{"created":01,"choices":[]}"#,
        r#"{"created":1.,"choices":[]}"#,
        r#"{"created":-,"choices":[]}"#,
        r#"{"created":tru,"choices":[]}"#,
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\nb\"}}]}",
        r#"{"choices":[{"index":0,"delta":{"content":"\x"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"\ud800"}}]}"#,
        r#"{"id":"\q","choices":[]}"#,
        // Valid JSON that serde rejects.
        r#"{"choices":[],"choices":[]}"#,
        r#"{"usage":null,"usage":null}"#,
        r#"{"error":null,"error":null}"#,
        r#"{"choices":[{"index":0,"index":0}]}"#,
        r#"{"choices":[{"delta":{"content":"a","content":"b"}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","id":"b"}]}}]}"#,
        r#"{"choices":[{"index":-1}]}"#,
        r#"{"choices":[{"index":4294967296}]}"#,
        r#"{"choices":[{"index":0.0}]}"#,
        r#"{"choices":[{"delta":{"content":5}}]}"#,
        r#"{"choices":[{"finish_reason":true}]}"#,
        r#"{"choices":[null]}"#,
        r#"{"choices":{}}"#,
        r#"{"usage":{"prompt_tokens":null}}"#,
        r#"{"usage":{"prompt_tokens":1e3}}"#,
        // Valid, but for serde to read.
        r#"{"error":{"message":"overloaded"}}"#,
        r#"{"choic\u0065s":[]}"#,
        r#"[{"choices":[]}]"#,
        r#"{"x":[[[[[[[[[[[1]]]]]]]]]]]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":99999999999999999999}}"#,
    ] {
        assert!(
            fast_chunk(data, &mut String::new()).is_none(),
            "took the fast path: {data}"
        );
    }
    // Still read (and rejected, or not) by serde exactly as before.
    assert!(full(r#"{"choic\u0065s":[]}"#).is_ok());
    assert!(full(r#"{"choices":[],"choices":[]}"#).is_err());
}

struct Sink(Vec<String>);
impl StreamSink for Sink {
    fn on_text(&mut self, d: &str) {
        self.0.push(format!("text {d}"));
    }
    fn on_thinking(&mut self, d: &str) {
        self.0.push(format!("thinking {d}"));
    }
}

#[test]
fn bad_chunks_report_serdes_error_and_good_ones_their_events() {
    let cfg = HttpProviderConfig::parse("o", ProviderKind::OpenAi, &json!({})).unwrap();
    let mut decoder = OpenAiDecoder::new(cfg.clone());
    let mut sink = Sink(Vec::new());
    let feed = |d: &mut OpenAiDecoder, sink: &mut Sink, data: &str| {
        d.event(
            SseEvent {
                event: "",
                data,
                id: "",
            },
            sink,
        )
        .map_err(|e| e.to_string())
    };
    for bad in [
        r#"{"choices":[{"index":0,"delta":{"content":"x"}}]"#,
        r#"{"choices":[{"index":0,"delta":{"content":"\ud800"}}]}"#,
        r#"{"choices":[],"choices":[]}"#,
        r#"{"choices":[{"delta":{"content":5}}]}"#,
    ] {
        let e = full(bad).unwrap_err();
        let want = malformed(&cfg, &format!("bad JSON in a chunk: {e}")).to_string();
        assert_eq!(feed(&mut decoder, &mut sink, bad), Err(want));
    }
    assert!(sink.0.is_empty());
    for good in [
        r#"{"id":"c","choices":[{"index":0,"delta":{"reasoning":"hm"},"logprobs":null,"finish_reason":null}]}"#,
        r#"{"id":"c","choices":[{"index":0,"delta":{"content":"a\"b"},"logprobs":null,"finish_reason":null}]}"#,
        r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"add","arguments":""}}]},"logprobs":null,"finish_reason":null}]}"#,
        r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]},"logprobs":null,"finish_reason":null}]}"#,
        r#"{"id":"c","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}"#,
        r#"{"id":"c","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9,"prompt_tokens_details":{"cached_tokens":3}}}"#,
    ] {
        assert!(fast_chunk(good, &mut String::new()).is_some(), "{good}");
        feed(&mut decoder, &mut sink, good).unwrap();
    }
    assert_eq!(sink.0, ["thinking hm", "text a\"b"]);
    let r = decoder.acc.into_response(false);
    assert_eq!(r.content, "a\"b");
    assert_eq!(r.stop_reason, crate::core::provider::StopReason::ToolUse);
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].id, "call_1");
    assert_eq!(r.tool_calls[0].function.name, "add");
    assert_eq!(r.tool_calls[0].function.arguments, r#"{"a":1}"#);
    let u = r.usage.unwrap();
    // The 7 prompt tokens: 3 read from the cache, 4 not.
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.total_tokens,
            u.cache_read_tokens
        ),
        (4, 2, Some(9), 3)
    );
}
