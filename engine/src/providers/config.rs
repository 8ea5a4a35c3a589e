//! Parsing one entry of the runtime config's `providers` map for the HTTP provider kinds.
//!
//! ```json
//! {"kind":"anthropic","base_url":"https://api.anthropic.com","api_key":"$ENV:ANTHROPIC_API_KEY",
//!  "headers":{"x-proxy":"1"},"timeout_ms":120000,"max_retries":2,"retry_base_delay_ms":500,
//!  "max_tokens":4096,"web_search":true}
//! ```

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value};

use crate::core::env_ref::EnvVars;
use crate::core::errors::RobotaError;

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI Chat Completions.
    OpenAi,
    /// Any OpenAI-compatible Chat Completions server (key optional).
    OpenAiCompatible,
    /// OpenAI Responses API (`/responses`).
    OpenAiResponses,
    /// Azure OpenAI: a deployment's Chat Completions, or the v1 endpoint (`api-key` header).
    AzureOpenAi,
    /// Google Gemini `streamGenerateContent`.
    Gemini,
    /// The deterministic offline provider: the profile is its script.
    Scripted,
    /// Serves a recording back (`{"kind":"replay","file","strict"?}`).
    Replay,
}

impl ProviderKind {
    /// Every kind, in the order error messages list them.
    pub const ALL: [ProviderKind; 8] = [
        ProviderKind::Anthropic,
        ProviderKind::OpenAi,
        ProviderKind::OpenAiCompatible,
        ProviderKind::OpenAiResponses,
        ProviderKind::AzureOpenAi,
        ProviderKind::Gemini,
        ProviderKind::Scripted,
        ProviderKind::Replay,
    ];

    /// Parses a `kind` value (`None` for an unknown kind).
    pub fn parse(kind: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// The kinds as error messages list them, joined by `sep` and `last` before the last one
    /// (`"anthropic, openai, …, gemini or scripted"`).
    pub fn list(sep: &str, last: &str) -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|k| k.as_str()).collect();
        match names.split_last() {
            Some((tail, head)) if !head.is_empty() => format!("{}{last}{tail}", head.join(sep)),
            _ => names.join(sep),
        }
    }

    /// The `kind` string.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
            ProviderKind::OpenAiCompatible => "openai-compatible",
            ProviderKind::OpenAiResponses => "openai-responses",
            ProviderKind::AzureOpenAi => "azure-openai",
            ProviderKind::Gemini => "gemini",
            ProviderKind::Scripted => "scripted",
            ProviderKind::Replay => "replay",
        }
    }

    /// Whether one instance may serve every session of a runtime: `anthropic`, `openai*` and
    /// `azure-openai` keep no per-conversation state (configuration, the shared HTTP client and a body-size
    /// hint; `$ENV:` keys are resolved at each request). `gemini` remembers the thought
    /// signatures of its tool calls, `scripted` and `replay` their position in the script:
    /// those are built per session.
    pub fn shareable(self) -> bool {
        matches!(
            self,
            ProviderKind::Anthropic
                | ProviderKind::OpenAi
                | ProviderKind::OpenAiCompatible
                | ProviderKind::OpenAiResponses
                | ProviderKind::AzureOpenAi
        )
    }

    /// The vendor's default base URL (each vendor SDK's convention); empty for `scripted`,
    /// which talks to no server, and for `azure-openai`, whose `endpoint` is required.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::OpenAi
            | ProviderKind::OpenAiCompatible
            | ProviderKind::OpenAiResponses => "https://api.openai.com/v1",
            ProviderKind::Gemini => "https://generativelanguage.googleapis.com/v1beta",
            ProviderKind::Scripted | ProviderKind::Replay | ProviderKind::AzureOpenAi => "",
        }
    }
}

/// Default idle timeout (no byte for this long fails the attempt).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// Default number of retries after the first attempt.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// Default first backoff delay (doubled per retry, with jitter).
pub const DEFAULT_RETRY_BASE_DELAY: Duration = Duration::from_millis(500);
/// Longest backoff between attempts (also the cap on an honoured `Retry-After`).
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(60);
/// Default `max_tokens` sent to Anthropic (the field is mandatory there).
pub const DEFAULT_ANTHROPIC_MAX_TOKENS: u32 = 4096;
/// Default `anthropic-version` header.
pub const DEFAULT_ANTHROPIC_VERSION: &str = "2023-06-01";

/// Fields accepted in a provider entry (anything else is a configuration error).
pub const KNOWN_FIELDS: &[&str] = &[
    "kind",
    "base_url",
    "api_key",
    "headers",
    "timeout_ms",
    "max_retries",
    "retry_base_delay_ms",
    "max_tokens",
    "web_search",
    "anthropic_version",
    "name",
    "endpoint",
    "deployment",
    "api_version",
];

