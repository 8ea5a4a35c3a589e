//! The Robota error taxonomy: every error has a `code`, a `category` and a `recoverable` flag.

use std::time::Duration;

/// Marks a provider error as the server's "context length exceeded" answer: the turn then ends
/// with `stop_reason:"context_limit"`.
pub const CONTEXT_OVERFLOW: &str = "the prompt does not fit the context window";

/// Error category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCategory {
    /// Caused by user input or configuration.
    User,
    /// Caused by the local system.
    System,
    /// Caused by the model provider.
    Provider,
}

impl ErrorCategory {
    /// Lowercase name (`user`, `system`, `provider`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCategory::User => "user",
            ErrorCategory::System => "system",
            ErrorCategory::Provider => "provider",
        }
    }
}

/// The 11 Robota error classes. `Display` gives the user-visible text with its Robota prefix.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RobotaError {
    /// Bad configuration.
    #[error("Configuration Error: {0}")]
    Configuration(String),
    /// Bad input.
    #[error("Validation Error: {0}")]
    Validation(String),
    /// A provider failed (recoverable: retrying may help).
    #[error("Provider Error ({provider}): {message}")]
    Provider {
        /// Provider name.
        provider: String,
        /// What went wrong.
        message: String,
        /// HTTP status, when there was one.
        status: Option<u16>,
        /// Whether retrying may help (5xx yes; a 400 "context too long" no).
        recoverable: bool,
    },
    /// Credentials rejected.
    #[error("Authentication Error: {0}")]
    Authentication(String),
    /// Rate limited.
    #[error("Rate Limit Error: {message}")]
    RateLimit {
        /// What the vendor said.
        message: String,
        /// `Retry-After`, when given.
        retry_after: Option<Duration>,
    },
    /// Connection, DNS or TLS failure.
    #[error("Network Error: {0}")]
    Network(String),
    /// A tool failed.
    #[error("Tool Execution Error ({tool}): {message}")]
    ToolExecution {
        /// Tool name.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// The model is unknown to the provider.
    #[error("Model \"{model}\" is not available for provider \"{provider}\"")]
    ModelNotAvailable {
        /// Model id.
        model: String,
        /// Provider name.
        provider: String,
    },
    /// A circuit breaker is open.
    #[error("{0}")]
    CircuitBreakerOpen(String),
    /// A plugin failed.
    #[error("Plugin Error ({plugin}): {message}")]
    Plugin {
        /// Plugin name.
        plugin: String,
        /// What went wrong.
        message: String,
    },
    /// Persistence failed.
    #[error("Storage Error: {0}")]
    Storage(String),
}

impl RobotaError {
    /// Stable code, e.g. `PROVIDER_ERROR`.
    pub fn code(&self) -> &'static str {
        match self {
            RobotaError::Configuration(_) => "CONFIGURATION_ERROR",
            RobotaError::Validation(_) => "VALIDATION_ERROR",
            RobotaError::Provider { .. } => "PROVIDER_ERROR",
            RobotaError::Authentication(_) => "AUTHENTICATION_ERROR",
            RobotaError::RateLimit { .. } => "RATE_LIMIT_ERROR",
            RobotaError::Network(_) => "NETWORK_ERROR",
            RobotaError::ToolExecution { .. } => "TOOL_EXECUTION_ERROR",
            RobotaError::ModelNotAvailable { .. } => "MODEL_NOT_AVAILABLE",
            RobotaError::CircuitBreakerOpen(_) => "CIRCUIT_BREAKER_OPEN",
            RobotaError::Plugin { .. } => "PLUGIN_ERROR",
            RobotaError::Storage(_) => "STORAGE_ERROR",
        }
    }

    /// Category of the error.
    pub fn category(&self) -> ErrorCategory {
        match self {
            RobotaError::Configuration(_)
            | RobotaError::Validation(_)
            | RobotaError::Authentication(_)
            | RobotaError::ModelNotAvailable { .. } => ErrorCategory::User,
            RobotaError::Provider { .. } | RobotaError::RateLimit { .. } => ErrorCategory::Provider,
            RobotaError::Network(_)
            | RobotaError::ToolExecution { .. }
            | RobotaError::CircuitBreakerOpen(_)
            | RobotaError::Plugin { .. }
            | RobotaError::Storage(_) => ErrorCategory::System,
        }
    }

    /// Whether retrying may succeed.
    pub fn is_recoverable(&self) -> bool {
        match self {
            RobotaError::Provider { recoverable, .. } => *recoverable,
            RobotaError::RateLimit { .. }
            | RobotaError::Network(_)
            | RobotaError::CircuitBreakerOpen(_)
            | RobotaError::Storage(_) => true,
            _ => false,
        }
    }

    /// A provider's "context length exceeded" answer ([`CONTEXT_OVERFLOW`] in its text).
    pub fn is_context_overflow(&self) -> bool {
        matches!(self, RobotaError::Provider { message, .. } if message.contains(CONTEXT_OVERFLOW))
    }

    /// A recoverable provider error.
    pub fn provider(provider: impl Into<String>, message: impl Into<String>) -> Self {
        RobotaError::Provider {
            provider: provider.into(),
            message: message.into(),
            status: None,
            recoverable: true,
        }
    }

    /// `wrapProviderError`: `ProviderError("Failed to <operation>: <cause>")`.
    pub fn wrap_provider(provider: &str, operation: &str, cause: &dyn std::fmt::Display) -> Self {
        Self::provider(provider, format!("Failed to {operation}: {cause}"))
    }

    /// The circuit-breaker error with its default text.
    pub fn circuit_breaker_open() -> Self {
        RobotaError::CircuitBreakerOpen("Circuit breaker is open".to_string())
    }

    /// JSON details (`code`, `category`, `recoverable`, `message`) as the C ABI reports them.
    pub fn details_json(&self) -> serde_json::Value {
        serde_json::json!({
            "code": self.code(),
            "category": self.category().as_str(),
            "recoverable": self.is_recoverable(),
            "message": self.to_string(),
        })
    }
}

