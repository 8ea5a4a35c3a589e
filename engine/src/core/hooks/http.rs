//! The `http` executor: POST the hook input as JSON to `url` with the configured headers
//! (`$NAME` / `${NAME}` / `$ENV:NAME` interpolated), 10 s default timeout (per-hook `timeout`).
//! Non-2xx → exit 1 (`HTTP <status> <reason>`); a JSON body whose `ok` is falsy or missing →
//! exit 2 (reason = body `reason` or `Blocked by HTTP hook`); truthy `ok` → exit 0 with the body
//! JSON as stdout; network / parse errors → exit 1.

use std::time::Duration;

use async_trait::async_trait;
use once_cell::sync::OnceCell;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::registry::HookExecutor;
use super::secrets::{interpolate_header, Redactor};
use super::types::{HookDefinition, HookResult, DEFAULT_HTTP_TIMEOUT};
use super::verdict;
use crate::core::env_ref::EnvVars;

/// Reason when an HTTP hook blocks without giving one.
pub const HTTP_BLOCK_REASON: &str = "Blocked by HTTP hook";

/// Runs `http` hooks.
#[derive(Debug, Default)]
pub struct HttpExecutor {
    client: OnceCell<reqwest::Client>,
    vars: EnvVars,
}

impl HttpExecutor {
    /// An executor that creates its own HTTP client on first use (prefer
    /// [`with_client`](Self::with_client) with the runtime's shared client).
    pub fn new() -> Self {
        Self::default()
    }

    /// An executor over an existing client (the runtime's connection pool).
    pub fn with_client(client: reqwest::Client) -> Self {
        HttpExecutor {
            client: OnceCell::with_value(client),
            vars: EnvVars::process(),
        }
    }

    /// Where header `$NAME` / `$ENV:NAME` references are looked up (default: the process
    /// environment).
    pub fn with_vars(mut self, vars: EnvVars) -> Self {
        self.vars = vars;
        self
    }

    fn client(&self) -> Result<&reqwest::Client, String> {
        self.client.get_or_try_init(|| {
            reqwest::Client::builder()
                .build()
                .map_err(|e| format!("Failed to create HTTP client: {e}"))
        })
    }
}

async fn post(
    client: &reqwest::Client,
    vars: &EnvVars,
    def: &HookDefinition,
    url: &str,
    input: &Value,
    timeout: Duration,
    redactor: &mut Redactor,
) -> HookResult {
    let mut req = client
        .post(url)
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .body(serde_json::to_vec(input).unwrap_or_default());
    if let Some(headers) = def.fields.get("headers") {
        let Value::Object(headers) = headers else {
            return HookResult::failure("http hook \"headers\" must be an object of strings");
        };
        for (k, v) in headers {
            let Some(v) = v.as_str() else {
                return HookResult::failure(format!("http hook header \"{k}\" must be a string"));
            };
            req = req.header(k.as_str(), interpolate_header(v, vars, redactor));
        }
    }
    let resp = match req.send().await {
        Ok(r) => r,
        Err(e) if e.is_timeout() => {
            crate::log_at!(
                crate::core::log::WARN,
                "robota::hooks",
                "HTTP hook timed out after {} ms",
                timeout.as_millis()
            );
            return HookResult::failure("HTTP hook timed out");
        }
        Err(e) => return HookResult::failure(format!("HTTP hook request failed: {e}")),
    };
    let status = resp.status();
    if !status.is_success() {
        return HookResult::failure(format!(
            "HTTP {} {}",
            status.as_u16(),
            status.canonical_reason().unwrap_or("")
        ));
    }
    let body: Value = match resp.json().await {
        Ok(b) => b,
        Err(e) => return HookResult::failure(format!("HTTP hook response is not JSON: {e}")),
    };
    verdict::from_json(&body, HTTP_BLOCK_REASON)
}

#[async_trait]
impl HookExecutor for HttpExecutor {
    fn kind(&self) -> &str {
        "http"
    }

    async fn execute(
        &self,
        def: &HookDefinition,
        input: &Value,
        cancel: CancellationToken,
    ) -> HookResult {
        let (url, timeout) = match def.field_and_timeout(self.kind(), "url", DEFAULT_HTTP_TIMEOUT) {
            Ok(read) => read,
            Err(failure) => return failure,
        };
        let client = match self.client() {
            Ok(c) => c,
            Err(e) => return HookResult::failure(e),
        };
        let mut redactor = Redactor::default();
        let result = tokio::select! {
            r = post(client, &self.vars, def, url, input, timeout, &mut redactor) => r,
            _ = cancel.cancelled() => HookResult::failure("Hook cancelled"),
        };
        HookResult::new(
            result.exit_code,
            redactor.redact(&result.stdout),
            redactor.redact(&result.stderr),
        )
    }
}
