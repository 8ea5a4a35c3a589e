//! The `replay` provider: serves a recording (`"record"`, format in [`recording`](super)) back
//! in order, offline and deterministic.
//!
//! ```json
//! {"kind":"replay","file":"session.jsonl","strict":true}
//! ```
//! Each session gets its own instance, which reads the file when the session is created (a
//! corrupt recording or one of another format version is refused there, naming the line). With
//! `strict`, a request that differs from the recorded one fails the call, naming the first
//! difference (message index, role, field).

use std::path::PathBuf;
use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::recorder::check_header;
use super::{tool_choice_str, Exchange, Line, MessageRecord, StreamItem};
use crate::core::errors::RobotaError;
use crate::core::message::Message;
use crate::core::provider::{ChatRequest, ChatResponse, Provider, StopReason, StreamSink};

/// Fields of a `replay` provider entry.
pub const KNOWN_FIELDS: [&str; 4] = ["kind", "file", "strict", "name"];

/// A validated `replay` profile.
#[derive(Debug, Clone)]
pub struct ReplayProfile {
    /// Provider name.
    pub name: String,
    /// The recording.
    pub file: PathBuf,
    /// Fail a call whose request differs from the recorded one.
    pub strict: bool,
}

impl ReplayProfile {
    /// Validates a `replay` entry (the file is read later, by [`ReplayProvider::open`]).
    pub fn parse(name: &str, value: &Value) -> Result<Self, RobotaError> {
        let bad = |field: &str, what: &str| {
            RobotaError::Configuration(format!("provider \"{name}\": field \"{field}\" {what}"))
        };
        let empty = Map::new();
        let obj = value.as_object().unwrap_or(&empty);
        if let Some(tail) = crate::core::util::unknown_field(obj, &KNOWN_FIELDS) {
            return Err(RobotaError::Configuration(format!(
                "provider \"{name}\": {tail}"
            )));
        }
        let file = match obj.get("file") {
            Some(Value::String(f)) if !f.is_empty() => PathBuf::from(f),
            None | Some(Value::Null) => return Err(bad("file", "is required for kind \"replay\"")),
            Some(_) => return Err(bad("file", "must be a non-empty string")),
        };
        let strict = match obj.get("strict") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(bad("strict", "must be a boolean")),
        };
        Ok(ReplayProfile {
            name: name.to_string(),
            file,
            strict,
        })
    }
}

/// Serves a recording back.
pub struct ReplayProvider {
    profile: ReplayProfile,
    /// Exchanges with their line numbers.
    exchanges: Vec<(usize, Box<Exchange>)>,
    windows: Vec<(String, u64)>,
    next: Mutex<usize>,
}

impl ReplayProvider {
    /// Reads the recording of `profile`; a missing, corrupt or foreign file is a configuration
    /// error naming the file and the line.
    pub fn open(profile: ReplayProfile) -> Result<Self, RobotaError> {
        let text = std::fs::read_to_string(&profile.file).map_err(|e| {
            RobotaError::Configuration(format!(
                "provider \"{}\": cannot read the recording \"{}\": {e}",
                profile.name,
                profile.file.display()
            ))
        })?;
        Self::from_text(profile, &text)
    }

    /// Parses a recording's text.
    pub fn from_text(profile: ReplayProfile, text: &str) -> Result<Self, RobotaError> {
        let at = |n: usize, what: String| {
            RobotaError::Configuration(format!(
                "provider \"{}\": recording \"{}\" line {n}: {what}",
                profile.name,
                profile.file.display()
            ))
        };
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        match lines.next() {
            Some((n, l)) => check_header(l).map_err(|e| at(n, e))?,
            None => return Err(at(1, "the file is empty (no header)".into())),
        }
        let mut exchanges = Vec::new();
        let mut windows = Vec::new();
        for (n, l) in lines {
            if l.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Line>(l).map_err(|e| at(n, e.to_string()))? {
                Line::Exchange(x) => {
                    if x.response.is_some() == x.error.is_some() {
                        return Err(at(
                            n,
                            "an exchange needs exactly one of \"response\" and \"error\"".into(),
                        ));
                    }
                    exchanges.push((n, x));
                }
                Line::ContextWindow(w) => windows.push((w.model, w.tokens)),
            }
        }
        Ok(ReplayProvider {
            profile,
            exchanges,
            windows,
            next: Mutex::new(0),
        })
    }

