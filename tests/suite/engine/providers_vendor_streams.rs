//! Every recorded vendor stream (`tests/fixtures/vendor-streams/`), replayed unchanged by the
//! fake server, asserting what the vendor's own SDK test asserts: final text, tool names and
//! parsed inputs, stop reason, usage.

use robota_engine::core::errors::RobotaError;
use robota_engine::core::provider::{ChatResponse, StopReason};
use serde_json::{json, Value};

use crate::support::vendor_streams::{fixture, replay, ALL, DIR};

fn ok(r: Result<ChatResponse, RobotaError>) -> ChatResponse {
    r.unwrap_or_else(|e| panic!("the recorded stream failed: {e}"))
}

/// `(input, output, cache_read, cache_creation)`.
fn usage(r: &ChatResponse) -> (u64, u64, u64, u64) {
    let u = r.usage.expect("usage");
    (
        u.input_tokens,
        u.output_tokens,
        u.cache_read_tokens,
        u.cache_creation_tokens,
    )
}

/// `(id, name, parsed arguments)` of each tool call.
fn calls(r: &ChatResponse) -> Vec<(String, String, Value)> {
    r.tool_calls
        .iter()
        .map(|c| {
            let args = serde_json::from_str(&c.function.arguments)
                .unwrap_or_else(|_| Value::String(c.function.arguments.clone()));
            (c.id.clone(), c.function.name.clone(), args)
        })
        .collect()
}

fn call(id: &str, name: &str, args: Value) -> (String, String, Value) {
    (id.into(), name.into(), args)
}

#[test]
fn every_recorded_stream_is_replayed_here() {
    let mut found = Vec::new();
    for vendor in ["anthropic", "gemini", "openai", "openai-responses"] {
        for e in std::fs::read_dir(format!("{DIR}{vendor}")).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            found.push(format!("{vendor}/{name}"));
        }
    }
    found.sort();
    assert_eq!(found, ALL.to_vec());
}

#[tokio::test]
async fn anthropic_basic_response_without_final_newline() {
    let name = "anthropic/basic_response.txt";
    assert!(
        !fixture(name).ends_with(b"\n"),
        "the last event is unterminated"
    );
    let (r, sink) = replay(name).await;
    let r = ok(r);
    assert_eq!(sink.text, vec!["Hello", " there", "!"]);
    assert_eq!(r.content, "Hello there!");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    assert_eq!(usage(&r), (11, 6, 0, 0));
    assert!(r.tool_calls.is_empty() && r.native.is_none());
}

#[tokio::test]
async fn anthropic_tool_use() {
    let (r, sink) = replay("anthropic/tool_use_response.txt").await;
    let r = ok(r);
    assert_eq!(
        sink.text.concat(),
        "I'll check the current weather in Paris for you."
    );
    assert_eq!(r.content, sink.text.concat());
    assert_eq!(
        calls(&r),
        vec![call(
            "toolu_01NRLabsLyVHZPKxbKvkfSMn",
            "get_weather",
            json!({"location": "Paris"})
        )]
    );
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    assert_eq!(usage(&r), (377, 65, 0, 0));
}

#[tokio::test]
async fn anthropic_tool_use_invalid_json_keeps_the_raw_arguments() {
    // The SDK raises on the bad JSON; the agent keeps the text so the tool reports it.
    let r = ok(replay("anthropic/tool_use_invalid_json_response.txt")
        .await
        .0);
    assert_eq!(
        r.content,
        "I'll check the current weather in Paris for you."
    );
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].function.name, "get_weather");
    assert_eq!(
        r.tool_calls[0].function.arguments,
        r#"{"location": "Paris", "unit": celsius}"#
    );
    assert_eq!(r.stop_reason, StopReason::ToolUse);
}

#[tokio::test]
async fn anthropic_incomplete_tool_input_at_max_tokens() {
    let r = ok(replay("anthropic/incomplete_partial_json_response.txt")
        .await
        .0);
    assert_eq!(
        r.content,
        "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now."
    );
    assert_eq!(r.stop_reason, StopReason::MaxTokens);
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].id, "toolu_01EKqbqmZrGRXy18eN7m9kvY");
    assert_eq!(r.tool_calls[0].function.name, "make_file");
    assert_eq!(
        r.tool_calls[0].function.arguments,
        "{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes"
    );
    assert_eq!(usage(&r), (450, 124, 0, 0));
}

