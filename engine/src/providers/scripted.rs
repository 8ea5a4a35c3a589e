//! The `scripted` provider: deterministic and offline, driven by a JSON script of turns.
//!
//! ```json
//! {"kind":"scripted","turns":[
//!   {"deltas":["Hel","lo"],"delay_ms":5,"usage":{"input_tokens":10,"output_tokens":2}},
//!   {"text":"Reading.","tool_calls":[{"id":"call_0","name":"Read","arguments":{"filePath":"/a"}}]},
//!   {"error":{"kind":"provider","message":"boom"}},
//!   {"deltas":["partial"],"hang":true},
//!   {"text":"I can't help with that.","stop_reason":"refusal"}
//! ],"fallback":"echo"}
//! ```
//! When the turns run out, `fallback` decides: `"echo"` (default) answers `offline:<last user text>`,
//! `"repeat_last"` replays the last turn, `"error"` fails the call.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::core::errors::RobotaError;
use crate::core::message::{Message, Role, ToolCall};
use crate::core::provider::{
    ChatRequest, ChatResponse, Provider, ProviderCapabilities, StopReason, StreamSink, ToolSchema,
};
use crate::core::tokens::TokenUsage;
use crate::core::tool_choice::ToolChoice;

/// A scripted tool call.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedToolCall {
    /// Call id (default `call_<n>` by position).
    #[serde(default)]
    pub id: Option<String>,
    /// Tool name.
    pub name: String,
    /// Arguments: an object, or a raw JSON string (may be invalid on purpose).
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// A scripted error.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedError {
    /// `provider` (default), `auth`, `rate_limit`, `network`, `model`.
    #[serde(default)]
    pub kind: Option<String>,
    /// Message.
    pub message: String,
}

/// Scripted usage.
#[derive(Debug, Clone, Copy, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ScriptedUsage {
    /// Input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Prompt tokens read from the cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the cache.
    #[serde(default)]
    pub cache_creation_tokens: u64,
}

/// One scripted turn.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ScriptedTurn {
    /// Full text, streamed as one delta when `deltas` is absent.
    #[serde(default)]
    pub text: Option<String>,
    /// Text deltas, streamed in order.
    #[serde(default)]
    pub deltas: Option<Vec<String>>,
    /// Thinking deltas, streamed before the text.
    #[serde(default)]
    pub thinking: Option<Vec<String>>,
    /// Delay before each delta (ms).
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Tool calls returned after the text.
    #[serde(default)]
    pub tool_calls: Option<Vec<ScriptedToolCall>>,
    /// Usage.
    #[serde(default)]
    pub usage: Option<ScriptedUsage>,
    /// Fail the call instead of answering (after streaming any deltas).
    #[serde(default)]
    pub error: Option<ScriptedError>,
    /// After streaming, wait until aborted and return the partial text.
    #[serde(default)]
    pub hang: bool,
    /// Stop reason (`end_turn`, `tool_use`, `max_tokens`, `refusal`); by default `tool_use`
    /// with tool calls, else `end_turn`.
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
}

/// The keys of a `scripted` provider entry (the [`Script`] fields).
pub const SCRIPT_KEYS: [&str; 4] = ["kind", "turns", "fallback", "name"];

/// The keys of a scripted turn (the [`ScriptedTurn`] fields).
pub const TURN_KEYS: [&str; 9] = [
    "text",
    "deltas",
    "thinking",
    "delay_ms",
    "tool_calls",
    "usage",
    "error",
    "hang",
    "stop_reason",
];

/// The whole script.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Always `"scripted"` when given.
    #[serde(default)]
    pub kind: Option<String>,
    /// Turns in order; one per provider call.
    #[serde(default)]
    pub turns: Vec<ScriptedTurn>,
    /// What to do when the turns run out: `echo` (default), `repeat_last`, `error`.
    #[serde(default)]
    pub fallback: Option<String>,
    /// Provider name reported (default `scripted`).
    #[serde(default)]
    pub name: Option<String>,
}

