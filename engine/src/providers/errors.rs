//! Mapping HTTP failures to the Robota error taxonomy, with secrets scrubbed from every text.

use std::time::Duration;

use serde_json::Value;

use super::config::HttpProviderConfig;
use crate::core::errors::{RobotaError, CONTEXT_OVERFLOW};

/// Replaces every occurrence of the secret in `text` with `[REDACTED]`.
pub fn redact(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(s) if s.len() >= 4 && text.contains(s) => text.replace(s, "[REDACTED]"),
        _ => text.to_string(),
    }
}

/// The vendor's own error message from an error body: `error.message` (Anthropic, OpenAI,
/// Gemini), a string `error` (Ollama), `message` or `detail`; else the trimmed body text.
pub fn vendor_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        let found = v
            .pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"))
            .and_then(Value::as_str);
        if let Some(m) = found {
            return m.to_string();
        }
        // Some servers wrap the error in an array (Gemini streaming errors).
        if let Some(m) = v
            .pointer("/0/error/message")
            .and_then(Value::as_str)
            .map(str::to_string)
        {
            return m;
        }
    }
    let t = body.trim();
    crate::core::util::truncate_middle(t, 500, 240, " … ").unwrap_or_else(|| t.to_string())
}

/// Prefix of user-visible provider error texts: `name (kind)`, or just `kind` when equal.
pub fn who(cfg: &HttpProviderConfig) -> String {
    if cfg.name == cfg.kind.as_str() {
        cfg.name.clone()
    } else {
        format!("{} ({})", cfg.name, cfg.kind.as_str())
    }
}

fn looks_like_context_overflow(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    m.contains("context length")
        || m.contains("context window")
        || m.contains("context_length")
        || m.contains("prompt is too long")
        || m.contains("too many tokens")
        || m.contains("maximum context")
        || (m.contains("token") && m.contains("exceed"))
}

/// A 404 naming a model, or a 400/422 saying the model does not exist (Ollama, LiteLLM, vLLM).
fn names_unknown_model(status: u16, msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    if !m.contains("model") {
        return false;
    }
    status == 404
        || [
            "not found",
            "does not exist",
            "invalid model",
            "unknown model",
            "no such model",
        ]
        .iter()
        .any(|p| m.contains(p))
}

/// A server error whose body says the request is invalid: retrying it cannot succeed.
fn looks_like_validation(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    m.contains("validation error")
        || m.contains("validationerror")
        || m.contains("invalid request")
        || m.contains("input should be")
        || m.contains("field required")
}

/// Maps a non-success HTTP status to the taxonomy. `message` is the vendor's text (already
/// redacted).
pub fn status_error(
    cfg: &HttpProviderConfig,
    status: u16,
    message: &str,
    model: &str,
    retry_after: Option<Duration>,
) -> RobotaError {
    let text = format!("{} returned HTTP {status}: {message}", who(cfg));
    match status {
        401 | 403 => RobotaError::Authentication(text),
        429 => RobotaError::RateLimit {
            message: text,
            retry_after,
        },
        400 | 404 | 422 if names_unknown_model(status, message) => RobotaError::ModelNotAvailable {
            model: model.to_string(),
            provider: cfg.name.clone(),
        },
        404 => RobotaError::Provider {
            provider: cfg.name.clone(),
            message: format!("{text} (check base_url \"{}\")", display_url(&cfg.base_url)),
            status: Some(status),
            recoverable: false,
        },
        400 | 413 | 422 if looks_like_context_overflow(message) => RobotaError::Provider {
            provider: cfg.name.clone(),
            message: format!(
                "{} returned HTTP {status}: {CONTEXT_OVERFLOW}{} of model \"{model}\": {message}",
                who(cfg),
                match super::context_window::window_from_error(message) {
                    Some(n) => format!(" ({n} tokens)"),
                    None => String::new(),
                }
            ),
            status: Some(status),
            recoverable: false,
        },
        // The same request may succeed later: a timeout, a conflict, a server error — unless
        // the server says the request itself is invalid (llama-cpp-python answers a bad
        // message with HTTP 500 and a validation error).
        408 | 409 => RobotaError::Provider {
            provider: cfg.name.clone(),
            message: text,
            status: Some(status),
            recoverable: true,
        },
        s if s >= 500 => RobotaError::Provider {
            provider: cfg.name.clone(),
            recoverable: !looks_like_validation(message),
            message: text,
            status: Some(status),
        },
        _ => RobotaError::Provider {
            provider: cfg.name.clone(),
            message: text,
            status: Some(status),
            recoverable: false,
        },
    }
}