/// A validated HTTP provider entry. `api_key` is kept as written (`$ENV:NAME` is resolved
/// at every use) and is deliberately absent from `Debug`.
#[derive(Clone)]
pub struct HttpProviderConfig {
    /// Provider name (the key of the `providers` map).
    pub name: String,
    /// Wire format.
    pub kind: ProviderKind,
    /// Base URL without a trailing slash.
    pub base_url: String,
    /// API key or `$ENV:NAME`; `None`/empty means no key.
    pub api_key: Option<String>,
    /// Extra headers sent with every request.
    pub headers: HeaderMap,
    /// Idle timeout.
    pub idle_timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff delay.
    pub retry_base_delay: Duration,
    /// Default max output tokens (used when the request has none).
    pub max_tokens: Option<u32>,
    /// Anthropic native web search enabled.
    pub web_search: bool,
    /// `anthropic-version` header value.
    pub anthropic_version: String,
    /// Where an `api_key` of `$ENV:NAME` is looked up (default: the process environment).
    pub env: EnvVars,
}

impl std::fmt::Debug for HttpProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpProviderConfig")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("idle_timeout", &self.idle_timeout)
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

fn bad(name: &str, field: &str, what: &str) -> RobotaError {
    RobotaError::Configuration(format!("provider \"{name}\": field \"{field}\" {what}"))
}

fn opt_u64(obj: &Map<String, Value>, name: &str, field: &str) -> Result<Option<u64>, RobotaError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| bad(name, field, "must be a non-negative integer")),
    }
}

fn opt_str<'a>(
    obj: &'a Map<String, Value>,
    name: &str,
    field: &str,
) -> Result<Option<&'a str>, RobotaError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(bad(name, field, "must be a string")),
    }
}

/// The `base_url` field: an http(s) URL without its trailing slash, else the kind's default.
fn parse_base_url(
    obj: &Map<String, Value>,
    name: &str,
    kind: ProviderKind,
) -> Result<String, RobotaError> {
    let Some(u) = opt_str(obj, name, "base_url")? else {
        return Ok(kind.default_base_url().to_string());
    };
    let parsed = reqwest::Url::parse(u)
        .map_err(|e| bad(name, "base_url", &format!("is not a valid URL ({e})")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad(name, "base_url", "must be an http:// or https:// URL"));
    }
    Ok(u.trim_end_matches('/').to_string())
}

/// The `headers` field: an object of valid header names to string values.
fn parse_headers(obj: &Map<String, Value>, name: &str) -> Result<HeaderMap, RobotaError> {
    let mut headers = HeaderMap::new();
    let h = match obj.get("headers") {
        None | Some(Value::Null) => return Ok(headers),
        Some(Value::Object(h)) => h,
        Some(_) => return Err(bad(name, "headers", "must be an object of strings")),
    };
    for (k, v) in h {
        let hn = HeaderName::from_bytes(k.as_bytes()).map_err(|_| {
            bad(
                name,
                "headers",
                &format!("has an invalid header name \"{k}\""),
            )
        })?;
        let vs = v.as_str().ok_or_else(|| {
            bad(
                name,
                "headers",
                &format!("value of \"{k}\" must be a string"),
            )
        })?;
        let hv = HeaderValue::from_str(vs).map_err(|_| {
            bad(
                name,
                "headers",
                &format!("value of \"{k}\" is not a valid header value"),
            )
        })?;
        headers.insert(hn, hv);
    }
    Ok(headers)
}

/// The `timeout_ms` field: a positive idle timeout, else [`DEFAULT_IDLE_TIMEOUT`].
fn parse_idle_timeout(obj: &Map<String, Value>, name: &str) -> Result<Duration, RobotaError> {
    match opt_u64(obj, name, "timeout_ms")? {
        None => Ok(DEFAULT_IDLE_TIMEOUT),
        Some(0) => Err(bad(name, "timeout_ms", "must be greater than 0")),
        Some(ms) => Ok(Duration::from_millis(ms)),
    }
}

/// The `max_retries` field: at most 10, else [`DEFAULT_MAX_RETRIES`].
fn parse_max_retries(obj: &Map<String, Value>, name: &str) -> Result<u32, RobotaError> {
    match opt_u64(obj, name, "max_retries")? {
        None => Ok(DEFAULT_MAX_RETRIES),
        Some(n) if n <= 10 => Ok(n as u32),
        Some(_) => Err(bad(name, "max_retries", "must be at most 10")),
    }
}

/// The `max_tokens` field: absent, or between 1 and `u32::MAX`.
fn parse_max_tokens(obj: &Map<String, Value>, name: &str) -> Result<Option<u32>, RobotaError> {
    match opt_u64(obj, name, "max_tokens")? {
        None => Ok(None),
        Some(n) if n > 0 && n <= u64::from(u32::MAX) => Ok(Some(n as u32)),
        Some(_) => Err(bad(name, "max_tokens", "must be between 1 and 4294967295")),
    }
}

/// The `web_search` field: a boolean (default false), only allowed for Anthropic.
fn parse_web_search(
    obj: &Map<String, Value>,
    name: &str,
    kind: ProviderKind,
) -> Result<bool, RobotaError> {
    let web_search = match obj.get("web_search") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad(name, "web_search", "must be a boolean")),
    };
    if web_search && kind != ProviderKind::Anthropic {
        return Err(bad(
            name,
            "web_search",
            "is only supported for kind \"anthropic\"",
        ));
    }
    Ok(web_search)
}