    /// Number of recorded model calls.
    pub fn len(&self) -> usize {
        self.exchanges.len()
    }

    /// Whether the recording holds no model call.
    pub fn is_empty(&self) -> bool {
        self.exchanges.is_empty()
    }

    fn fail(&self, message: String) -> RobotaError {
        RobotaError::Provider {
            provider: self.profile.name.clone(),
            message,
            status: None,
            recoverable: false,
        }
    }
}

/// At most 80 characters of `s`, quoted.
fn shown(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    format!("{out:?}")
}

fn json_of<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The first field in which message `got` differs from the recorded `rec`.
fn message_difference(
    rec: &MessageRecord,
    got: &Message,
) -> Option<(&'static str, String, String)> {
    if rec.role != got.role {
        return Some(("role", json_of(&rec.role), json_of(&got.role)));
    }
    let content = got.content_for_api();
    if rec.content != content {
        return Some(("content", shown(&rec.content), shown(&content)));
    }
    if rec.tool_calls != got.tool_calls {
        return Some((
            "tool_calls",
            json_of(&rec.tool_calls),
            json_of(&got.tool_calls),
        ));
    }
    if rec.tool_call_id != got.tool_call_id {
        return Some((
            "tool_call_id",
            json_of(&rec.tool_call_id),
            json_of(&got.tool_call_id),
        ));
    }
    if rec.name != got.name {
        return Some(("name", json_of(&rec.name), json_of(&got.name)));
    }
    if rec.parts != got.parts {
        return Some(("parts", json_of(&rec.parts), json_of(&got.parts)));
    }
    if rec.native.as_ref() != got.native.as_deref() {
        return Some(("native", json_of(&rec.native), json_of(&got.native)));
    }
    None
}

/// The first difference between the recorded request and `req`, described.
pub fn first_difference(x: &Exchange, req: &ChatRequest<'_>) -> Option<String> {
    let rec = &x.request;
    if rec.model != req.model {
        return Some(format!(
            "field \"model\": recorded {:?}, got {:?}",
            rec.model, req.model
        ));
    }
    for (i, (r, g)) in rec.messages.iter().zip(req.messages.iter()).enumerate() {
        if let Some((field, a, b)) = message_difference(r, g) {
            return Some(format!(
                "message {i} (role {}): field \"{field}\": recorded {a}, got {b}",
                json_of(&r.role).trim_matches('"')
            ));
        }
    }
    if rec.messages.len() != req.messages.len() {
        return Some(format!(
            "message count: recorded {}, got {}",
            rec.messages.len(),
            req.messages.len()
        ));
    }
    if !rec
        .tools
        .iter()
        .map(String::as_str)
        .eq(req.tools.iter().map(|t| t.name.as_str()))
    {
        let got: Vec<&str> = req.tools.iter().map(|t| t.name.as_str()).collect();
        return Some(format!(
            "field \"tools\": recorded {}, got {}",
            json_of(&rec.tools),
            json_of(&got)
        ));
    }
    let choice = tool_choice_str(req.tool_choice);
    if rec.tool_choice != choice {
        return Some(format!(
            "field \"tool_choice\": recorded {}, got {}",
            json_of(&rec.tool_choice),
            json_of(&choice)
        ));
    }
    let pairs = [
        ("max_tokens", rec.max_tokens, req.max_tokens),
        ("thinking_budget", rec.thinking_budget, req.thinking_budget),
    ];
    for (field, a, b) in pairs {
        if a != b {
            return Some(format!(
                "field \"{field}\": recorded {}, got {}",
                json_of(&a),
                json_of(&b)
            ));
        }
    }
    if rec.temperature != req.temperature {
        return Some(format!(
            "field \"temperature\": recorded {}, got {}",
            json_of(&rec.temperature),
            json_of(&req.temperature)
        ));
    }
    None
}

