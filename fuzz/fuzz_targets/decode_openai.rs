//! The OpenAI Chat Completions stream decoder behind the SSE framer.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::providers::openai::OpenAiDecoder;
use robota_engine::providers::ProviderKind;

fuzz_target!(|data: &[u8]| {
    let cfg = robota_fuzz::config(ProviderKind::OpenAi);
    robota_fuzz::check_decoder(
        data,
        || OpenAiDecoder::new(cfg.clone()),
        |d| d.acc.into_response(false),
    );
});
