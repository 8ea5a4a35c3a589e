//! Shared helpers of the fuzz targets: splitting an input into chunks the way a network would,
//! and driving a vendor stream decoder exactly as the HTTP transport does (SSE parser → decoder,
//! end-of-body handling), twice (one chunk, then many) to check the result does not depend on
//! where the chunks were cut.

use robota_engine::core::errors::RobotaError;
use robota_engine::core::provider::{ChatResponse, StreamSink};
use robota_engine::providers::http::StreamDecoder;
use robota_engine::providers::sse::{SseEvent, SseParser};
use robota_engine::providers::stream::{feed_events, finish_events};
use robota_engine::providers::{HttpProviderConfig, ProviderKind};

/// Splits `data` into chunks of 1..=64 bytes chosen by `seed` (deterministic per input).
pub fn chunks(seed: u8, data: &[u8]) -> Vec<&[u8]> {
    let mut state = u32::from(seed).wrapping_mul(2_654_435_761) | 1;
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let n = (state % 64) as usize + 1;
        let (a, b) = rest.split_at(n.min(rest.len()));
        out.push(a);
        rest = b;
    }
    out
}

/// An owned copy of one SSE event.
pub type OwnedEvent = (String, String, String);

/// Feeds `parts` to one parser and returns every event (including what `finish` dispatches).
pub fn sse_events(parts: &[&[u8]]) -> (Vec<OwnedEvent>, bool) {
    let mut p = SseParser::new();
    let mut out = Vec::new();
    let mut push = |ev: SseEvent<'_>| -> Result<(), ()> {
        out.push((ev.event.to_string(), ev.data.to_string(), ev.id.to_string()));
        Ok(())
    };
    for part in parts {
        let _ = p.feed(part, &mut push);
    }
    let partial = p.has_partial_event();
    let _ = p.finish(&mut push);
    (out, partial)
}

/// A sink that records what reached the caller.
#[derive(Default)]
pub struct RecordingSink {
    /// Concatenated text deltas.
    pub text: String,
    /// Concatenated thinking deltas.
    pub thinking: String,
}

impl StreamSink for RecordingSink {
    fn on_text(&mut self, delta: &str) {
        self.text.push_str(delta);
    }
    fn on_thinking(&mut self, delta: &str) {
        self.thinking.push_str(delta);
    }
}

/// A provider config of `kind` pointing nowhere (decoders never connect).
pub fn config(kind: ProviderKind) -> HttpProviderConfig {
    let entry = serde_json::json!({ "kind": kind.as_str(), "base_url": "http://127.0.0.1:9" });
    match HttpProviderConfig::parse("fuzz", kind, &entry) {
        Ok(c) => c,
        Err(e) => panic!("fuzz provider config rejected: {e}"),
    }
}

/// What one decode run produced.
#[derive(Debug, PartialEq)]
pub struct Decoded {
    /// The first decoder error, as text.
    pub error: Option<String>,
    /// Whether the decoder saw the vendor's stop reason.
    pub complete: bool,
    /// The response built from what was decoded.
    pub response: ChatResponse,
    /// Text the sink received.
    pub streamed: String,
}

/// Drives `decoder` over `parts` with the transport's own functions (`feed_events` per chunk,
/// `finish_events` at end of body), stopping at the first error or once the decoder is done. `finish` turns the decoder into the response.
pub fn decode<D: StreamDecoder>(
    mut decoder: D,
    parts: &[&[u8]],
    finish: impl FnOnce(D) -> ChatResponse,
) -> Decoded {
    let mut sink = RecordingSink::default();
    let mut parser = SseParser::new();
    let mut error: Option<RobotaError> = None;
    for part in parts {
        if let Err(e) = feed_events(&mut parser, part, &mut decoder, &mut sink, |_, _| {}) {
            error = Some(e);
            break;
        }
        if decoder.done() {
            break;
        }
    }
    if error.is_none() && !decoder.done() {
        if let Err(e) = finish_events(&mut parser, &mut decoder, &mut sink, |_, _| {}) {
            error = Some(e);
        }
    }
    let complete = decoder.complete();
    Decoded {
        error: error.map(|e| e.to_string()),
        complete,
        response: finish(decoder),
        streamed: sink.text,
    }
}

/// The vendor-decoder property: decoding never panics, the result does not depend on how the
/// bytes were chunked, and the text streamed to the caller is the response's text. Also feeds
/// the data as a non-streamed (`application/json`) answer. `data[0]` picks the chunking.
pub fn check_decoder<D: StreamDecoder>(
    data: &[u8],
    make: impl Fn() -> D,
    finish: impl Fn(D) -> ChatResponse,
) {
    let Some((&seed, body)) = data.split_first() else {
        return;
    };
    let whole = decode(make(), &[body], &finish);
    let split = decode(make(), &chunks(seed, body), &finish);
    assert_eq!(whole, split, "decoding depends on chunk boundaries");
    if whole.error.is_none() && !whole.response.content.is_empty() {
        assert_eq!(
            whole.streamed, whole.response.content,
            "streamed text differs from the response text"
        );
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        let mut d = make();
        let mut sink = RecordingSink::default();
        for (event, data) in d.whole_response(v) {
            let ev = SseEvent {
                event,
                data: &data,
                id: "",
            };
            if d.event(ev, &mut sink).is_err() {
                break;
            }
        }
        let _ = finish(d);
    }
}