/// A malformed stream (bad JSON in an event, an unexpected shape): not retried.
pub fn malformed(cfg: &HttpProviderConfig, what: &str) -> RobotaError {
    RobotaError::Provider {
        provider: cfg.name.clone(),
        message: format!(
            "{} at {} sent a malformed stream: {what}",
            who(cfg),
            display_url(&cfg.base_url)
        ),
        status: None,
        recoverable: false,
    }
}

/// Parses `Retry-After` (seconds, possibly fractional, or an HTTP date) and OpenAI's
/// `retry-after-ms`.
pub fn parse_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let v = headers.get("retry-after")?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let delta = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(delta.to_std().unwrap_or(Duration::ZERO))
}

/// `base_url` without user info or query (never shown: they may carry credentials).
pub fn display_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.as_str().trim_end_matches('/').to_string()
        }
        Err(_) => "<invalid url>".to_string(),
    }
}

pub(crate) fn strip_url(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    if let Some(u) = e.url() {
        text = text.replace(u.as_str(), "");
    }
    text
}

/// Removes the key from every text of an error.
pub(crate) fn scrub(e: RobotaError, key: Option<&str>) -> RobotaError {
    let Some(k) = key else { return e };
    let r = |s: String| redact(&s, Some(k));
    match e {
        RobotaError::Provider {
            provider,
            message,
            status,
            recoverable,
        } => RobotaError::Provider {
            provider,
            message: r(message),
            status,
            recoverable,
        },
        RobotaError::Authentication(m) => RobotaError::Authentication(r(m)),
        RobotaError::RateLimit {
            message,
            retry_after,
        } => RobotaError::RateLimit {
            message: r(message),
            retry_after,
        },
        RobotaError::Network(m) => RobotaError::Network(r(m)),
        RobotaError::Configuration(m) => RobotaError::Configuration(r(m)),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::config::ProviderKind;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn cfg() -> HttpProviderConfig {
        HttpProviderConfig::parse("main", ProviderKind::OpenAi, &serde_json::json!({})).unwrap()
    }

    #[test]
    fn vendor_messages() {
        assert_eq!(
            vendor_message(r#"{"type":"error","error":{"type":"x","message":"bad key"}}"#),
            "bad key"
        );
        assert_eq!(
            vendor_message(r#"{"error":"model not found"}"#),
            "model not found"
        );
        assert_eq!(
            vendor_message(r#"[{"error":{"code":400,"message":"g"}}]"#),
            "g"
        );
        assert_eq!(vendor_message("  plain  "), "plain");
    }

    #[test]
    fn statuses() {
        let c = cfg();
        let e = status_error(&c, 401, "nope", "m", None);
        assert_eq!(
            e.to_string(),
            "Authentication Error: main (openai) returned HTTP 401: nope"
        );
        assert!(matches!(
            status_error(&c, 429, "slow", "m", Some(Duration::from_secs(2))),
            RobotaError::RateLimit { retry_after: Some(d), .. } if d == Duration::from_secs(2)
        ));
        assert!(matches!(
            status_error(&c, 404, "The model `x` does not exist", "x", None),
            RobotaError::ModelNotAvailable { .. }
        ));
        let e = status_error(
            &c,
            400,
            "This model's maximum context length is 8192 tokens",
            "m",
            None,
        );
        assert!(!e.is_recoverable());
        assert_eq!(
            e.to_string(),
            "Provider Error (main): main (openai) returned HTTP 400: the prompt does not fit the context window (8192 tokens) of model \"m\": This model's maximum context length is 8192 tokens"
        );
        assert!(e.is_context_overflow());
        assert!(status_error(&c, 503, "x", "m", None).is_recoverable());
        assert!(status_error(&c, 408, "x", "m", None).is_recoverable());
        assert!(status_error(&c, 409, "x", "m", None).is_recoverable());
        assert!(!status_error(&c, 422, "x", "m", None).is_recoverable());
        let e = status_error(
            &c,
            500,
            "1 validation error for ChatCompletionRequest messages.1.content: Input should be a valid string",
            "m",
            None,
        );
        assert!(!e.is_recoverable(), "a validation error is not retried");
        assert!(e.to_string().contains("Input should be a valid string"));
        assert_eq!(
            status_error(
                &c,
                400,
                "model \"llama9\" not found, try pulling it first",
                "llama9",
                None
            )
            .code(),
            "MODEL_NOT_AVAILABLE"
        );
        assert!(!status_error(&c, 400, "x", "m", None).is_recoverable());
    }

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(parse_retry_after(&h), Some(Duration::ZERO));
    }

    #[test]
    fn redaction() {
        assert_eq!(
            redact("key sk-123456 bad", Some("sk-123456")),
            "key [REDACTED] bad"
        );
        assert_eq!(redact("abc", None), "abc");
    }
}
