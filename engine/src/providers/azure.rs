//! Azure OpenAI (kind `azure-openai`): the OpenAI Chat Completions wire on Azure's URLs, the key
//! in an `api-key` header.
//!
//! ```json
//! {"kind":"azure-openai","endpoint":"https://my-resource.openai.azure.com",
//!  "deployment":"my-gpt-4o","api_version":"2024-10-21","api_key":"$ENV:AZURE_OPENAI_API_KEY"}
//! ```
//! posts to `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version={api_version}`
//! (the deployment picks the model). With `"api_version":"v1"` (Azure's v1 API) there is no
//! deployment field: requests go to `{endpoint}/openai/v1/chat/completions` and the session's
//! model names the deployment.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::config::HttpProviderConfig;
use super::http::{AuthStyle, Endpoint};
use super::openai::OpenAiProvider;
use crate::core::errors::RobotaError;
use crate::core::provider::Provider;

/// The fields only `azure-openai` accepts.
pub const FIELDS: [&str; 3] = ["endpoint", "deployment", "api_version"];

/// The `api_version` that selects Azure's v1 endpoint.
pub const V1: &str = "v1";

fn bad(name: &str, what: String) -> RobotaError {
    RobotaError::Configuration(format!("provider \"{name}\": {what}"))
}

/// A required string field made of URL-safe characters (`what` describes it).
fn token<'a>(
    obj: &'a Map<String, Value>,
    name: &str,
    field: &str,
    example: &str,
) -> Result<&'a str, RobotaError> {
    match obj.get(field) {
        None | Some(Value::Null) => Err(bad(
            name,
            format!("field \"{field}\" is required for kind \"azure-openai\" (e.g. \"{example}\")"),
        )),
        Some(Value::String(s))
            if !s.is_empty()
                && s
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) =>
        {
            Ok(s)
        }
        Some(Value::String(s)) => Err(bad(
            name,
            format!(
                "field \"{field}\" has invalid value \"{s}\" (letters, digits, '-', '_' and '.' only)"
            ),
        )),
        Some(_) => Err(bad(name, format!("field \"{field}\" must be a string"))),
    }
}

/// The `endpoint` field: the resource's http(s) URL, without a trailing slash.
fn endpoint(obj: &Map<String, Value>, name: &str) -> Result<String, RobotaError> {
    let example = "https://my-resource.openai.azure.com";
    let text = match obj.get("endpoint") {
        None | Some(Value::Null) => {
            return Err(bad(
                name,
                format!(
                    "field \"endpoint\" is required for kind \"azure-openai\" (e.g. \"{example}\")"
                ),
            ))
        }
        Some(Value::String(s)) => s.trim_end_matches('/'),
        Some(_) => return Err(bad(name, "field \"endpoint\" must be a string".into())),
    };
    match reqwest::Url::parse(text) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.query().is_none() => {
            Ok(text.to_string())
        }
        _ => Err(bad(
            name,
            format!("field \"endpoint\" must be an http(s) URL without a query (e.g. \"{example}\"), got \"{text}\""),
        )),
    }
}

/// The URL one entry posts to.
pub fn url(name: &str, config: &Value) -> Result<String, RobotaError> {
    let Some(obj) = config.as_object() else {
        return Err(bad(name, "entry must be a JSON object".into()));
    };
    if obj.contains_key("base_url") {
        return Err(bad(
            name,
            "field \"base_url\" is not used by kind \"azure-openai\" (set \"endpoint\")".into(),
        ));
    }
    let endpoint = endpoint(obj, name)?;
    let version = token(obj, name, "api_version", "2024-10-21")?;
    if version == V1 {
        if obj.get("deployment").is_some_and(|d| !d.is_null()) {
            return Err(bad(
                name,
                "field \"deployment\" is not used with \"api_version\": \"v1\" (the model names the deployment)".into(),
            ));
        }
        return Ok(format!("{endpoint}/openai/v1/chat/completions"));
    }
    let deployment = token(obj, name, "deployment", "my-gpt-4o")?;
    Ok(format!(
        "{endpoint}/openai/deployments/{deployment}/chat/completions?api-version={version}"
    ))
}

/// The `azure-openai` provider of entry `name`.
pub fn provider(
    name: &str,
    config: &Value,
    cfg: HttpProviderConfig,
    client: &reqwest::Client,
) -> Result<Arc<dyn Provider>, RobotaError> {
    let url = Endpoint::new(url(name, config)?);
    Ok(Arc::new(OpenAiProvider::at(
        cfg,
        client.clone(),
        url,
        AuthStyle::ApiKey,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        url("az", &v).unwrap_err().to_string()
    }

    #[test]
    fn deployment_and_v1_urls() {
        let c = json!({"endpoint":"https://r.openai.azure.com/","deployment":"gpt-4o","api_version":"2024-10-21"});
        assert_eq!(
            url("az", &c).unwrap(),
            "https://r.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"
        );
        let c = json!({"endpoint":"https://r.openai.azure.com","api_version":"v1"});
        assert_eq!(
            url("az", &c).unwrap(),
            "https://r.openai.azure.com/openai/v1/chat/completions"
        );
    }

    #[test]
    fn missing_and_bad_fields_are_named() {
        let p = "Configuration Error: provider \"az\": ";
        assert_eq!(
            err(json!({"deployment":"d","api_version":"v"})),
            format!("{p}field \"endpoint\" is required for kind \"azure-openai\" (e.g. \"https://my-resource.openai.azure.com\")")
        );
        assert_eq!(
            err(json!({"endpoint":"https://r","api_version":"2024-10-21"})),
            format!("{p}field \"deployment\" is required for kind \"azure-openai\" (e.g. \"my-gpt-4o\")")
        );
        assert_eq!(
            err(json!({"endpoint":"https://r","deployment":"d"})),
            format!("{p}field \"api_version\" is required for kind \"azure-openai\" (e.g. \"2024-10-21\")")
        );
        assert_eq!(
            err(json!({"endpoint":"https://r","deployment":"a/b","api_version":"1"})),
            format!("{p}field \"deployment\" has invalid value \"a/b\" (letters, digits, '-', '_' and '.' only)")
        );
        assert!(
            err(json!({"endpoint":"ftp://r","deployment":"d","api_version":"1"}))
                .contains("field \"endpoint\" must be an http(s) URL")
        );
        assert!(
            err(json!({"endpoint":"https://r","api_version":"v1","deployment":"d"}))
                .contains("field \"deployment\" is not used with \"api_version\": \"v1\"")
        );
        assert!(
            err(json!({"base_url":"https://r","deployment":"d","api_version":"1"}))
                .contains("field \"base_url\" is not used by kind \"azure-openai\"")
        );
    }
}