/// What a scripted provider was asked, recorded for assertions.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// Messages as sent (content with the interrupted suffix applied).
    pub messages: Vec<Message>,
    /// Tool schemas.
    pub tools: Vec<ToolSchema>,
    /// Model id.
    pub model: String,
    /// The call's tool choice.
    pub tool_choice: ToolChoice,
}

/// How many recent requests are kept for [`ScriptedProvider::requests`].
pub const RECORDED_REQUESTS_KEPT: usize = 256;

struct Recorded {
    messages: Vec<Arc<Message>>,
    tools: Vec<Arc<ToolSchema>>,
    model: String,
    tool_choice: ToolChoice,
}

/// The deterministic offline provider.
pub struct ScriptedProvider {
    name: String,
    script: Script,
    state: Mutex<(usize, VecDeque<Recorded>)>,
    /// Requests are kept for [`Self::requests`] (each copies the history it was sent).
    record: bool,
}

impl ScriptedProvider {
    /// Builds a provider from a script.
    pub fn new(script: Script) -> Result<Self, RobotaError> {
        match script.fallback.as_deref() {
            None | Some("echo") | Some("repeat_last") | Some("error") => {}
            Some(other) => {
                return Err(RobotaError::Configuration(format!(
                    "scripted provider: \"fallback\" must be \"echo\", \"repeat_last\" or \"error\", got \"{other}\""
                )))
            }
        }
        let name = script
            .name
            .clone()
            .unwrap_or_else(|| "scripted".to_string());
        Ok(ScriptedProvider {
            name,
            script,
            state: Mutex::new((0, VecDeque::new())),
            record: true,
        })
    }

    /// Parses a script from JSON (the provider config object).
    pub fn from_json(value: &Value) -> Result<Self, RobotaError> {
        let script: Script = serde_json::from_value(value.clone()).map_err(|e| {
            RobotaError::Configuration(format!("scripted provider: invalid script: {e}"))
        })?;
        Self::new(script)
    }

    /// A provider answering these turns in order.
    pub fn with_turns(turns: Vec<ScriptedTurn>) -> Self {
        ScriptedProvider {
            name: "scripted".into(),
            script: Script {
                turns,
                ..Default::default()
            },
            state: Mutex::new((0, VecDeque::new())),
            record: true,
        }
    }

    /// A provider that keeps no requests ([`Self::requests`] is empty): one nobody can ask for
    /// them (a runtime's, made from its config), which then costs no copy of the history per
    /// call.
    pub fn without_recording(mut self) -> Self {
        self.record = false;
        self
    }

    /// The most recent requests (up to [`RECORDED_REQUESTS_KEPT`]), messages as the provider
    /// saw them (interrupted suffix applied).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        let Ok(st) = self.state.lock() else {
            return Vec::new();
        };
        st.1.iter()
            .map(|r| RecordedRequest {
                messages: r
                    .messages
                    .iter()
                    .map(|m| {
                        let mut c = (**m).clone();
                        c.content = m.content_for_api().into_owned();
                        c
                    })
                    .collect(),
                tools: r.tools.iter().map(|t| (**t).clone()).collect(),
                model: r.model.clone(),
                tool_choice: r.tool_choice.clone(),
            })
            .collect()
    }

    /// Number of calls received.
    pub fn call_count(&self) -> usize {
        self.state.lock().map(|s| s.0).unwrap_or(0)
    }

    fn next_turn(&self, request: &ChatRequest<'_>) -> Result<ScriptedTurn, RobotaError> {
        let mut st = self
            .state
            .lock()
            .map_err(|_| RobotaError::provider(&self.name, "scripted state poisoned"))?;
        if self.record {
            if st.1.len() == RECORDED_REQUESTS_KEPT {
                st.1.pop_front();
            }
            st.1.push_back(Recorded {
                messages: request.messages.to_vec(),
                tools: request.tools.to_vec(),
                model: request.model.to_string(),
                tool_choice: request.tool_choice.clone(),
            });
        }
        let idx = st.0;
        st.0 += 1;
        if let Some(t) = self.script.turns.get(idx) {
            return Ok(t.clone());
        }
        match self.script.fallback.as_deref() {
            Some("error") => Err(RobotaError::provider(
                &self.name,
                format!("scripted provider has no turn {}", idx + 1),
            )),
            Some("repeat_last") if !self.script.turns.is_empty() => {
                Ok(self.script.turns.last().cloned().unwrap_or_default())
            }
            _ => {
                let last_user = request
                    .messages
                    .iter()
                    .rev()
                    .find(|m| m.role == Role::User)
                    .map_or("", |m| m.content.as_str());
                Ok(ScriptedTurn {
                    text: Some(format!("offline:{last_user}")),
                    ..Default::default()
                })
            }
        }
    }
}

