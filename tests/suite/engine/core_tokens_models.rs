//! The model table from the LiteLLM catalog (unknown ids get a 200 000-token window), formatTokenCount, estimator and usage
//! normalization.

use std::sync::Arc;

use robota_engine::core::message::{Message, Metadata};
use robota_engine::core::models::*;
use robota_engine::core::tokens::*;
use serde_json::json;

fn with_usage(m: Message, input: u64, output: u64) -> Arc<Message> {
    let mut meta = Metadata::new();
    meta.insert("inputTokens".into(), json!(input));
    meta.insert("outputTokens".into(), json!(output));
    Arc::new(m.with_metadata(meta))
}

#[test]
fn model_table_comes_from_the_catalog() {
    // OpenAI: a 128k model is 128k (it used to be assumed 200k), with its list prices.
    let gpt = find_model("gpt-4o").unwrap();
    assert_eq!(
        (gpt.provider, gpt.context_window, gpt.max_output),
        ("openai", 128_000, 16_384)
    );
    assert_eq!(model_context_window("gpt-4o"), 128_000);
    let p = model_price("gpt-4o").unwrap();
    assert_eq!((p.input, p.output, p.cache_read), (2.5, 10.0, 1.25));
    // No cache-write price in the catalog: cache writes bill as input.
    assert_eq!(p.cache_write, 2.5);
    assert_eq!(p.above_200k, None);
    // Anthropic.
    assert_eq!(model_context_window("claude-opus-4-6"), 1_000_000);
    assert_eq!(model_max_output("claude-opus-4-6"), 128_000);
    assert_eq!(model_context_window("claude-haiku-4-5-20251001"), 200_000);
    let p = model_price("claude-sonnet-4-5").unwrap();
    assert_eq!(
        (p.input, p.output, p.cache_write, p.cache_read),
        (3.0, 15.0, 3.75, 0.3)
    );
    // Gemini, by the API's own id, with its long-prompt rates.
    let g = find_model("gemini-2.5-pro").unwrap();
    assert_eq!(
        (g.provider, g.context_window, g.max_output),
        ("gemini", 1_048_576, 65_536)
    );
    let p = model_price("gemini-2.5-pro").unwrap();
    assert_eq!((p.input, p.output), (1.25, 10.0));
    let long = p.above_200k.unwrap();
    assert_eq!(
        (long.input, long.output, long.cache_read),
        (2.5, 15.0, 0.25)
    );
    // claude-3-5-haiku-latest was retired and is no longer in the catalog (LiteLLM 1.110.2):
    // like every unknown id (exact ids only), the defaults.
    for unknown in [
        "claude-3-5-haiku-latest",
        "claude-sonnet-4-6-preview",
        "test-model",
    ] {
        assert!(find_model(unknown).is_none(), "{unknown}");
        assert_eq!(model_context_window(unknown), DEFAULT_CONTEXT_WINDOW);
        assert_eq!(model_max_output(unknown), DEFAULT_MAX_OUTPUT);
        assert_eq!(model_price(unknown), None);
    }
    assert_eq!(DEFAULT_CONTEXT_WINDOW, 200_000);
    assert_eq!(DEFAULT_MAX_OUTPUT, 16_384);
}

#[test]
fn format_token_count_table() {
    let cases = [
        (0, "0K"),
        (-5, "0K"),
        (1, "<1K"),
        (999, "<1K"),
        (1000, "1K"),
        (1500, "1.5K"),
        (90_500, "90.5K"),
        (200_000, "200K"),
        (1_000_000, "1M"),
        (1_186_891, "1.2M"),
        (2_500_000, "2.5M"),
    ];
    for (n, want) in cases {
        assert_eq!(format_token_count(n), want, "{n}");
    }
}

#[test]
fn latest_usage_wins_and_is_not_summed() {
    let msgs = vec![
        Arc::new(Message::user("a")),
        with_usage(Message::assistant("b"), 30_000, 2_000),
        Arc::new(Message::user("c")),
        with_usage(Message::assistant("d"), 50_000, 3_000),
    ];
    let est = estimate_context_tokens(&msgs, None);
    assert_eq!(est.used_tokens, 53_000);
    assert_eq!(est.provider_tokens, Some(53_000));
}

#[test]
fn terminal_usage_is_exact_even_with_a_huge_prompt() {
    let msgs = vec![
        Arc::new(Message::user("p".repeat(320_000))),
        with_usage(Message::assistant("ok"), 10, 5),
    ];
    let est = estimate_context_tokens(&msgs, None);
    assert_eq!(est.used_tokens, 15);
    assert!(est.serialized_tokens > 80_000);
}

#[test]
fn metadata_free_messages_after_usage_use_the_max() {
    let msgs = vec![
        with_usage(Message::assistant("ok"), 10, 5),
        Arc::new(Message::user("p".repeat(4_000))),
    ];
    let est = estimate_context_tokens(&msgs, None);
    assert_eq!(est.used_tokens, est.serialized_tokens);
    assert!(est.used_tokens > 1000);
}

#[test]
fn usage_floor() {
    let msgs = vec![Arc::new(Message::user("hi"))];
    let est = estimate_context_tokens(&msgs, Some(120_000.0));
    assert_eq!(est.used_tokens, 120_000);
    assert_eq!(est.usage_floor_tokens, Some(120_000));
    assert_eq!(
        estimate_context_tokens(&msgs, Some(-1.0)).usage_floor_tokens,
        None
    );
    assert_eq!(
        estimate_context_tokens(&msgs, Some(f64::NAN)).usage_floor_tokens,
        None
    );
    assert_eq!(
        estimate_context_tokens(&msgs, Some(10.2)).usage_floor_tokens,
        Some(11)
    );
}

#[test]
fn serialized_estimate_is_json_length_over_four() {
    let msgs = vec![Arc::new(Message::user("hello"))];
    let json = serde_json::to_string(&msgs.iter().map(|m| m.as_ref()).collect::<Vec<_>>()).unwrap();
    assert_eq!(
        estimate_serialized_tokens(&msgs),
        json.len().div_ceil(4) as u64
    );
}

#[test]
fn usage_normalization_sources() {
    let mut meta = Metadata::new();
    meta.insert("promptTokens".into(), json!(7));
    meta.insert("completionTokens".into(), json!(3));
    let u = read_token_usage(&Message::assistant("x").with_metadata(meta)).unwrap();
    assert_eq!((u.input_tokens, u.output_tokens, u.total()), (7, 3, 10));

    let mut meta = Metadata::new();
    meta.insert(
        "usage".into(),
        json!({"inputTokens": 4, "outputTokens": 1, "totalTokens": 9}),
    );
    let u = read_token_usage(&Message::assistant("x").with_metadata(meta)).unwrap();
    assert_eq!(u.total(), 9);

    let mut meta = Metadata::new();
    meta.insert(
        "usage".into(),
        json!("{\"inputTokens\":2,\"outputTokens\":2}"),
    );
    assert_eq!(
        read_token_usage(&Message::assistant("x").with_metadata(meta))
            .unwrap()
            .total(),
        4
    );

    let mut meta = Metadata::new();
    meta.insert("inputTokens".into(), json!(5));
    assert!(
        read_token_usage(&Message::assistant("x").with_metadata(meta)).is_none(),
        "both input and output are required"
    );
}
