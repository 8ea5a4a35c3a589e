//! Unit tests of [`super::ResponsesDecoder`]: reasoning summaries as thinking and reasoning
//! items kept whole, parallel calls by `item_id`, stop reasons, and the error taxonomy.

use serde_json::{json, Value};

use super::ResponsesDecoder;
use crate::core::errors::RobotaError;
use crate::core::provider::{StopReason, StreamSink};
use crate::providers::config::{HttpProviderConfig, ProviderKind};
use crate::providers::http::StreamDecoder;
use crate::providers::sse::SseEvent;

#[derive(Default)]
struct S {
    text: String,
    thinking: String,
}

impl StreamSink for S {
    fn on_text(&mut self, d: &str) {
        self.text.push_str(d);
    }
    fn on_thinking(&mut self, d: &str) {
        self.thinking.push_str(d);
    }
}

fn decoder() -> ResponsesDecoder {
    let cfg = HttpProviderConfig::parse("r", ProviderKind::OpenAiResponses, &json!({})).unwrap();
    ResponsesDecoder::new(cfg, "o4-mini")
}

/// Feeds each event (as the API frames it: `event:` = its `type`).
fn feed(d: &mut ResponsesDecoder, sink: &mut S, events: &[Value]) -> Result<(), RobotaError> {
    for e in events {
        let data = e.to_string();
        d.event(
            SseEvent {
                event: e["type"].as_str().unwrap(),
                data: &data,
                id: "",
            },
            sink,
        )?;
    }
    Ok(())
}

fn completed(usage: Value) -> Value {
    json!({"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","usage":usage}})
}

