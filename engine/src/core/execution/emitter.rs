//! Builds replay events only when someone listens.

use serde_json::{json, Map, Value};

use crate::core::events::ExecutionEventFn;

/// Emits replay events with the common fields (`executionId`, `conversationId`, `round`).
#[derive(Clone)]
pub struct Emitter {
    callback: Option<ExecutionEventFn>,
    execution_id: String,
    conversation_id: String,
}

impl Emitter {
    /// An emitter for one run.
    pub fn new(
        callback: Option<ExecutionEventFn>,
        execution_id: String,
        conversation_id: String,
    ) -> Self {
        Emitter {
            callback,
            execution_id,
            conversation_id,
        }
    }

    /// Whether events are wanted (callers skip building payloads otherwise).
    pub fn enabled(&self) -> bool {
        self.callback.is_some()
    }

    /// Execution id of the run.
    pub fn execution_id(&self) -> &str {
        &self.execution_id
    }

    /// Emits `name`; `fill` adds the event-specific fields.
    pub fn emit(&self, name: &str, round: Option<u32>, fill: impl FnOnce(&mut Map<String, Value>)) {
        let Some(cb) = &self.callback else { return };
        let mut data = Map::new();
        data.insert("executionId".into(), json!(self.execution_id));
        data.insert("conversationId".into(), json!(self.conversation_id));
        if let Some(r) = round {
            data.insert("round".into(), json!(r));
        }
        fill(&mut data);
        cb(name, &Value::Object(data));
    }
}