/// `isRecoverable` for any error: non-Robota errors are not recoverable.
pub fn is_recoverable(err: &(dyn std::error::Error + 'static)) -> bool {
    err.downcast_ref::<RobotaError>()
        .is_some_and(RobotaError::is_recoverable)
}

/// `getErrorCode` for any error: non-Robota errors give `UNKNOWN_ERROR`.
pub fn error_code(err: &(dyn std::error::Error + 'static)) -> &'static str {
    err.downcast_ref::<RobotaError>()
        .map_or("UNKNOWN_ERROR", RobotaError::code)
}

/// Result alias.
pub type Result<T> = std::result::Result<T, RobotaError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taxonomy_table() {
        let cases: Vec<(RobotaError, &str, &str, bool)> = vec![
            (
                RobotaError::Configuration("x".into()),
                "CONFIGURATION_ERROR",
                "user",
                false,
            ),
            (
                RobotaError::Validation("x".into()),
                "VALIDATION_ERROR",
                "user",
                false,
            ),
            (
                RobotaError::provider("p", "x"),
                "PROVIDER_ERROR",
                "provider",
                true,
            ),
            (
                RobotaError::Authentication("x".into()),
                "AUTHENTICATION_ERROR",
                "user",
                false,
            ),
            (
                RobotaError::RateLimit {
                    message: "x".into(),
                    retry_after: None,
                },
                "RATE_LIMIT_ERROR",
                "provider",
                true,
            ),
            (
                RobotaError::Network("x".into()),
                "NETWORK_ERROR",
                "system",
                true,
            ),
            (
                RobotaError::ToolExecution {
                    tool: "t".into(),
                    message: "x".into(),
                },
                "TOOL_EXECUTION_ERROR",
                "system",
                false,
            ),
            (
                RobotaError::ModelNotAvailable {
                    model: "m".into(),
                    provider: "p".into(),
                },
                "MODEL_NOT_AVAILABLE",
                "user",
                false,
            ),
            (
                RobotaError::circuit_breaker_open(),
                "CIRCUIT_BREAKER_OPEN",
                "system",
                true,
            ),
            (
                RobotaError::Plugin {
                    plugin: "p".into(),
                    message: "x".into(),
                },
                "PLUGIN_ERROR",
                "system",
                false,
            ),
            (
                RobotaError::Storage("x".into()),
                "STORAGE_ERROR",
                "system",
                true,
            ),
        ];
        for (e, code, cat, rec) in cases {
            assert_eq!(e.code(), code);
            assert_eq!(e.category().as_str(), cat);
            assert_eq!(e.is_recoverable(), rec, "{code}");
        }
    }

    #[test]
    fn messages_and_helpers() {
        assert_eq!(
            RobotaError::provider("openai", "boom").to_string(),
            "Provider Error (openai): boom"
        );
        assert_eq!(
            RobotaError::ModelNotAvailable {
                model: "m".into(),
                provider: "p".into()
            }
            .to_string(),
            "Model \"m\" is not available for provider \"p\""
        );
        assert_eq!(
            RobotaError::circuit_breaker_open().to_string(),
            "Circuit breaker is open"
        );
        let io = std::io::Error::other("x");
        assert_eq!(error_code(&io), "UNKNOWN_ERROR");
        assert!(!is_recoverable(&io));
        let e = RobotaError::Network("down".into());
        assert_eq!(error_code(&e), "NETWORK_ERROR");
        assert!(is_recoverable(&e));
        assert_eq!(
            RobotaError::wrap_provider("a", "stream chat", &"eof").to_string(),
            "Provider Error (a): Failed to stream chat: eof"
        );
    }
}
