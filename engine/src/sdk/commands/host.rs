//! Host-registered commands: a session's JSON may declare
//! `"commands":[{"name","description","argument_hint"?}]`. They are listed by `help` (source
//! `"host"`), in the command registry and in the system prompt's "Built-in Commands", and run
//! by `robota_session_command` (`{"name","args"}`) or by `/name args` input. Running one emits
//! `ROBOTA_EVENT_COMMAND_REQUEST` `{"request_id","name","args"}`, answered with
//! `robota_request_respond` and `{"message","success"?,"data"?,"prompt"?}`: with `prompt`, that
//! text is submitted as a turn (the typed `/name args` stays its display and raw input);
//! without it the command's `message` is the result (a `/name` input turn then completes with
//! it as its response, without a model call).

use std::sync::Arc;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use crate::sdk::config::host_commands::HostCommand;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::events;
use crate::sdk::host::pending::{Answer, PendingKind};
use crate::sdk::host::tools::{await_answer, SessionLink};
use crate::sdk::interactive::{InteractiveSession, TurnInput};

/// The host's answer to a command request.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandReply {
    /// Human-readable result.
    pub message: String,
    /// Whether the command succeeded (default true).
    pub success: bool,
    /// Structured result.
    pub data: Option<Value>,
    /// A prompt to submit as a turn.
    pub prompt: Option<String>,
}

const RESPONSE_SHAPE: &str =
    "command response must be {\"message\":\"…\",\"success\"?:bool,\"data\"?:…,\"prompt\"?:\"…\"}";

/// Checks a command answer before it is accepted.
pub fn validate_response(v: &Value) -> Result<(), String> {
    reply_of(v).map(|_| ())
}

fn reply_of(v: &Value) -> Result<CommandReply, String> {
    let bad = || RESPONSE_SHAPE.to_string();
    let m = v.as_object().ok_or_else(bad)?;
    let message = match m.get("message") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(bad()),
    };
    let success = match m.get("success") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad()),
    };
    let prompt = match m.get("prompt") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(bad()),
    };
    Ok(CommandReply {
        message,
        success,
        data: m.get("data").filter(|d| !d.is_null()).cloned(),
        prompt,
    })
}

/// The session's host command `name`.
pub fn find(s: &InteractiveSession, name: &str) -> Option<HostCommand> {
    s.config()
        .params
        .commands
        .iter()
        .find(|c| c.name == name)
        .cloned()
}

/// Asks the host to run `name args` and waits for its answer (`Err` says why there is none).
pub async fn ask(
    link: &Arc<SessionLink>,
    name: &str,
    args: &str,
    cancel: &CancellationToken,
) -> Result<CommandReply, String> {
    if !link.answerable() {
        return Err(
            "the host cannot answer command requests (the session has no event callback)".into(),
        );
    }
    let (id, rx) = link.issue(PendingKind::Command);
    link.emit(
        events::COMMAND_REQUEST,
        json!({"request_id": id, "name": name, "args": args}),
    );
    match await_answer(rx, cancel, link.request_timeout_ms).await {
        Some(Ok(Answer::Response(v))) => reply_of(&v),
        Some(Ok(Answer::Tool { .. })) | None => {
            link.withdraw_request(id, PendingKind::Command, false);
            Err("the command request was cancelled".into())
        }
        Some(Err(())) => {
            link.withdraw_request(id, PendingKind::Command, true);
            Err(format!(
                "command request {id} was not answered within {} ms",
                link.request_timeout_ms
            ))
        }
    }
}

fn shown(name: &str, args: &str) -> String {
    let a = args.trim();
    if a.is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {a}")
    }
}

/// Runs host command `name` for `robota_session_command`, blocking until the host answers;
/// `None` when the session has no such command. Refused from a runtime task or callback
/// ([`ErrorCode::Reentrant`]): the answer could never arrive.
pub fn execute(s: &InteractiveSession, name: &str, args: &str) -> SdkResult<Option<Value>> {
    if find(s, name).is_none() {
        return Ok(None);
    }
    if tokio::runtime::Handle::try_current().is_ok() {
        return Err(SdkError::new(
            ErrorCode::Reentrant,
            "a host command waits for the host's answer; run it outside callbacks and runtime tasks",
        ));
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let link = s.link().clone();
    let (n, a) = (name.to_string(), args.to_string());
    s.shared().spawn_work(async move {
        let _ = tx.send(ask(&link, &n, &a, &CancellationToken::new()).await);
    })?;
    let reply = rx.recv().map_err(|_| {
        SdkError::new(
            ErrorCode::Closed,
            "the runtime stopped before the host answered",
        )
    })?;
    let r = match reply {
        Ok(r) => r,
        Err(why) => {
            return Ok(Some(json!({"v": 1, "success": false,
                "message": format!("Command \"{name}\" failed: {why}")})))
        }
    };
    let mut out = Map::new();
    out.insert("v".into(), json!(1));
    out.insert("message".into(), json!(r.message));
    out.insert("success".into(), json!(r.success));
    let mut data = r.data;
    if let Some(prompt) = r.prompt {
        let typed = shown(name, args);
        let turn = s.submit(TurnInput {
            text: prompt,
            display_input: Some(typed.clone()),
            raw_input: Some(typed),
            ..TurnInput::default()
        })?;
        let mut d = match data {
            Some(Value::Object(m)) => m,
            Some(other) => Map::from_iter([("value".to_string(), other)]),
            None => Map::new(),
        };
        d.insert("turn_id".into(), json!(turn));
        data = Some(Value::Object(d));
    }
    if let Some(d) = data {
        out.insert("data".into(), d);
    }
    Ok(Some(Value::Object(out)))
}

/// `/name args` input naming a host command: the turn asks the host first (see
/// [`InteractiveSession`]'s command turns).
pub fn mark_input(s: &InteractiveSession, input: TurnInput) -> TurnInput {
    // Only typed input: a prompt a command or skill produced is not looked up again.
    if input.raw_input.as_deref().is_some_and(|r| r != input.text) {
        return input;
    }
    let Some(rest) = input.text.strip_prefix('/') else {
        return input;
    };
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if find(s, name).is_none() {
        return input;
    }
    let host_command = Some((name.to_string(), args.trim().to_string()));
    TurnInput {
        display_input: input.display_input.or_else(|| Some(input.text.clone())),
        raw_input: input.raw_input.or_else(|| Some(input.text.clone())),
        host_command,
        ..input
    }
}

/// Whether `command_json` names one of the session's host commands (which block their caller
/// until the host answers: a host must not run them from inside a callback).
pub fn is_host_command(s: &InteractiveSession, command_json: &str) -> bool {
    serde_json::from_str::<Value>(command_json)
        .ok()
        .and_then(|v| {
            v.get("name")
                .and_then(Value::as_str)
                .map(|n| find(s, n).is_some())
        })
        .unwrap_or(false)
}
