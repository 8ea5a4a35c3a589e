//! Host tools: registered on a runtime with a JSON Schema, executed by the host through
//! `robota_tool_call_complete` (inside the callback or later, from any thread).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Value};

use crate::core::execution::INTERRUPTED_TOOL_ERROR;
use crate::core::tool::{Tool, ToolContext, ToolResult};
use crate::sdk::error::{SdkError, SdkResult};
use crate::sdk::events::{self, Event, EventSink, HostToolHandler, Payload, ToolCallPayload};
use crate::sdk::host::pending::{Answer, PendingKind};
use crate::sdk::runtime::RuntimeShared;
use crate::tools::schema_compile::CompiledSchema;

/// A registered host tool.
pub struct HostToolDef {
    /// Unique name.
    pub name: String,
    /// Description for the model.
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// Never changes anything (runs without a permission prompt).
    pub read_only: bool,
    /// Answer deadline in ms (0 = none).
    pub timeout_ms: u64,
    /// The host's own handler of the calls, if it registered one.
    pub handler: Option<Arc<dyn HostToolHandler>>,
    validator: Arc<CompiledSchema>,
    /// The provider schema, shared by every session's [`SessionHostTool`] of this definition.
    schema: crate::core::tool::SchemaCell,
}

fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl HostToolDef {
    /// Parses `{name, description, input_schema, read_only?, timeout_ms?}`.
    pub fn from_json(text: &str, handler: Option<Arc<dyn HostToolHandler>>) -> SdkResult<Self> {
        const W: &str = "tool_json";
        let map = crate::sdk::config::parse_object(W, text)?;
        crate::sdk::config::check_strict(
            W,
            &map,
            &[
                "name",
                "description",
                "input_schema",
                "read_only",
                "timeout_ms",
                "strict",
            ],
        )?;
        let name = match map.get("name") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                return Err(SdkError::config(format!(
                    "{W}: field \"name\" must be a string"
                )))
            }
            None => {
                return Err(SdkError::config(format!(
                    "{W}: missing required field \"name\""
                )))
            }
        };
        if !valid_name(&name) {
            return Err(SdkError::config(format!(
                "{W}: tool name \"{name}\" must be 1-64 characters of letters, digits, '_' or '-'"
            )));
        }
        let description = match map.get("description") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                return Err(SdkError::config(format!(
                    "{W}: field \"description\" must be a string"
                )))
            }
        };
        let input_schema = match map.get("input_schema") {
            Some(v @ Value::Object(_)) => v.clone(),
            Some(_) => {
                return Err(SdkError::config(format!(
                    "{W}: field \"input_schema\" must be a JSON Schema object"
                )))
            }
            None => {
                return Err(SdkError::config(format!(
                    "{W}: missing required field \"input_schema\""
                )))
            }
        };
        let validator = CompiledSchema::new(&input_schema).map_err(|e| {
            SdkError::config(format!(
                "{W}: \"input_schema\" of tool \"{name}\" is not a valid JSON Schema: {e}"
            ))
        })?;
        let read_only = match map.get("read_only") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                return Err(SdkError::config(format!(
                    "{W}: field \"read_only\" must be a boolean"
                )))
            }
        };
        let timeout_ms = match map.get("timeout_ms") {
            None | Some(Value::Null) => 0,
            Some(v) => v.as_u64().ok_or_else(|| {
                SdkError::config(format!(
                    "{W}: field \"timeout_ms\" must be a non-negative integer"
                ))
            })?,
        };
        Ok(HostToolDef {
            name,
            description,
            input_schema,
            read_only,
            timeout_ms,
            handler,
            validator,
            schema: Default::default(),
        })
    }

    /// Compiles the argument schema on a background thread when that is still to do (see
    /// [`CompiledSchema::warm_up`]); the caller joins the thread.
    pub fn warm_up(&self) -> Option<std::thread::JoinHandle<()>> {
        self.validator.warm_up()
    }

    /// Checks arguments against the schema; the message lists what is wrong.
    pub fn check_args(&self, args: &Value) -> Result<(), String> {
        if self.validator.accepts_fast(args) {
            return Ok(());
        }
        let validator = self.validator.validator().map_err(|e| {
            format!(
                "tool \"{}\": \"input_schema\" is not a valid JSON Schema: {e}",
                self.name
            )
        })?;
        let errors = crate::tools::validation::problems(validator, args);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "Invalid arguments for tool \"{}\": {}",
                self.name,
                errors.join("; ")
            ))
        }
    }
}

/// What a session shares with its tools and gate: where events go and whose ids these are.
pub struct SessionLink {
    /// Session number (owner of pending ids).
    pub owner: u64,
    /// The runtime.
    pub shared: Arc<RuntimeShared>,
    /// Event sink.
    pub sink: EventSink,
    /// Turn now running (0 = none).
    pub turn: AtomicU64,
    /// Wait for permission/hook answers (0 = forever).
    pub request_timeout_ms: u64,
    /// Whether anybody can answer requests (false: thread/pump session without callback).
    pub can_answer: bool,
    /// Set when the host released the session handle: nobody can answer any more (shared
    /// with the session's transcript, which then does not wait for its last lines).
    pub released: Arc<AtomicBool>,
    /// Why requests become void, and those to report at the turn's end.
    pub cancels: crate::sdk::host::cancelled::CancelState,
    /// The session's budget, which the sessions it starts (subagents, `assignTask` children)
    /// share.
    pub budget: Option<Arc<crate::core::budget::Budget>>,
}

impl SessionLink {
    /// Whether a request issued now can still be answered by the host.
    pub fn answerable(&self) -> bool {
        self.can_answer && !self.released.load(Ordering::Acquire)
    }