#[tokio::test]
async fn anthropic_message_delta_fields_and_cache_usage() {
    let r = ok(replay("anthropic/message_delta_fields_response.txt")
        .await
        .0);
    assert_eq!(r.content, "Hello there!");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    // The final `message_delta` usage wins over `message_start`'s.
    assert_eq!(usage(&r), (40, 8, 7, 12));
}

#[tokio::test]
async fn anthropic_usage_only_in_message_delta() {
    let r = ok(replay("anthropic/missing_usage_response.txt").await.0);
    assert_eq!(r.content, "hi");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    assert_eq!(usage(&r), (11, 1, 5, 3));
}

#[tokio::test]
async fn anthropic_refusal() {
    let (r, sink) = replay("anthropic/refusal_response.txt").await;
    let r = ok(r);
    assert_eq!(r.stop_reason, StopReason::Refusal);
    assert_eq!(r.content, "");
    assert!(sink.text.is_empty() && r.tool_calls.is_empty());
    assert_eq!(usage(&r), (20, 120, 0, 0));
}

#[tokio::test]
async fn anthropic_server_tool_use_block_is_kept() {
    let (r, sink) = replay("anthropic/server_tool_use_response.txt").await;
    let r = ok(r);
    assert_eq!(r.content, "Let me search for that.");
    assert_eq!(
        sink.server_tools,
        vec![(
            "web_search".to_string(),
            json!({"query": "weather in Paris"})
        )]
    );
    assert!(r.tool_calls.is_empty(), "server tools are not local calls");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    assert_eq!(usage(&r), (42, 40, 0, 0));
    let native = r.native.expect("server-tool blocks kept");
    assert_eq!(native.format, "anthropic-messages");
    assert_eq!(
        native.blocks,
        vec![
            json!({"type": "text", "text": "Let me search for that."}),
            json!({"type": "server_tool_use", "id": "srvtoolu_01WebSearch", "name": "web_search",
                   "input": {"query": "weather in Paris"}}),
        ]
    );
}

#[tokio::test]
async fn anthropic_server_tool_results_stay_in_order_with_the_client_call() {
    let (r, sink) = replay("anthropic/server_tool_result_response.txt").await;
    let r = ok(r);
    assert_eq!(
        calls(&r),
        vec![call(
            "tu_client_001",
            "ask_internal_tool",
            json!({"query": "test"})
        )]
    );
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    assert_eq!(
        sink.server_tools,
        vec![("web_search".to_string(), json!({}))]
    );
    assert_eq!(usage(&r), (50, 20, 0, 0));
    let blocks = r.native.expect("kept").blocks;
    assert_eq!(
        blocks,
        vec![
            json!({"type": "server_tool_use", "id": "svu_web_001", "name": "web_search", "input": {}}),
            json!({"type": "tool_use", "id": "tu_client_001", "name": "ask_internal_tool",
                   "input": {"query": "test"}}),
            json!({"type": "web_search_tool_result", "tool_use_id": "svu_web_001",
                   "content": [{"type": "web_search_result", "url": "https://example.com",
                                "title": "Example Result", "encrypted_content": "enc_abc123",
                                "page_age": null}]}),
            json!({"type": "code_execution_tool_result", "tool_use_id": "svu_code_001",
                   "content": {"type": "code_execution_result", "return_code": 0,
                               "stdout": "hello", "stderr": "", "content": []}}),
        ]
    );
}

#[tokio::test]
async fn openai_plain_text_with_usage_chunk() {
    let (r, sink) = replay("openai/plain_text_usage.txt").await;
    let r = ok(r);
    assert_eq!(
        r.content,
        "I'm unable to provide real-time updates, including current weather information. For the latest weather in San Francisco, I recommend checking a reliable weather website or app such as the Weather Channel, BBC Weather, or a local San Francisco news station."
    );
    assert_eq!(sink.text.concat(), r.content);
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    assert_eq!(usage(&r), (14, 47, 0, 0));
    assert_eq!(r.usage.unwrap().total(), 61);
}

