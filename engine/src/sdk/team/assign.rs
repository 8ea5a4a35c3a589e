//! `assignTask` (failures are tool results, never errors): runs `jobDescription` (plus
//! `\n\nContext: <context>` when given) in a child session built from a template and returns
//! `{"response","templateId"}`.
//!
//! The child is a session of its own: no tools, no settings, no hooks, the parent's working
//! directory, and — a deliberate fix of Robota, which never passed it — the template's
//! `systemMessage` as its system prompt. Like an `Agent` child it is visible: its events reach
//! the parent's host as `SUBAGENT` events (`agent_type` is the template id,
//! `parent_tool_call_id` the `assignTask` call), and it keeps its own transcript under the
//! parent's (`<dir>/<parent session id>/subagents/<agent id>.jsonl`) when the parent has one.
//! `provider`, `model`, `temperature` and `maxTokens` override the template's. The parent's
//! abort aborts the child. Failures are tool errors the model reads, never a failed turn:
//! `Missing required parameter: templateId` / `…: jobDescription`, `Template not found: <id>`,
//! an unknown provider, or the child's own failure (its error message). An unknown template or
//! provider is also a `WARNING` for the host (`UNKNOWN_TEMPLATE` / `UNKNOWN_PROVIDER`).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use crate::core::tool::{Tool, ToolContext, ToolResult};
use crate::core::util::prefixed_id;
use crate::sdk::config::parse_session_map;
use crate::sdk::events;
use crate::sdk::host::tools::SessionLink;
use crate::sdk::runtime::RuntimeShared;
use crate::sdk::subagent::runner::{run_relayed, ChildIdentity};
use crate::sdk::subagent::{parent_of, ParentCell};
use crate::tools::validation::SchemaValidator;

const NAME: &str = "assignTask";
const DESCRIPTION: &str = "Assign a task to a new agent created from a template (see listTemplates); the agent runs the job description and its final answer is returned.";

/// The `assignTask` tool of one session.
pub struct AssignTask {
    shared: Arc<RuntimeShared>,
    /// The parent session's event link (host warnings).
    link: Arc<SessionLink>,
    /// The parent session (its transcript directory and id), set once it exists.
    parent: ParentCell,
    cwd: String,
    parameters: Value,
    /// The types of the arguments (required ones are checked by hand, with Robota's
    /// messages).
    types: Option<SchemaValidator>,
}

fn schema(required: bool) -> Value {
    let mut s = json!({"type":"object","properties":{
        "templateId":{"type":"string","description":"Template id from listTemplates"},
        "jobDescription":{"type":"string","description":"The task for the agent"},
        "provider":{"type":"string","description":"Override the template's provider"},
        "model":{"type":"string","description":"Override the template's model"},
        "temperature":{"type":"number","minimum":0,"maximum":2,"description":"Override the template's temperature"},
        "maxTokens":{"type":"integer","minimum":1,"description":"Output token cap of the agent"},
        "context":{"type":"string","description":"Extra context appended to the job description"}
    }});
    if required {
        s["required"] = json!(["templateId", "jobDescription"]);
    }
    s
}

impl AssignTask {
    /// The tool for a session running in `cwd`.
    pub fn new(
        shared: Arc<RuntimeShared>,
        link: Arc<SessionLink>,
        parent: ParentCell,
        cwd: &str,
    ) -> Self {
        AssignTask {
            shared,
            link,
            parent,
            cwd: cwd.to_string(),
            parameters: schema(true),
            types: SchemaValidator::new(&schema(false)).ok(),
        }
    }

    /// A `WARNING` event for the host.
    fn warn(&self, code: &str, message: String) {
        self.link
            .emit(events::WARNING, json!({"code": code, "message": message}));
    }

    /// The child's session document and prompt.
    fn child(&self, args: &Value) -> Result<(Map<String, Value>, String, String), String> {
        if let Some(v) = &self.types {
            v.check_for_tool(NAME, args)?;
        }
        let arg = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let id = arg("templateId").ok_or("Missing required parameter: templateId")?;
        let job = arg("jobDescription").ok_or("Missing required parameter: jobDescription")?;
        let Some(template) = self.shared.templates().get(id) else {
            let ids: Vec<String> = self
                .shared
                .templates()
                .all()
                .iter()
                .map(|t| t.id.clone())
                .collect();
            self.warn(
                "UNKNOWN_TEMPLATE",
                format!(
                    "assignTask asked for unknown template \"{id}\" (available: {})",
                    ids.join(", ")
                ),
            );
            return Err(format!("Template not found: {id}"));
        };
        let profile = self
            .shared
            .resolve_profile(arg("provider").unwrap_or(&template.provider))
            .inspect_err(|e| self.warn("UNKNOWN_PROVIDER", format!("assignTask: {e}")))?;
        let mut doc = Map::new();
        doc.insert("provider".into(), json!(profile));
        doc.insert(
            "model".into(),
            json!(arg("model").unwrap_or(&template.model)),
        );
        doc.insert("system_prompt".into(), json!(template.system_message));
        doc.insert("tools".into(), json!([]));
        doc.insert("cwd".into(), json!(self.cwd));
        doc.insert("permission_mode".into(), json!("bypassPermissions"));
        if let Some(t) = args.get("temperature").and_then(Value::as_f64) {
            doc.insert("temperature".into(), json!(t));
        } else if let Some(t) = template.temperature {
            doc.insert("temperature".into(), json!(t));
        }
        if let Some(n) = args.get("maxTokens") {
            doc.insert("max_tokens".into(), n.clone());
        }
        let prompt = match arg("context") {
            Some(c) => format!("{job}\n\nContext: {c}"),
            None => job.to_string(),
        };
        Ok((doc, prompt, template.id.clone()))
    }
}

#[async_trait]
impl Tool for AssignTask {
    fn name(&self) -> &str {
        NAME
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let (doc, prompt, template_id) = self.child(&args)?;
        let Some(parent) = parent_of(&self.parent) else {
            return Err("the session is gone".into());
        };
        let who = ChildIdentity {
            agent_id: prefixed_id("agent"),
            agent_type: template_id.clone(),
            parent_tool_call_id: Some(ctx.call_id.clone()),
        };
        let mut cfg = parse_session_map(&doc).map_err(|e| e.message)?;
        cfg.session_id = Some(who.agent_id.clone());
        cfg.persist = false;
        // The child's model calls count on the parent's budget.
        cfg.shared_budget = self.link.budget.clone();
        cfg.transcript = parent
            .config()
            .transcript
            .map(|d| d.join(parent.session_id()).join("subagents"));
        let completed = run_relayed(&self.link, cfg, &who, prompt, &ctx.cancel).await?;
        match completed["stop_reason"].as_str() {
            Some("error") | None => Err(completed["error"]
                .as_str()
                .unwrap_or("the assigned agent failed")
                .to_string()),
            Some("aborted") => Err("Execution interrupted by user".into()),
            Some("budget") => Err(crate::sdk::config::session_budget::exhausted_message(
                self.link.budget.as_deref(),
            )),
            _ => Ok(json!({"response": completed["response"], "templateId": template_id})),
        }
    }
}