    /// Issues an answerable id of `kind` for the running turn.
    pub fn issue(&self, kind: PendingKind) -> (u64, tokio::sync::oneshot::Receiver<Answer>) {
        let turn = self.turn.load(Ordering::Relaxed);
        self.shared.pending().issue(kind, self.owner, turn)
    }

    /// Emits an event for the running turn.
    pub fn emit(&self, kind: u32, fields: Value) {
        (self.sink)(Event::json(kind, self.turn.load(Ordering::Relaxed), fields));
    }

    /// Emits a JSON event written straight from `fields` (see [`Event::doc`]).
    pub fn emit_doc<T: serde::Serialize + ?Sized>(&self, kind: u32, fields: &T) {
        (self.sink)(Event::doc(kind, self.turn.load(Ordering::Relaxed), fields));
    }

    /// Emits a raw event.
    pub fn emit_event(&self, event: Event) {
        (self.sink)(event);
    }
}

/// A host tool bound to one session.
pub struct SessionHostTool {
    /// Definition.
    pub def: Arc<HostToolDef>,
    /// Session link.
    pub link: Arc<SessionLink>,
}

/// Waits for `rx` unless cancelled or timed out. `None` = cancelled, `Some(Err(()))` = timed out.
pub async fn await_answer(
    rx: tokio::sync::oneshot::Receiver<Answer>,
    cancel: &tokio_util::sync::CancellationToken,
    timeout_ms: u64,
) -> Option<Result<Answer, ()>> {
    let timeout = async {
        if timeout_ms == 0 {
            std::future::pending::<()>().await
        } else {
            tokio::time::sleep(Duration::from_millis(timeout_ms)).await
        }
    };
    tokio::select! {
        r = rx => r.ok().map(Ok),
        _ = cancel.cancelled() => None,
        _ = timeout => Some(Err(())),
    }
}

impl SessionHostTool {
    /// The call waits no more: `TOOL_CALL_CANCELLED` then `REQUEST_CANCELLED`, unless it was
    /// withdrawn already (whoever withdrew it reports both).
    fn cancel_call(&self, call_id: u64, timed_out: bool) {
        let link = &self.link;
        if !link.shared.pending().cancel(call_id) {
            return;
        }
        link.emit(events::TOOL_CALL_CANCELLED, json!({"call_id": call_id}));
        let reason = if timed_out {
            crate::sdk::host::cancelled::CancelReason::Timeout
        } else {
            link.cancel_reason()
        };
        let turn = link.turn.load(Ordering::Relaxed);
        link.report_cancelled(call_id, PendingKind::ToolCall, turn, reason);
    }
}

#[async_trait]
impl Tool for SessionHostTool {
    fn name(&self) -> &str {
        &self.def.name
    }
    fn description(&self) -> &str {
        &self.def.description
    }
    fn parameters(&self) -> &Value {
        &self.def.input_schema
    }
    fn schema(&self) -> Arc<crate::core::provider::ToolSchema> {
        self.def.schema.get(self)
    }
    fn read_only(&self) -> bool {
        self.def.read_only
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.def.check_args(&args)?;
        let (call_id, rx) = self.link.issue(PendingKind::ToolCall);
        self.link.emit_event(Event {
            kind: events::TOOL_CALL,
            turn_id: self.link.turn.load(Ordering::Relaxed),
            payload: Payload::ToolCall(ToolCallPayload {
                call_id,
                tool_name: self.def.name.clone(),
                input_json: args.to_string(),
                handler: self.def.handler.clone(),
            }),
        });
        match await_answer(rx, &ctx.cancel, self.def.timeout_ms).await {
            Some(Ok(Answer::Tool { value, is_error })) => {
                if is_error {
                    Err(match value {
                        Value::String(s) => s,
                        other => other.to_string(),
                    })
                } else {
                    Ok(value)
                }
            }
            Some(Ok(Answer::Response(v))) => Ok(v),
            Some(Err(())) => {
                self.cancel_call(call_id, true);
                Err(format!(
                    "Host tool \"{}\" did not answer within {} ms",
                    self.def.name, self.def.timeout_ms
                ))
            }
            None => {
                self.cancel_call(call_id, false);
                Err(INTERRUPTED_TOOL_ERROR.to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn add_tool(schema: &str) -> HostToolDef {
        HostToolDef::from_json(
            &format!(r#"{{"name":"add","description":"Adds.","input_schema":{schema}}}"#),
            None,
        )
        .unwrap()
    }

    /// Valid arguments of a subset schema pass without building a validator; anything else
    /// gets the full validator's messages.
    #[test]
    fn arguments_are_checked_fast_and_refused_with_the_validators_text() {
        let def = add_tool(
            r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#,
        );
        assert!(def.warm_up().is_none());
        assert_eq!(def.check_args(&json!({"a":1,"b":2})), Ok(()));
        assert!(!def.validator.is_compiled());
        assert_eq!(
            def.check_args(&json!({"a":1})),
            Err("Invalid arguments for tool \"add\": Missing required parameter: b".to_string())
        );
        assert_eq!(
            def.check_args(&json!({"a":"1","b":2})),
            Err(
                "Invalid arguments for tool \"add\": Parameter \"a\" must be an integer, got string"
                    .to_string()
            )
        );
        // A float the fast check cannot tell is decided by the full validator.
        assert_eq!(def.check_args(&json!({"a":1.0,"b":2})), Ok(()));
        // Outside the subset: the full validator every time.
        let p =
            add_tool(r#"{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}"#);
        assert_eq!(p.check_args(&json!({"a":"xy"})), Ok(()));
        assert_eq!(
            p.check_args(&json!({"a":"y"})),
            Err(
                "Invalid arguments for tool \"add\": Parameter \"a\": 'y' does not match pattern '^x'"
                    .to_string()
            )
        );
    }
}
