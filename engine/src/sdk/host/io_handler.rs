//! The host side of the host I/O port: the runtime's handler (set by
//! `robota_runtime_set_host_io`), handing a request to it (thread and pump delivery), and the
//! host's answers ([`Runtime::complete_host_io`]).

use std::sync::Arc;

use serde_json::Value;

use crate::sdk::error::{parse_json, ErrorCode, SdkError, SdkResult};
use crate::sdk::events::{Event, Payload};
use crate::sdk::host::answers::answer_error;
use crate::sdk::host::pending::{Answer, PendingKind};
use crate::sdk::runtime::{Runtime, RuntimeShared};

/// Receives host I/O requests (`{"v":1,"op",…}`) of the runtime's host-I/O sessions.
pub trait HostIoHandler: Send + Sync {
    /// Hands request `io_id` (`{"v":1,"op",…}`) to the host; `session` is the session
    /// handle's address.
    fn call(&self, session: usize, io_id: u64, request: &Value);
}

impl Runtime {
    /// Sets (or with `None` removes) the host I/O handler.
    pub fn set_host_io(&self, handler: Option<Arc<dyn HostIoHandler>>) {
        // The old handler is dropped here, outside the registration's lock.
        drop(self.shared().register_host_io(handler));
    }

    /// Answers host I/O request `io_id` with a JSON object. Not an object:
    /// [`ErrorCode::InvalidConfig`] (the request keeps waiting); [`ErrorCode::Stale`] when
    /// already answered or withdrawn (turn aborted, session closed).
    pub fn complete_host_io(&self, io_id: u64, response: &str) -> SdkResult<()> {
        let value = parse_json("response_json", response)?;
        if !value.is_object() {
            return Err(SdkError::new(
                ErrorCode::InvalidConfig,
                "response_json: a host I/O answer must be a JSON object",
            ));
        }
        self.shared()
            .pending()
            .answer(io_id, &[PendingKind::HostIo], Answer::Response(value))
            .map_err(answer_error)
    }
}

/// Hands a `HOST_IO` event to the runtime's handler (thread and pump delivery). Without a
/// handler the request is withdrawn, so the tool fails instead of waiting.
pub fn deliver(shared: &RuntimeShared, session: usize, ev: Event) {
    let Payload::Json(doc) = ev.payload else {
        return;
    };
    let io_id = doc.get("io_id").and_then(Value::as_u64).unwrap_or(0);
    match shared.host_io() {
        Some(h) => h.call(session, io_id, doc.get("request").unwrap_or(&Value::Null)),
        None => {
            shared.pending().cancel(io_id);
        }
    }
}