fn to_error(provider: &str, e: &ScriptedError) -> RobotaError {
    match e.kind.as_deref() {
        Some("auth") => RobotaError::Authentication(e.message.clone()),
        Some("rate_limit") => RobotaError::RateLimit {
            message: e.message.clone(),
            retry_after: None,
        },
        Some("network") => RobotaError::Network(e.message.clone()),
        Some("model") => RobotaError::ModelNotAvailable {
            model: e.message.clone(),
            provider: provider.to_string(),
        },
        _ => RobotaError::provider(provider, e.message.clone()),
    }
}

/// Sleeps `ms` unless cancelled; returns false when cancelled.
async fn pause(ms: Option<u64>, cancel: &CancellationToken) -> bool {
    match ms {
        Some(ms) if ms > 0 => tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(ms)) => true,
            _ = cancel.cancelled() => false,
        },
        _ => !cancel.is_cancelled(),
    }
}

#[async_trait]
impl Provider for ScriptedProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> ProviderCapabilities {
        ProviderCapabilities::default()
    }

    async fn chat(
        &self,
        request: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, RobotaError> {
        let turn = self.next_turn(&request)?;
        let mut content = String::new();
        let aborted = |content: String| {
            Ok(ChatResponse {
                content,
                stop_reason: StopReason::Aborted,
                ..Default::default()
            })
        };
        for t in turn.thinking.iter().flatten() {
            if !pause(turn.delay_ms, &cancel).await {
                return aborted(content);
            }
            sink.on_thinking(t);
        }
        let single;
        let deltas: &[String] = match (&turn.deltas, &turn.text) {
            (Some(d), _) => d,
            (None, Some(t)) => {
                single = [t.clone()];
                &single
            }
            (None, None) => &[],
        };
        for d in deltas {
            if !pause(turn.delay_ms, &cancel).await {
                return aborted(content);
            }
            content.push_str(d);
            sink.on_text(d);
        }
        if turn.hang {
            cancel.cancelled().await;
            return aborted(content);
        }
        if let Some(e) = &turn.error {
            return Err(to_error(&self.name, e));
        }
        if cancel.is_cancelled() {
            return aborted(content);
        }
        let tool_calls: Vec<ToolCall> = turn
            .tool_calls
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, c)| {
                let args = match &c.arguments {
                    None => "{}".to_string(),
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                };
                ToolCall::new(
                    c.id.clone().unwrap_or_else(|| format!("call_{i}")),
                    c.name.clone(),
                    args,
                )
            })
            .collect();
        let usage = turn.usage.map(|u| TokenUsage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_read_tokens: u.cache_read_tokens,
            cache_creation_tokens: u.cache_creation_tokens,
            ..Default::default()
        });
        let stop_reason = match turn.stop_reason {
            Some(s) => s,
            None if tool_calls.is_empty() => StopReason::EndTurn,
            None => StopReason::ToolUse,
        };
        Ok(ChatResponse {
            content,
            tool_calls,
            usage,
            stop_reason,
            native: None,
        })
    }
}
