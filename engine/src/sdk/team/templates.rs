//! Team templates (`general` and `task_coordinator` built in): the two the library ships with and
//! the ones a host registers at runtime (`robota_runtime_register_template`), looked up by id when
//! a team tool runs (so a template registered after a session was created is visible to it).
//!
//! A template document: `{"id","name","provider","model","systemMessage"}` (non-empty strings,
//! required), `"description"?` (string), `"temperature"?` (0 to 2), plus `"v"`/`"strict"` as in
//! every document. `provider` names a provider profile of the runtime config, or a provider kind
//! (`"openai"`, `"anthropic"`, …: the first profile of that kind, by name). Ids are unique per
//! runtime: registering an id that exists (a built-in or an earlier registration) is refused.

use std::sync::{Arc, RwLock};

use serde_json::{json, Map, Value};

use crate::sdk::config::{check_strict, parse_object};
use crate::sdk::error::{SdkError, SdkResult};

/// The category every template belongs to (`listTemplateCategories`).
pub const DEFAULT_CATEGORY: &str = "default";

/// One template (`ITemplateEntry`).
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// Unique id (`templateId`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// What it is for (omitted from outputs when absent).
    pub description: Option<String>,
    /// Provider profile name or provider kind.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// The child session's system prompt.
    pub system_message: String,
}

/// The built-ins, exactly as Robota's `templates.json`.
const BUILTIN: [(&str, &str, &str, &str, &str, f64, &str); 2] = [
    (
        "general",
        "General Purpose",
        "Versatile agent for broad tasks",
        "openai",
        "gpt-4o-mini",
        0.5,
        "You are a capable assistant. Solve tasks clearly and accurately.",
    ),
    (
        "task_coordinator",
        "Task Coordinator",
        "Break down and coordinate tasks",
        "openai",
        "gpt-4o-mini",
        0.6,
        "You coordinate tasks, delegate when needed, and integrate results.",
    ),
];

const KEYS: [&str; 8] = [
    "strict",
    "id",
    "name",
    "description",
    "provider",
    "model",
    "temperature",
    "systemMessage",
];

fn string_field(
    w: &str,
    map: &Map<String, Value>,
    key: &str,
    required: bool,
) -> SdkResult<Option<String>> {
    match map.get(key) {
        None | Some(Value::Null) if required => Err(SdkError::config(format!(
            "{w}: missing required field \"{key}\""
        ))),
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if required && s.trim().is_empty() => Err(SdkError::config(
            format!("{w}: field \"{key}\" must be a non-empty string"),
        )),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(SdkError::config(format!(
            "{w}: field \"{key}\" must be a string"
        ))),
    }
}

impl Template {
    /// Parses a template document (see the module doc); errors name the field.
    pub fn from_json(text: &str) -> SdkResult<Template> {
        const W: &str = "template_json";
        let map = parse_object(W, text)?;
        check_strict(W, &map, &KEYS)?;
        let req = |k: &str| string_field(W, &map, k, true).map(Option::unwrap_or_default);
        let temperature =
            match map.get("temperature") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_f64().filter(|t| (0.0..=2.0).contains(t)).ok_or_else(
                    || {
                        SdkError::config(format!(
                            "{W}: field \"temperature\" must be a number from 0 to 2"
                        ))
                    },
                )?),
            };
        Ok(Template {
            id: req("id")?,
            name: req("name")?,
            description: string_field(W, &map, "description", false)?,
            provider: req("provider")?,
            model: req("model")?,
            temperature,
            system_message: req("systemMessage")?,
        })
    }

    /// The full entry (`getTemplateDetail`), keys in Robota's order.
    pub fn detail(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("name".into(), json!(self.name));
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        m.insert("provider".into(), json!(self.provider));
        m.insert("model".into(), json!(self.model));
        if let Some(t) = self.temperature {
            m.insert("temperature".into(), json!(t));
        }
        m.insert("systemMessage".into(), json!(self.system_message));
        Value::Object(m)
    }

    /// The `listTemplates` entry: `{id, name, description, categoryId}`.
    pub fn summary(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("name".into(), json!(self.name));
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        m.insert("categoryId".into(), json!(DEFAULT_CATEGORY));
        Value::Object(m)
    }
}

/// The templates of one runtime: the built-ins first, then registrations in order.
#[derive(Debug)]
pub struct TemplateRegistry {
    list: RwLock<Vec<Arc<Template>>>,
}

impl Default for TemplateRegistry {
    fn default() -> Self {
        let list = BUILTIN
            .iter()
            .map(|&(id, name, description, provider, model, t, system)| {
                Arc::new(Template {
                    id: id.into(),
                    name: name.into(),
                    description: Some(description.into()),
                    provider: provider.into(),
                    model: model.into(),
                    temperature: Some(t),
                    system_message: system.into(),
                })
            })
            .collect();
        TemplateRegistry {
            list: RwLock::new(list),
        }
    }
}

impl TemplateRegistry {
    /// Adds a template; an id that exists is refused (`ROBOTA_E_INVALID_CONFIG`).
    pub fn register(&self, template: Template) -> SdkResult<()> {
        let mut list = self.list.write().unwrap_or_else(|p| p.into_inner());
        if list.iter().any(|t| t.id == template.id) {
            return Err(SdkError::config(format!(
                "template_json: template \"{}\" is already registered on this runtime (ids are unique; built-in templates cannot be replaced)",
                template.id
            )));
        }
        list.push(Arc::new(template));
        Ok(())
    }

    /// All templates, built-ins first.
    pub fn all(&self) -> Vec<Arc<Template>> {
        self.list.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The template `id`.
    pub fn get(&self, id: &str) -> Option<Arc<Template>> {
        self.list
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|t| t.id == id)
            .cloned()
    }
}
