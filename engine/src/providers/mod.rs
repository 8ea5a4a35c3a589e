//! Concrete providers behind [`crate::core::provider::Provider`], one file each, plus the shared
//! HTTP layer ([`http`]), SSE parser ([`sse`]) and the factory used by the runtime.
//!
//! A runtime config's `providers` map holds one entry per provider:
//! `{"kind":"anthropic"|"openai"|"openai-compatible"|"openai-responses"|"azure-openai"|"gemini"|
//! "scripted"|"replay","base_url"?,"api_key"?,
//! "headers"?,"timeout_ms"?,"max_retries"?,...}` (see [`config::KNOWN_FIELDS`]); build each with
//! [`create_provider`] over one [`new_http_client`] per runtime.

pub mod anthropic;
pub mod azure;
#[cfg(test)]
mod body_cases;
pub mod config;
pub mod context_window;
pub mod convert;
pub mod errors;
pub mod gemini;
pub mod http;
mod json_reader;
mod merged;
pub mod openai;
pub mod openai_responses;
pub mod output_format;
#[cfg(test)]
mod prefix_tests;
pub mod recording;
pub mod scripted;
pub mod sse;
#[cfg(test)]
mod sse_tests;
pub mod stream;
pub mod whole;

use crate::core::env_ref::EnvVars;
use std::sync::Arc;

use serde_json::Value;

pub use anthropic::AnthropicProvider;
pub use config::{HttpProviderConfig, ProviderKind};
pub use context_window::ContextWindows;
pub use gemini::GeminiProvider;
pub use http::{new_http_client, set_thread_client, with_caller_client};
pub use openai::OpenAiProvider;
pub use scripted::ScriptedProvider;

use crate::core::errors::RobotaError;
use crate::core::provider::Provider;

/// Builds the provider `name` from one entry of the runtime config's `providers` map.
/// HTTP kinds share `client` (the runtime's pool); `scripted` takes the entry as its script.
/// An unknown kind or a bad field is a [`RobotaError::Configuration`] naming provider and field.
pub fn create_provider(
    name: &str,
    config: &Value,
    client: &reqwest::Client,
) -> Result<Arc<dyn Provider>, RobotaError> {
    create_provider_in(name, config, client, &EnvVars::process())
}

/// [`create_provider`] with `$ENV:NAME` keys looked up in `env` (variables passed explicitly
/// first, then the process environment).
pub fn create_provider_in(
    name: &str,
    config: &Value,
    client: &reqwest::Client,
    env: &EnvVars,
) -> Result<Arc<dyn Provider>, RobotaError> {
    create_provider_with(name, config, client, env, &Arc::new(ContextWindows::new()))
}

/// [`create_provider_in`] sharing the runtime's cache of served context windows.
pub fn create_provider_with(
    name: &str,
    config: &Value,
    client: &reqwest::Client,
    env: &EnvVars,
    windows: &Arc<ContextWindows>,
) -> Result<Arc<dyn Provider>, RobotaError> {
    let obj = config.as_object().ok_or_else(|| {
        RobotaError::Configuration(format!("provider \"{name}\": entry must be a JSON object"))
    })?;
    let kind = match obj.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        Some(_) => {
            return Err(RobotaError::Configuration(format!(
                "provider \"{name}\": field \"kind\" must be a string"
            )))
        }
        None => {
            return Err(RobotaError::Configuration(format!(
                "provider \"{name}\": field \"kind\" is required ({})",
                ProviderKind::list(", ", " or ")
            )))
        }
    };
    let Some(kind) = ProviderKind::parse(kind) else {
        return Err(RobotaError::Configuration(format!(
            "provider \"{name}\": field \"kind\" has unknown value \"{kind}\" (expected {})",
            ProviderKind::list(", ", " or ")
        )));
    };
    let http = || {
        HttpProviderConfig::parse(name, kind, config).map(|mut c| {
            c.env = env.clone();
            c
        })
    };
    Ok(match kind {
        // Shared as a `dyn Provider`: nobody can ask it for its requests.
        ProviderKind::Scripted => Arc::new(scripted_provider(name, config)?.without_recording()),
        ProviderKind::Replay => Arc::new(recording::replay::ReplayProvider::open(
            recording::replay::ReplayProfile::parse(name, config)?,
        )?),
        ProviderKind::Anthropic => Arc::new(AnthropicProvider::new(http()?, client.clone())),
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => {
            Arc::new(OpenAiProvider::new(http()?, client.clone()).with_windows(windows.clone()))
        }
        ProviderKind::OpenAiResponses => Arc::new(openai_responses::OpenAiResponsesProvider::new(
            http()?,
            client.clone(),
        )),
        ProviderKind::AzureOpenAi => azure::provider(name, config, http()?, client)?,
        ProviderKind::Gemini => Arc::new(GeminiProvider::new(http()?, client.clone())),
    })
}

/// A `scripted` provider from its profile (the script), named `name` unless it names itself.
fn scripted_provider(name: &str, config: &Value) -> Result<ScriptedProvider, RobotaError> {
    use crate::core::util::unknown_field;
    let entry = config.as_object();
    let unknown = entry
        .and_then(|o| unknown_field(o, &scripted::SCRIPT_KEYS))
        .or_else(|| {
            let turns = entry?.get("turns")?.as_array()?;
            turns.iter().enumerate().find_map(|(i, t)| {
                unknown_field(t.as_object()?, &scripted::TURN_KEYS)
                    .map(|m| format!("turn {i}: {m}"))
            })
        });
    if let Some(tail) = unknown {
        return Err(RobotaError::Configuration(format!(
            "provider \"{name}\": {tail}"
        )));
    }
    let mut script = config.clone();
    if let Some(o) = script.as_object_mut() {
        o.entry("name")
            .or_insert_with(|| Value::String(name.to_string()));
    }
    ScriptedProvider::from_json(&script).map_err(|e| match e {
        RobotaError::Configuration(m) => {
            RobotaError::Configuration(format!("provider \"{name}\": {m}"))
        }
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        let client = new_http_client().unwrap();
        match create_provider("p", &v, &client) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn kinds() {
        let client = new_http_client().unwrap();
        for (kind, name) in [
            ("anthropic", "a"),
            ("openai", "o"),
            ("openai-compatible", "local"),
            ("openai-responses", "r"),
            ("gemini", "g"),
            ("scripted", "s"),
        ] {
            let p = create_provider(name, &json!({ "kind": kind }), &client).unwrap();
            assert_eq!(p.name(), name);
        }
    }

    #[test]
    fn errors_name_provider_and_field() {
        assert_eq!(
            err(json!({"kind":"bogus"})),
            "Configuration Error: provider \"p\": field \"kind\" has unknown value \"bogus\" (expected anthropic, openai, openai-compatible, openai-responses, azure-openai, gemini, scripted or replay)"
        );
        assert!(err(json!({})).contains("provider \"p\": field \"kind\" is required"));
        assert!(err(json!({"kind": 3})).contains("field \"kind\" must be a string"));
        assert!(err(json!([1])).contains("entry must be a JSON object"));
        assert!(err(json!({"kind":"gemini","max_retries":-1})).contains("field \"max_retries\""));
        assert!(err(json!({"kind":"scripted","turns":5}))
            .starts_with("Configuration Error: provider \"p\": scripted provider"));
    }
}
