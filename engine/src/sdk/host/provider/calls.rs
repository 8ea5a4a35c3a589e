//! The calls a runtime's host providers have open: ids, what the host pushed for each (checked
//! in order: tool calls only for offered tools, streamed arguments assembled), and the end of
//! a call (its last event, or a cancellation), after which every push is stale.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

use super::events::{self, Failure, FailureClass, HostEvent};
use crate::core::errors::{RobotaError, CONTEXT_OVERFLOW};
use crate::core::message::ToolCall;
use crate::core::provider::StopReason;
use crate::sdk::error::{list_or_none, ErrorCode, SdkError, SdkResult};

/// What reaches the waiting call, in push order.
#[derive(Debug)]
pub(crate) enum Delivered {
    Text(String),
    Thinking(String),
    ToolCall(ToolCall),
    Usage {
        input: u64,
        output: u64,
    },
    /// The end: success with its stop reason.
    Done(StopReason),
    /// The end: a failure (the host's `error`, or an event that broke the call).
    Failed {
        error: RobotaError,
        retry_after: Option<Duration>,
    },
}

/// What a call was asked, for checking and naming its events.
pub(crate) struct CallSpec {
    /// The provider's name.
    pub provider: Arc<str>,
    /// The model asked for.
    pub model: String,
    /// The tools the request offered.
    pub offered: Vec<String>,
}

struct OpenCall {
    tx: mpsc::UnboundedSender<Delivered>,
    spec: CallSpec,
    ids: HashSet<String>,
    /// Streamed tool calls started and not ended: id, name, arguments so far.
    streaming: Vec<(String, String, String)>,
    tool_calls: usize,
}

/// The open calls of a runtime's host providers (ids unique per runtime, never 0).
#[derive(Default)]
pub struct CallTable {
    issued: AtomicU64,
    open: Mutex<HashMap<u64, OpenCall>>,
}

impl CallTable {
    /// Opens a call: its id and the receiver of what the host pushes for it.
    pub(crate) fn open(&self, spec: CallSpec) -> (u64, mpsc::UnboundedReceiver<Delivered>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut open = self.lock();
        let id = self.issued.fetch_add(1, Ordering::AcqRel) + 1;
        open.insert(
            id,
            OpenCall {
                tx,
                spec,
                ids: HashSet::new(),
                streaming: Vec::new(),
                tool_calls: 0,
            },
        );
        (id, rx)
    }

    /// Ends call `id` from the library's side; true when it was still open (its host is then
    /// owed the cancel document).
    pub(crate) fn close(&self, id: u64) -> bool {
        let removed = self.lock().remove(&id);
        removed.is_some()
    }