/// The `anthropic_version` field: a valid header value, else [`DEFAULT_ANTHROPIC_VERSION`].
fn parse_anthropic_version(obj: &Map<String, Value>, name: &str) -> Result<String, RobotaError> {
    let anthropic_version = opt_str(obj, name, "anthropic_version")?
        .unwrap_or(DEFAULT_ANTHROPIC_VERSION)
        .to_string();
    HeaderValue::from_str(&anthropic_version)
        .map_err(|_| bad(name, "anthropic_version", "is not a valid header value"))?;
    Ok(anthropic_version)
}

impl HttpProviderConfig {
    /// Validates one provider entry of kind `kind` (fields checked in a fixed order, so the
    /// first bad field is the one reported).
    pub fn parse(name: &str, kind: ProviderKind, value: &Value) -> Result<Self, RobotaError> {
        let obj = value.as_object().ok_or_else(|| {
            RobotaError::Configuration(format!("provider \"{name}\": entry must be a JSON object"))
        })?;
        if let Some(tail) = crate::core::util::unknown_field(obj, KNOWN_FIELDS) {
            return Err(RobotaError::Configuration(format!(
                "provider \"{name}\": {tail}"
            )));
        }
        let base_url = parse_base_url(obj, name, kind)?;
        let api_key = opt_str(obj, name, "api_key")?
            .filter(|k| !k.is_empty())
            .map(str::to_string);
        let headers = parse_headers(obj, name)?;
        let idle_timeout = parse_idle_timeout(obj, name)?;
        let max_retries = parse_max_retries(obj, name)?;
        let retry_base_delay = opt_u64(obj, name, "retry_base_delay_ms")?
            .map_or(DEFAULT_RETRY_BASE_DELAY, Duration::from_millis);
        let max_tokens = parse_max_tokens(obj, name)?;
        let web_search = parse_web_search(obj, name, kind)?;
        let anthropic_version = parse_anthropic_version(obj, name)?;
        if kind != ProviderKind::AzureOpenAi {
            if let Some(f) = super::azure::FIELDS.iter().find(|f| obj.contains_key(**f)) {
                return Err(bad(name, f, "is only supported for kind \"azure-openai\""));
            }
        }
        Ok(HttpProviderConfig {
            name: name.to_string(),
            kind,
            base_url,
            api_key,
            headers,
            idle_timeout,
            max_retries,
            retry_base_delay,
            max_tokens,
            web_search,
            anthropic_version,
            env: EnvVars::process(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        HttpProviderConfig::parse("p", ProviderKind::OpenAi, &v)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn defaults_and_overrides() {
        let c =
            HttpProviderConfig::parse("a", ProviderKind::Anthropic, &json!({"kind":"anthropic"}))
                .unwrap();
        assert_eq!(c.base_url, "https://api.anthropic.com");
        assert_eq!(c.max_retries, DEFAULT_MAX_RETRIES);
        assert_eq!(c.idle_timeout, DEFAULT_IDLE_TIMEOUT);
        let c = HttpProviderConfig::parse(
            "o",
            ProviderKind::OpenAiCompatible,
            &json!({"kind":"openai-compatible","base_url":"http://localhost:11434/v1/","api_key":"",
                    "headers":{"X-A":"b"},"timeout_ms":5,"max_retries":0}),
        )
        .unwrap();
        assert_eq!(c.base_url, "http://localhost:11434/v1");
        assert_eq!(c.api_key, None);
        assert_eq!(c.headers.get("x-a").unwrap(), "b");
        assert_eq!(c.idle_timeout, Duration::from_millis(5));
        assert_eq!(c.max_retries, 0);
    }

    #[test]
    fn bad_fields_name_provider_and_field() {
        assert_eq!(
            err(json!({"kind":"openai","timeout_ms":"x"})),
            "Configuration Error: provider \"p\": field \"timeout_ms\" must be a non-negative integer"
        );
        assert!(err(json!({"kind":"openai","base_url":"ftp://x"})).contains("\"base_url\""));
        assert!(err(json!({"kind":"openai","base_url":"not a url"})).contains("\"base_url\""));
        assert!(err(json!({"kind":"openai","headers":{"a":1}})).contains("\"headers\""));
        assert!(err(json!({"kind":"openai","bogus":1})).contains("field \"bogus\" is not a known"));
        assert!(err(json!({"kind":"openai","web_search":true})).contains("\"web_search\""));
        assert!(err(json!({"kind":"openai","api_key":5})).contains("\"api_key\" must be a string"));
    }

    #[test]
    fn debug_redacts_key() {
        let c = HttpProviderConfig::parse(
            "o",
            ProviderKind::OpenAi,
            &json!({"kind":"openai","api_key":"sk-secret"}),
        )
        .unwrap();
        assert!(!format!("{c:?}").contains("sk-secret"));
    }
}
