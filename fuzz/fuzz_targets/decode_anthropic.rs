//! The Anthropic Messages stream decoder behind the SSE framer (see `robota_fuzz::check_decoder`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::providers::anthropic::AnthropicDecoder;
use robota_engine::providers::ProviderKind;

fuzz_target!(|data: &[u8]| {
    let cfg = robota_fuzz::config(ProviderKind::Anthropic);
    robota_fuzz::check_decoder(
        data,
        || AnthropicDecoder::new(cfg.clone(), "claude-fuzz"),
        |d| d.into_response(false),
    );
});