    /// Takes one pushed event for `call_id`: `NotFound` for an id never issued, `Stale` once
    /// the call ended; invalid JSON or a wrong event fails the call too (the turn says why).
    pub fn push(&self, call_id: u64, text: &str) -> SdkResult<()> {
        if call_id == 0 || call_id > self.issued.load(Ordering::Acquire) {
            return Err(SdkError::new(
                ErrorCode::NotFound,
                format!("call_id {call_id} was never issued"),
            ));
        }
        let mut open = self.lock();
        let Some(call) = open.get_mut(&call_id) else {
            return Err(stale(call_id));
        };
        let result = match serde_json::from_str::<Value>(text) {
            Err(e) => Err(SdkError::json("event_json", &e)),
            Ok(doc) => events::parse(&doc)
                .and_then(|ev| call.apply(ev))
                .map_err(|m| SdkError::config(format!("event_json: {m}"))),
        };
        let (delivered, ends) = match result {
            Ok(Some(d)) => {
                let ends = matches!(d, Delivered::Done(_) | Delivered::Failed { .. });
                (d, ends)
            }
            Ok(None) => return Ok(()),
            Err(e) => {
                let error = RobotaError::Provider {
                    provider: call.spec.provider.to_string(),
                    message: format!(
                        "host provider \"{}\": bad event for call {call_id}: {}",
                        call.spec.provider, e.message
                    ),
                    status: None,
                    recoverable: false,
                };
                let _ = call.tx.send(Delivered::Failed {
                    error,
                    retry_after: None,
                });
                open.remove(&call_id);
                return Err(e);
            }
        };
        if call.tx.send(delivered).is_err() {
            // Nobody waits any more (the call was dropped): it ended.
            open.remove(&call_id);
            return Err(stale(call_id));
        }
        if ends {
            open.remove(&call_id);
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, OpenCall>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn stale(call_id: u64) -> SdkError {
    SdkError::new(
        ErrorCode::Stale,
        format!("call {call_id} has ended (it finished, failed or was cancelled)"),
    )
}

impl OpenCall {
    /// Checks `ev` against what came before; what to hand to the call, if anything.
    fn apply(&mut self, ev: HostEvent) -> Result<Option<Delivered>, String> {
        Ok(Some(match ev {
            HostEvent::Text(t) => Delivered::Text(t),
            HostEvent::Thinking(t) => Delivered::Thinking(t),
            HostEvent::ToolCall {
                id,
                name,
                arguments,
            } => {
                self.new_tool_call(&id, &name)?;
                self.tool_calls += 1;
                Delivered::ToolCall(ToolCall::new(id, name, arguments.to_string()))
            }
            HostEvent::ToolCallStart { id, name } => {
                self.new_tool_call(&id, &name)?;
                self.streaming.push((id, name, String::new()));
                return Ok(None);
            }
            HostEvent::ToolCallDelta { id, fragment } => {
                let open = self.streaming_mut(&id, "tool_call_delta")?;
                open.2.push_str(&fragment);
                return Ok(None);
            }
            HostEvent::ToolCallEnd { id } => {
                self.streaming_mut(&id, "tool_call_end")?;
                let at = self.streaming.iter().position(|s| s.0 == id).unwrap_or(0);
                let (id, name, args) = self.streaming.remove(at);
                let text = if args.trim().is_empty() { "{}" } else { &args };
                match serde_json::from_str::<Value>(text) {
                    Ok(Value::Object(_)) => {}
                    _ => {
                        return Err(format!(
                            "the arguments of tool call \"{id}\" are not a JSON object: {args}"
                        ))
                    }
                }
                self.tool_calls += 1;
                Delivered::ToolCall(ToolCall::new(id, name, text))
            }
            HostEvent::Usage { input, output } => Delivered::Usage { input, output },
            HostEvent::Done(reason) => {
                if let Some((id, _, _)) = self.streaming.first() {
                    return Err(format!(
                        "done while tool call \"{id}\" is still open (no tool_call_end)"
                    ));
                }
                Delivered::Done(reason.unwrap_or(if self.tool_calls > 0 {
                    StopReason::ToolUse
                } else {
                    StopReason::EndTurn
                }))
            }
            HostEvent::Error(f) => Delivered::Failed {
                retry_after: f.retry_after_ms.map(Duration::from_millis),
                error: failure_error(&self.spec, f),
            },
        }))
    }

    fn new_tool_call(&mut self, id: &str, name: &str) -> Result<(), String> {
        if !self.spec.offered.iter().any(|t| t == name) {
            return Err(format!(
                "tool call \"{id}\" names tool \"{name}\", which the request did not offer (offered: {})",
                list_or_none(&self.spec.offered)
            ));
        }
        if !self.ids.insert(id.to_string()) {
            return Err(format!(
                "tool call id \"{id}\" was already used in this call"
            ));
        }
        Ok(())
    }

    fn streaming_mut(
        &mut self,
        id: &str,
        kind: &str,
    ) -> Result<&mut (String, String, String), String> {
        self.streaming
            .iter_mut()
            .find(|s| s.0 == id)
            .ok_or_else(|| format!("{kind} for tool call \"{id}\", which was never started"))
    }
}

/// The taxonomy error of an `error` event, its text naming the provider.
fn failure_error(spec: &CallSpec, f: Failure) -> RobotaError {
    let provider = spec.provider.to_string();
    let text = format!("host provider \"{provider}\": {}", f.message);
    let fatal = |message: String| RobotaError::Provider {
        provider: provider.clone(),
        message,
        status: None,
        recoverable: false,
    };
    match f.class {
        FailureClass::Provider => RobotaError::Provider {
            provider: provider.clone(),
            message: text,
            status: None,
            recoverable: f.recoverable.unwrap_or(true),
        },
        FailureClass::RateLimit => RobotaError::RateLimit {
            message: text,
            retry_after: f.retry_after_ms.map(Duration::from_millis),
        },
        FailureClass::Network => RobotaError::Network(text),
        FailureClass::Authentication => RobotaError::Authentication(text),
        FailureClass::ModelNotAvailable => RobotaError::ModelNotAvailable {
            model: spec.model.clone(),
            provider: provider.clone(),
        },
        FailureClass::ContextLength => fatal(format!(
            "host provider \"{provider}\": {CONTEXT_OVERFLOW} of model \"{}\": {}",
            spec.model, f.message
        )),
        FailureClass::InvalidRequest => fatal(text),
    }
}
