//! Shared helpers for the session and hook tests: scripted sessions, recording tools,
//! an approval handler and an observer that record what they saw.
#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use robota_engine::core::hooks::{HookDefinition, HookEvent, HookGroup, HooksConfig};
use robota_engine::core::tool::{Tool, ToolContext, ToolResult};
use robota_engine::providers::scripted::ScriptedProvider;
use robota_engine::session::{
    ApprovalDecision, ApprovalHandler, ContextState, Session, SessionObserver, SessionOptions,
    ToolEndResult,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// A scripted provider from a JSON list of turns (fallback: echo).
pub fn scripted(turns: Value) -> Arc<ScriptedProvider> {
    Arc::new(ScriptedProvider::from_json(&json!({ "turns": turns })).unwrap())
}

/// One turn calling `tool` with `args`, then a final answer turn.
pub fn call_then_answer(tool: &str, args: Value, answer: &str) -> Value {
    json!([
        {"tool_calls":[{"id":"call_1","name":tool,"arguments":args}]},
        {"text": answer}
    ])
}

/// A tool that records its arguments and answers `ran:<Name>`.
pub struct RecTool {
    pub name: String,
    pub schema: Value,
    pub calls: Mutex<Vec<Value>>,
    pub answer: Mutex<Option<ToolResult>>,
}

impl RecTool {
    pub fn new(name: &str) -> Arc<Self> {
        Arc::new(RecTool {
            name: name.to_string(),
            schema: json!({"type":"object","properties":{}}),
            calls: Mutex::new(Vec::new()),
            answer: Mutex::new(None),
        })
    }

    pub fn answering(name: &str, answer: ToolResult) -> Arc<Self> {
        let t = Self::new(name);
        *t.answer.lock().unwrap() = Some(answer);
        t
    }

    pub fn count(&self) -> usize {
        self.calls.lock().unwrap().len()
    }
}

#[async_trait]
impl Tool for RecTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "recording test tool"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    async fn execute(&self, args: Value, _ctx: &ToolContext) -> ToolResult {
        self.calls.lock().unwrap().push(args);
        match &*self.answer.lock().unwrap() {
            Some(a) => a.clone(),
            None => Ok(Value::String(format!("ran:{}", self.name))),
        }
    }
}

/// Answers every approval request with a fixed decision and records the requests.
pub struct FixedApproval {
    pub decision: ApprovalDecision,
    pub asked: Mutex<Vec<(String, Value)>>,
}

impl FixedApproval {
    pub fn new(decision: ApprovalDecision) -> Arc<Self> {
        Arc::new(FixedApproval {
            decision,
            asked: Mutex::new(Vec::new()),
        })
    }

    pub fn count(&self) -> usize {
        self.asked.lock().unwrap().len()
    }
}

#[async_trait]
impl ApprovalHandler for FixedApproval {
    async fn request(
        &self,
        tool: &str,
        args: &Value,
        _cancel: CancellationToken,
    ) -> ApprovalDecision {
        self.asked
            .lock()
            .unwrap()
            .push((tool.to_string(), args.clone()));
        self.decision
    }
}

/// Records observer callbacks as readable lines.
#[derive(Default)]
pub struct RecObserver {
    pub lines: Mutex<Vec<String>>,
    pub contexts: Mutex<Vec<ContextState>>,
    pub warnings: Mutex<Vec<String>>,
    pub outputs: Mutex<Vec<String>>,
}

impl SessionObserver for RecObserver {
    fn on_tool_start(&self, call_id: &str, tool: &str, _args: &Value, _schema: &Value) {
        self.lines
            .lock()
            .unwrap()
            .push(format!("start {call_id} {tool}"));
    }
    fn on_tool_end(
        &self,
        call_id: &str,
        tool: &str,
        _args: &Value,
        result: ToolEndResult,
        output: &str,
    ) {
        self.lines
            .lock()
            .unwrap()
            .push(format!("end {call_id} {tool} {result:?}"));
        self.outputs.lock().unwrap().push(output.to_string());
    }
    fn on_context_update(&self, state: &ContextState) {
        self.contexts.lock().unwrap().push(*state);
    }
    fn on_warning(&self, message: &str) {
        self.warnings.lock().unwrap().push(message.to_string());
    }
}

/// Session options over `provider` in `cwd` with `tools`.
pub fn options(
    provider: Arc<ScriptedProvider>,
    cwd: &Path,
    tools: Vec<Arc<dyn Tool>>,
) -> SessionOptions {
    let mut o = SessionOptions::new(provider, "test-model");
    o.cwd = cwd.to_path_buf();
    o.tools = tools;
    o.system_message = "You are a test assistant.".into();
    o
}

/// The content of the tool message answering the first tool call.
pub fn tool_message(session: &Session) -> String {
    session
        .messages()
        .iter()
        .find(|m| m.role == robota_engine::core::message::Role::Tool)
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

/// A hooks config with one command hook for `event`.
pub fn command_hook(event: HookEvent, matcher: &str, command: &str) -> HooksConfig {
    HooksConfig::new().with_group(
        event,
        HookGroup::new(matcher, vec![HookDefinition::command(command)]),
    )
}

/// A current-thread runtime.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The head of Robota's compaction summary prompt (what the summarising model is asked).
pub const PROMPT_HEAD: &str = "Summarize the following conversation concisely, preserving:\n- User's original requests and goals\n- Key decisions and conclusions\n- Important code changes and file paths\n- Current task status and next steps\n";
/// Its tail for a conversation of `user: hello` / `assistant: hi there`.
pub const PROMPT_TAIL: &str = "Drop verbose tool outputs, debugging steps, and exploratory work that didn't lead to results.\n\nConversation:\nuser: hello\nassistant: hi there";
