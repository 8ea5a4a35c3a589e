//! The Gemini `streamGenerateContent?alt=sse` decoder behind the SSE framer.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::providers::gemini::GeminiDecoder;
use robota_engine::providers::ProviderKind;

fuzz_target!(|data: &[u8]| {
    let cfg = robota_fuzz::config(ProviderKind::Gemini);
    robota_fuzz::check_decoder(
        data,
        || GeminiDecoder::new(cfg.clone()),
        |d| d.acc.into_response(false),
    );
});
