//! The streaming seam of the HTTP providers: a wire format's decoder of SSE events, how a
//! streamed call ended, and the raw-payload event a sink may ask for.

use serde_json::Value;

use super::convert::Accumulated;
use super::sse::{SseEvent, SseParser};
use super::whole::WholeEvent;
use crate::core::errors::RobotaError;
use crate::core::provider::{RawPayloadEvent, RawPayloadKind, StreamSink};

/// Turns one wire format's SSE events into sink calls and an accumulated response.
///
/// The finish rule, the same for every provider: a stream is finished only when the vendor
/// said why it stopped (OpenAI-style `finish_reason`, Anthropic `message_delta.stop_reason`,
/// Gemini `finishReason`), i.e. when [`Accumulated::stop`] is set. An end marker (`[DONE]`,
/// `message_stop`) or the end of the body without one is a cut stream: a recoverable provider
/// error, retried while nothing reached the caller, never a complete answer.
pub trait StreamDecoder: Send {
    /// Handles one event.
    fn event(&mut self, event: SseEvent<'_>, sink: &mut dyn StreamSink) -> Result<(), RobotaError>;
    /// What was decoded so far.
    fn accumulated(&self) -> &Accumulated;
    /// True once any content reached the caller (the call is then never retried).
    fn delivered(&self) -> bool {
        self.accumulated().delivered
    }
    /// True once the vendor gave the stop reason (the finish rule above).
    fn complete(&self) -> bool {
        self.accumulated().stop.is_some()
    }
    /// True when reading can stop now: the vendor's end marker was seen, nothing may follow.
    fn done(&self) -> bool;
    /// What the vendor sends to say why it stopped, for the "stream ended before …" error.
    fn stop_marker(&self) -> &'static str;
    /// Clears all state before a retry.
    fn reset(&mut self);
    /// A non-streamed answer (`application/json`) as the stream events it stands for.
    fn whole_response(&self, body: Value) -> Vec<WholeEvent>;
}

/// How a streamed call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamOutcome {
    /// The end marker was seen.
    Complete,
    /// Cancelled: whatever the decoder holds is partial.
    Aborted,
}

/// Hands one SSE event's payload to a sink that wants raw payloads (`seq` numbers them).
pub(crate) fn raw_event(
    provider: &str,
    api_surface: &'static str,
    ev: &SseEvent<'_>,
    seq: &mut u64,
    sink: &mut dyn StreamSink,
) {
    let payload =
        serde_json::from_str::<Value>(ev.data).unwrap_or_else(|_| Value::String(ev.data.into()));
    sink.on_raw_payload(RawPayloadEvent {
        provider: provider.to_string(),
        api_surface: Some(api_surface.to_string()),
        payload_kind: RawPayloadKind::StreamEvent,
        sequence: Some(*seq),
        payload,
    });
    *seq += 1;
}

/// Hands the events of one body chunk to `decoder`, in order, and none after its end marker
/// ([`StreamDecoder::done`]): what follows `[DONE]` / `message_stop` in the same chunk is
/// ignored, exactly as when it arrives in a later chunk that is never read, so the answer never
/// depends on where the network cut the bytes. `each` sees every event handed over (counting,
/// raw payloads) before the decoder does.
pub fn feed_events(
    parser: &mut SseParser,
    chunk: &[u8],
    decoder: &mut dyn StreamDecoder,
    sink: &mut dyn StreamSink,
    mut each: impl FnMut(&SseEvent<'_>, &mut dyn StreamSink),
) -> Result<(), RobotaError> {
    parser.feed(chunk, |ev| {
        if decoder.done() {
            return Ok(());
        }
        each(&ev, sink);
        decoder.event(ev, sink)
    })
}

/// End of the body: hands a last event that lacks its closing blank line to the decoder when
/// its data is complete (JSON that parses, or `[DONE]`), as the vendors' SDKs do. Returns true
/// when an incomplete event was left over (the stream was cut mid-event).
pub fn finish_events(
    parser: &mut SseParser,
    decoder: &mut dyn StreamDecoder,
    sink: &mut dyn StreamSink,
    mut each: impl FnMut(&SseEvent<'_>, &mut dyn StreamSink),
) -> Result<bool, RobotaError> {
    if !parser.has_partial_event() {
        return Ok(false);
    }
    let mut cut = true;
    parser.finish(|ev| {
        let data = ev.data.trim();
        let whole = data == "[DONE]"
            || (!data.is_empty() && serde_json::from_str::<serde::de::IgnoredAny>(data).is_ok());
        if !whole || decoder.done() {
            return Ok(());
        }
        cut = false;
        each(&ev, sink);
        decoder.event(ev, sink)
    })?;
    Ok(cut)
}
