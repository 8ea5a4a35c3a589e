//! The SSE framer: any bytes, any chunking. Never panics, and the events (and whether an event
//! was left partial) are the same whether the stream comes in one chunk or many.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_fuzz::{chunks, sse_events};

fuzz_target!(|data: &[u8]| {
    let Some((&seed, body)) = data.split_first() else {
        return;
    };
    let whole = sse_events(&[body]);
    let split = sse_events(&chunks(seed, body));
    assert_eq!(whole, split, "SSE events depend on chunk boundaries");
    let bytewise: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(
        whole,
        sse_events(&bytewise),
        "byte-at-a-time feeding differs"
    );
});
