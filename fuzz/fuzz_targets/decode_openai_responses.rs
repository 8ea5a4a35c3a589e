//! The OpenAI Responses API stream decoder behind the SSE framer.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::providers::openai_responses::ResponsesDecoder;
use robota_engine::providers::ProviderKind;

fuzz_target!(|data: &[u8]| {
    let cfg = robota_fuzz::config(ProviderKind::OpenAiResponses);
    robota_fuzz::check_decoder(
        data,
        || ResponsesDecoder::new(cfg.clone(), "gpt-5"),
        |d| d.into_response(false),
    );
});