#[async_trait]
impl Provider for ReplayProvider {
    fn name(&self) -> &str {
        &self.profile.name
    }

    async fn context_window(&self, model: &str) -> Option<u64> {
        self.windows
            .iter()
            .find(|(m, _)| m == model)
            .map(|(_, t)| *t)
    }

    async fn chat(
        &self,
        request: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, RobotaError> {
        let idx = {
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            let i = *next;
            *next += 1;
            i
        };
        let Some((line, x)) = self.exchanges.get(idx) else {
            return Err(self.fail(format!(
                "replay: the recording \"{}\" has no model call {} (it holds {})",
                self.profile.file.display(),
                idx + 1,
                self.exchanges.len()
            )));
        };
        if self.profile.strict {
            if let Some(d) = first_difference(x, &request) {
                return Err(self.fail(format!(
                    "replay: request {} differs from the recording (line {line}): {d}",
                    idx + 1
                )));
            }
        }
        let mut partial = String::new();
        for item in &x.stream {
            if cancel.is_cancelled() {
                return Ok(ChatResponse {
                    content: partial,
                    stop_reason: StopReason::Aborted,
                    ..Default::default()
                });
            }
            match item {
                StreamItem::Text(t) => {
                    partial.push_str(t);
                    sink.on_text(t);
                }
                StreamItem::Thinking(t) => sink.on_thinking(t),
                StreamItem::ServerTool { name, input } => sink.on_server_tool(name, input),
            }
        }
        match (&x.response, &x.error) {
            (Some(r), _) => Ok(r.to_response()),
            (None, Some(e)) => Err(e.to_error()),
            (None, None) => Err(self.fail("replay: empty exchange".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn profile() -> ReplayProfile {
        ReplayProfile::parse("r", &json!({"kind":"replay","file":"x.jsonl"})).unwrap()
    }

    fn err(text: &str) -> String {
        match ReplayProvider::from_text(profile(), text) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn bad_recordings_name_the_line() {
        assert!(err("").contains("line 1: the file is empty"));
        assert!(err("{\"x\":1}\n").contains("line 1: not a robota recording header"));
        assert!(
            err("{\"robota_recording\":2,\"library\":\"9.9.9\"}\n").contains(
                "line 1: recording format version 2 (written by robota 9.9.9) is not supported"
            )
        );
        let e = err("{\"robota_recording\":1}\n\n{\"exchange\":{\"request\":5}}\n");
        assert!(
            e.starts_with("Configuration Error: provider \"r\": recording \"x.jsonl\" line 3: "),
            "{e}"
        );
        let e = err("{\"robota_recording\":1}\n{\"exchange\":{\"request\":{\"model\":\"m\",\"messages\":[]}}}\n");
        assert!(
            e.contains("line 2: an exchange needs exactly one of"),
            "{e}"
        );
        assert_eq!(err("{\"robota_recording\":1}\n"), "");
    }

    #[test]
    fn bad_profiles_name_the_field() {
        let e = |v: Value| ReplayProfile::parse("r", &v).unwrap_err().to_string();
        assert!(e(json!({"kind":"replay"})).contains("field \"file\" is required"));
        assert!(e(json!({"kind":"replay","file":"a","strict":1}))
            .contains("field \"strict\" must be a boolean"));
        assert!(e(json!({"kind":"replay","file":"a","x":1}))
            .contains("field \"x\" is not a known field"));
    }
}
