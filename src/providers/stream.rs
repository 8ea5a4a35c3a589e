//! The streaming seam of the HTTP providers: a wire format's decoder of SSE events, how a
//! streamed call ended, and the raw-payload event a sink may ask for.

use serde_json::Value;

use super::sse::SseEvent;
use crate::core::errors::RobotaError;
use crate::core::provider::{RawPayloadEvent, RawPayloadKind, StreamSink};

/// Turns one wire format's SSE events into sink calls and an accumulated response.
pub trait StreamDecoder: Send {
    /// Handles one event.
    fn event(&mut self, event: SseEvent<'_>, sink: &mut dyn StreamSink) -> Result<(), RobotaError>;
    /// True once any content reached the caller (the call is then never retried).
    fn delivered(&self) -> bool;
    /// True once the stream's end marker was seen.
    fn complete(&self) -> bool;
    /// True when reading can stop now (the end marker was seen and nothing may follow).
    fn done(&self) -> bool {
        self.complete()
    }
    /// The end marker's name, for the "stream ended before …" error.
    fn end_marker(&self) -> &'static str;
    /// Clears all state before a retry.
    fn reset(&mut self);
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