#[test]
fn reasoning_summary_is_thinking_and_the_item_is_kept_whole() {
    let item = json!({"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"A"},{"type":"summary_text","text":"B"}],"encrypted_content":"gAAA=="});
    let mut d = decoder();
    let mut sink = S::default();
    feed(&mut d, &mut sink, &[
        json!({"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}),
        json!({"type":"response.reasoning_summary_part.added","item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}),
        json!({"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"A"}),
        json!({"type":"response.reasoning_summary_part.added","item_id":"rs_1","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}}),
        json!({"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":1,"delta":"B"}),
        json!({"type":"response.output_item.done","output_index":0,"item":item}),
        json!({"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi"}),
        json!({"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}),
        completed(json!({"input_tokens":30,"input_tokens_details":{"cached_tokens":12},"output_tokens":9,"output_tokens_details":{"reasoning_tokens":7},"total_tokens":39})),
    ]).unwrap();
    assert!(d.done());
    assert_eq!(sink.thinking, "A\n\nB");
    assert_eq!(sink.text, "Hi");
    let r = d.into_response(false);
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    let u = r.usage.unwrap();
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.total_tokens,
            u.cache_read_tokens
        ),
        (18, 9, Some(39), 12)
    );
    let native = r.native.unwrap();
    assert_eq!(native.format, "openai-responses");
    assert_eq!(native.blocks, vec![item, json!({"type":"message"})]);
}

#[test]
fn parallel_calls_are_assembled_by_item_id() {
    let mut d = decoder();
    let mut sink = S::default();
    let call = |fc: &str, call: &str, name: &str| json!({"id":fc,"type":"function_call","status":"in_progress","arguments":"","call_id":call,"name":name});
    let args = |fc: &str, delta: &str| json!({"type":"response.function_call_arguments.delta","item_id":fc,"output_index":0,"delta":delta});
    feed(&mut d, &mut sink, &[
        json!({"type":"response.output_item.added","output_index":0,"item":call("fc_a","call_a","Read")}),
        json!({"type":"response.output_item.added","output_index":1,"item":call("fc_b","call_b","Glob")}),
        args("fc_a", "{\"path\":"),
        args("fc_b", "{\"pattern\":\"*.rs\"}"),
        args("fc_a", "\"a.txt\"}"),
        json!({"type":"response.function_call_arguments.done","item_id":"fc_b","output_index":1,"arguments":"{\"pattern\":\"*.rs\"}"}),
        completed(json!({"input_tokens":5,"output_tokens":4,"total_tokens":9})),
    ]).unwrap();
    let r = d.into_response(false);
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    let calls: Vec<_> = r
        .tool_calls
        .iter()
        .map(|c| {
            (
                c.id.as_str(),
                c.function.name.as_str(),
                c.function.arguments.as_str(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("call_a", "Read", "{\"path\":\"a.txt\"}"),
            ("call_b", "Glob", "{\"pattern\":\"*.rs\"}")
        ]
    );
    assert!(r.native.is_none(), "no reasoning item: nothing native");
}

fn incomplete(reason: &str) -> Value {
    json!({"type":"response.incomplete","response":{"object":"response","status":"incomplete","incomplete_details":{"reason":reason},"usage":{"input_tokens":3,"output_tokens":16}}})
}

#[test]
fn stop_reasons() {
    for (events, want) in [
        (vec![incomplete("max_output_tokens")], StopReason::MaxTokens),
        (vec![incomplete("content_filter")], StopReason::Refusal),
        (
            vec![
                json!({"type":"response.refusal.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"I can't"}),
                completed(json!(null)),
            ],
            StopReason::Refusal,
        ),
    ] {
        let mut d = decoder();
        let mut sink = S::default();
        feed(&mut d, &mut sink, &events).unwrap();
        assert_eq!(d.into_response(false).stop_reason, want, "{events:?}");
    }
    let mut d = decoder();
    let mut sink = S::default();
    feed(
        &mut d,
        &mut sink,
        &[json!({"type":"response.refusal.delta","delta":"I can't"})],
    )
    .unwrap();
    assert_eq!(sink.text, "I can't");
    assert!(
        !d.complete(),
        "no terminal event yet: the stream is not finished"
    );
}

fn error_of(event: Value) -> RobotaError {
    let mut d = decoder();
    feed(&mut d, &mut S::default(), &[event]).unwrap_err()
}

fn failed(code: &str) -> Value {
    json!({"type":"response.failed","response":{"object":"response","status":"failed","error":{"code":code,"message":"boom"}}})
}

#[test]
fn failures_map_to_the_taxonomy() {
    assert!(matches!(
        error_of(failed("rate_limit_exceeded")),
        RobotaError::RateLimit { .. }
    ));
    match error_of(failed("server_error")) {
        RobotaError::Provider {
            recoverable,
            message,
            ..
        } => {
            assert!(recoverable);
            assert_eq!(
                message,
                "r (openai-responses) stream error server_error: boom"
            );
        }
        e => panic!("{e:?}"),
    }
    assert!(matches!(
        error_of(failed("invalid_prompt")),
        RobotaError::Provider {
            recoverable: false,
            ..
        }
    ));
    let e =
        error_of(json!({"type":"error","code":"invalid_api_key","message":"bad key","param":null}));
    assert!(matches!(e, RobotaError::Authentication(_)), "{e:?}");
    let e = error_of(json!({"type":"error","code":"model_not_found","message":"no","param":null}));
    assert!(matches!(e, RobotaError::ModelNotAvailable { ref model, .. } if model == "o4-mini"));
    let e = error_of(json!({"type":"error","code":null,"message":"overloaded","param":null}));
    assert!(matches!(
        e,
        RobotaError::Provider {
            recoverable: true,
            ..
        }
    ));
}

#[test]
fn whole_response_stands_for_the_stream() {
    let body = json!({"id":"resp_1","object":"response","status":"completed","output":[
        {"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"e"},
        {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello","annotations":[]}]},
        {"id":"fc_1","type":"function_call","call_id":"call_1","name":"Read","arguments":"{}"}
    ],"usage":{"input_tokens":4,"output_tokens":2,"total_tokens":6}});
    let mut d = decoder();
    let mut sink = S::default();
    for (event, data) in d.whole_response(body) {
        d.event(
            SseEvent {
                event,
                data: &data,
                id: "",
            },
            &mut sink,
        )
        .unwrap();
    }
    assert_eq!(sink.text, "Hello");
    let r = d.into_response(false);
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    assert_eq!(r.tool_calls[0].id, "call_1");
    assert_eq!(r.native.unwrap().blocks.len(), 3);
}
