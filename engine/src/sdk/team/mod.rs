//! Team (a port of Robota's `agent-team`): templates and the four team tools a session gets
//! with `"team": true` in its session JSON: `listTemplateCategories`, `listTemplates`,
//! `getTemplateDetail` (read-only) and `assignTask` (runs a child session from a template).
//!
//! Outputs are Robota's: `{"categories":[…]}`, `{"templates":[…]}` and the full entry;
//! an unknown id in `getTemplateDetail` is the tool error `Template not found: <id>`.

mod assign;
pub mod templates;

use std::sync::Arc;

use serde_json::{json, Value};

pub use assign::AssignTask;
pub use templates::{Template, TemplateRegistry, DEFAULT_CATEGORY};

use crate::core::tool::Tool;
use crate::sdk::host::tools::SessionLink;
use crate::sdk::runtime::RuntimeShared;
use crate::tools::FunctionTool;

/// Names of the team tools, in the order a session gets them.
pub const TEAM_TOOL_NAMES: [&str; 4] = [
    "listTemplateCategories",
    "listTemplates",
    "getTemplateDetail",
    "assignTask",
];

/// `listTemplateCategories`' output.
pub fn categories() -> Value {
    json!({"categories":[{"id": DEFAULT_CATEGORY, "name": "Default Templates",
        "description": "Built-in assignTask templates"}]})
}

/// `listTemplates`' output (`categoryId` is accepted and ignored, as in Robota).
pub fn list(registry: &TemplateRegistry) -> Value {
    let list: Vec<Value> = registry.all().iter().map(|t| t.summary()).collect();
    json!({ "templates": list })
}

/// `getTemplateDetail`'s output, or Robota's errors.
pub fn detail(registry: &TemplateRegistry, args: &Value) -> Result<Value, String> {
    let id = args["templateId"].as_str().unwrap_or_default();
    if id.is_empty() {
        return Err("Missing required parameter: templateId".into());
    }
    registry
        .get(id)
        .map(|t| t.detail())
        .ok_or_else(|| format!("Template not found: {id}"))
}

fn read_only_tool(
    name: &str,
    description: &str,
    parameters: Value,
    f: impl Fn(Value) -> Result<Value, String> + Send + Sync + 'static,
) -> Option<Arc<dyn Tool>> {
    // The schemas are constants of this file (`each_team_tool_answers_exactly_as_the_reference`
    // lists all four tools on the wire): `None` cannot happen.
    FunctionTool::new_sync(name, description, parameters, f)
        .ok()
        .map(|t| Arc::new(t.with_read_only(true)) as Arc<dyn Tool>)
}

/// The four team tools of a session running in `cwd` (the child sessions' working directory);
/// `link` carries its host warnings and `assignTask`'s children's events; `parent` is the session.
pub fn tools(
    shared: &Arc<RuntimeShared>,
    link: &Arc<SessionLink>,
    parent: &crate::sdk::subagent::ParentCell,
    cwd: &str,
) -> Vec<Arc<dyn Tool>> {
    let reg = shared.clone();
    let reg2 = shared.clone();
    let mut out: Vec<Arc<dyn Tool>> = [
        read_only_tool(
            TEAM_TOOL_NAMES[0],
            "List the categories of agent templates available to assignTask.",
            json!({"type":"object","properties":{},"additionalProperties":false}),
            |_| Ok(categories()),
        ),
        read_only_tool(
            TEAM_TOOL_NAMES[1],
            "List the agent templates (id, name, description, categoryId) available to assignTask.",
            json!({"type":"object","properties":{"categoryId":{"type":"string",
                "description":"Category to list (currently every template is in \"default\")"}},
                "additionalProperties":false}),
            move |_| Ok(list(reg.templates())),
        ),
        read_only_tool(
            TEAM_TOOL_NAMES[2],
            "Get the full definition of an agent template (provider, model, temperature, system message).",
            json!({"type":"object","properties":{"templateId":{"type":"string",
                "description":"Template id from listTemplates"}},
                "required":["templateId"],"additionalProperties":false}),
            move |args| detail(reg2.templates(), &args),
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    out.push(Arc::new(AssignTask::new(
        shared.clone(),
        link.clone(),
        parent.clone(),
        cwd,
    )));
    out
}