#[tokio::test]
async fn openai_single_tool_call() {
    let r = ok(replay("openai/tool_call_single.txt").await.0);
    assert_eq!(
        calls(&r),
        vec![call(
            "call_7PhhveOvvpPK53s1fV8TWhoV",
            "GetWeatherArgs",
            json!({"city": "Edinburgh", "country": "GB", "units": "c"})
        )]
    );
    assert_eq!(r.content, "");
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    assert_eq!(usage(&r), (76, 24, 0, 0));
}

#[tokio::test]
async fn openai_parallel_tool_calls() {
    let r = ok(replay("openai/tool_calls_parallel.txt").await.0);
    assert_eq!(
        calls(&r),
        vec![
            call(
                "call_lQnnsesjFMWMQ5IeWPHzR4th",
                "GetWeatherArgs",
                json!({"city": "Edinburgh", "country": "UK", "units": "c"})
            ),
            call(
                "call_2xjOUgaCdiwAcl9ZBL9LyMUU",
                "get_stock_price",
                json!({"ticker": "AAPL", "exchange": "NASDAQ"})
            ),
        ]
    );
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    assert_eq!(usage(&r), (149, 60, 0, 0));
}

#[tokio::test]
async fn openai_refusal_text_is_the_answer() {
    let (r, sink) = replay("openai/refusal.txt").await;
    let r = ok(r);
    assert_eq!(
        r.content,
        "I'm sorry, but I can't assist with that request."
    );
    assert_eq!(sink.text.concat(), r.content);
    assert_eq!(r.stop_reason, StopReason::Refusal);
    assert_eq!(usage(&r), (17, 12, 0, 0));
}

#[tokio::test]
async fn openai_length_is_max_tokens() {
    let r = ok(replay("openai/length_max_tokens.txt").await.0);
    assert_eq!(r.content, "{\"");
    assert_eq!(r.stop_reason, StopReason::MaxTokens);
    assert_eq!(usage(&r), (17, 1, 0, 0));
}

#[tokio::test]
async fn gemini_basic_reply() {
    let (r, sink) = replay("gemini/streaming-success-basic-reply-short.txt").await;
    let r = ok(r);
    assert_eq!(
        sink.text,
        vec!["The", " capital of Wyoming", " is **Cheyenne**.\n"]
    );
    assert_eq!(r.content, "The capital of Wyoming is **Cheyenne**.\n");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    assert_eq!(usage(&r), (7, 10, 0, 0));
    assert_eq!(r.usage.unwrap().total(), 17);
}

#[tokio::test]
async fn gemini_thought_summary_is_thinking_not_answer() {
    let (r, sink) = replay("gemini/streaming-success-thinking-reply-thought-summary.txt").await;
    let r = ok(r);
    assert_eq!(sink.thinking.len(), 3);
    assert!(sink.thinking[0].starts_with("**Exploring Sky Color**"));
    assert!(sink.thinking[2].starts_with("**Constructing a Concise Answer**"));
    assert_eq!(
        r.content,
        "The sky is blue because tiny gas molecules in Earth's atmosphere scatter blue light from the sun more efficiently than other colors. Blue light has shorter, smaller wavelengths, causing it to be scattered in all directions, making the sky appear blue to our eyes."
    );
    assert_eq!(sink.text.concat(), r.content);
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    // Output counts the thoughts (48 + 540).
    assert_eq!(usage(&r), (10, 588, 0, 0));
    assert_eq!(r.usage.unwrap().total(), 598);
}

#[tokio::test]
async fn gemini_prompt_blocked_for_safety_is_not_recoverable() {
    let name = "gemini/streaming-failure-prompt-blocked-safety.txt";
    assert!(fixture(name).ends_with(b"}\r\n"), "one CRLF at EOF");
    let (r, sink) = replay(name).await;
    let e = r.unwrap_err();
    assert_eq!(
        e.to_string(),
        "Provider Error (gemini): gemini blocked the prompt: SAFETY"
    );
    assert!(!e.is_recoverable());
    assert_eq!(sink.text, vec!["text1", "text2", "text3"]);
}
