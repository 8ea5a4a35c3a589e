//! The session JSON's `"agents"` (subagent definitions; the `subagent` folder runs them): the
//! definition type, its document form, and the subagent part of a session's parameters.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::core::known_keys::keys;
use crate::sdk::config::document::AgentDocument;
use crate::sdk::config::fields::Fields;
use crate::sdk::config::{check_strict, read};
use crate::sdk::error::{SdkError, SdkResult};

/// One agent definition.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDef {
    /// Unique name (the Agent tool's `subagent_type`).
    pub name: String,
    /// What it is for (shown to the model in the Agent tool's description).
    pub description: String,
    /// The body: the start of the child's system prompt.
    pub prompt: String,
    /// Model override (shortcuts `sonnet`, `haiku`, `opus` expanded); `None` = the parent's.
    pub model: Option<String>,
    /// Round cap of the child (`None` = unlimited).
    pub max_turns: Option<i64>,
    /// Allowlist of tool names (`None` = every tool of the parent).
    pub tools: Option<Vec<String>>,
    /// Denylist of tool names.
    pub disallowed_tools: Vec<String>,
}

/// The subagent part of a session's parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionAgents {
    /// The session JSON's `"agents"` (`None` when absent).
    pub session: Option<Vec<AgentDef>>,
    /// Every definition the session can use (after assembly).
    pub all: Arc<Vec<AgentDef>>,
    /// Nesting depth (0 = a host's session).
    pub depth: u32,
}

impl SessionAgents {
    /// Parses `"agents"` from the session document.
    pub fn parse(&mut self, what: &str, map: &Map<String, Value>) -> SdkResult<()> {
        if let Some(v) = map.field("agents").filter(|v| !v.is_null()) {
            self.session = Some(parse(documents(what, v)?));
        }
        Ok(())
    }

    /// Writes `"agents"` back into a session document.
    pub fn to_fields(&self, m: &mut Map<String, Value>) {
        if let Some(s) = &self.session {
            m.insert("agents".into(), to_json(s));
        }
    }
}

/// Expands the model shortcuts of Robota (`sonnet`, `haiku`, `opus`).
pub fn expand_model(m: &str) -> String {
    match m {
        "sonnet" => "claude-sonnet-4-6".into(),
        "haiku" => "claude-haiku-4-5".into(),
        "opus" => "claude-opus-4-6".into(),
        other => other.into(),
    }
}

/// The session JSON's `"agents"` as their documents, in document order: an object of objects
/// with no unknown keys, each read into an [`AgentDocument`] field by field (a wrong shape is a
/// config error naming the agent and the field).
pub fn documents(what: &str, v: &Value) -> SdkResult<Vec<(String, AgentDocument)>> {
    let Value::Object(map) = v else {
        return Err(SdkError::config(format!(
            "{what}: field \"agents\" must be an object keyed by agent name"
        )));
    };
    map.iter()
        .map(|(name, d)| Ok((name.clone(), document(what, name, d)?)))
        .collect()
}

/// One agent's document.
fn document(what: &str, name: &str, d: &Value) -> SdkResult<AgentDocument> {
    let w = format!("{what}: agent \"{name}\"");
    let Value::Object(d) = d else {
        return Err(SdkError::config(format!(
            "{w} must be {{\"description\",\"prompt\",\"tools\"?,\"model\"?}}"
        )));
    };
    check_strict(&w, d, keys::<AgentDocument>())?;
    if name.trim().is_empty() {
        return Err(SdkError::config(format!(
            "{what}: field \"agents\": an agent name must not be empty"
        )));
    }
    let tools = read::field(&w, d, "tools", "an array of tool names")?;
    let description = read::field(&w, d, "description", "a string")?;
    let prompt = read::field(&w, d, "prompt", "a string")?
        .ok_or_else(|| SdkError::config(format!("{w}: missing required field \"prompt\"")))?;
    Ok(AgentDocument {
        description,
        prompt,
        tools,
        model: read::field(&w, d, "model", "a string")?,
        strict: read::field(&w, d, "strict", "true or false")?,
    })
}

/// The definitions of the documents (model shortcuts expanded).
pub fn parse(docs: Vec<(String, AgentDocument)>) -> Vec<AgentDef> {
    docs.into_iter()
        .map(|(name, d)| AgentDef {
            name,
            description: d.description.unwrap_or_default(),
            prompt: d.prompt,
            model: d.model.map(|m| expand_model(&m)),
            max_turns: None,
            tools: d.tools,
            disallowed_tools: Vec::new(),
        })
        .collect()
}

/// The session document's form of session-JSON definitions (snapshot/fork).
pub fn to_json(defs: &[AgentDef]) -> Value {
    let mut m = Map::new();
    for d in defs {
        let mut e = Map::new();
        e.insert("description".into(), Value::from(d.description.as_str()));
        e.insert("prompt".into(), Value::from(d.prompt.as_str()));
        if let Some(t) = &d.tools {
            e.insert("tools".into(), Value::from(t.clone()));
        }
        if let Some(mo) = &d.model {
            e.insert("model".into(), Value::from(mo.as_str()));
        }
        m.insert(d.name.clone(), Value::Object(e));
    }
    Value::Object(m)
}
