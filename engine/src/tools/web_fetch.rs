//! `WebFetch` — fetch a URL as text (GET, redirects followed): http/https only, size and time
//! limits, HTML converted to readable text.

use async_trait::async_trait;
use reqwest::header::{
    HeaderMap, HeaderName, HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, USER_AGENT,
};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::args::pairs;
use super::bounded::bounded_by_time_and_cancel;
use super::builtin::{Builtin, Spec};
use super::config::ToolEnv;
use super::html::html_to_text;
use super::result::ToolOutput;
use crate::core::tool::ToolContext;

/// The default `User-Agent`.
pub const WEB_FETCH_USER_AGENT: &str = "Robota-CLI/3.0";

/// Fetches a URL with GET and returns its body as text.
pub struct WebFetchTool {
    spec: Spec,
    client: reqwest::Client,
}

/// WebFetch's arguments.
#[derive(Deserialize)]
pub(crate) struct WebFetchArgs {
    url: String,
    /// Extra request headers, in the order given.
    #[serde(default, deserialize_with = "pairs")]
    headers: Vec<(String, String)>,
}

/// A client that follows at most 10 redirects.
pub(crate) fn default_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::limited(10))
        .build()
        .unwrap_or_default()
}

impl WebFetchTool {
    /// A WebFetch tool on `env` (uses `env.config.http_client` when set).
    pub fn new(env: ToolEnv) -> Self {
        let client = env
            .config
            .http_client
            .clone()
            .unwrap_or_else(default_client);
        WebFetchTool {
            client,
            spec: Spec::of::<Self>(env),
        }
    }

    async fn fetch(
        &self,
        url: &str,
        headers: &[(String, String)],
        cancel: CancellationToken,
    ) -> ToolOutput {
        let limits = self.spec.env.limits();
        let parsed = match reqwest::Url::parse(url) {
            Ok(u) => u,
            Err(_) => return ToolOutput::fail(format!("Invalid URL: {url}")),
        };
        if !matches!(parsed.scheme(), "http" | "https") {
            return ToolOutput::fail(format!(
                "Unsupported URL scheme \"{}\": only http and https URLs can be fetched",
                parsed.scheme()
            ));
        }
        let mut map = HeaderMap::new();
        map.insert(USER_AGENT, HeaderValue::from_static(WEB_FETCH_USER_AGENT));
        for (k, v) in headers {
            match (
                HeaderName::from_bytes(k.as_bytes()),
                HeaderValue::from_str(v),
            ) {
                (Ok(name), Ok(val)) => {
                    map.insert(name, val);
                }
                _ => return ToolOutput::fail(format!("Invalid header: {k}")),
            }
        }
        let timeout_ms = limits.web_fetch_timeout_ms;
        let max = limits.web_fetch_max_bytes;
        let work = async {
            let mut resp = self
                .client
                .get(parsed)
                .headers(map)
                .send()
                .await
                .map_err(|e| format!("Fetch failed: {e}"))?;
            let status = resp.status();
            if !status.is_success() {
                return Err(format!(
                    "HTTP {} {}",
                    status.as_u16(),
                    status.canonical_reason().unwrap_or("")
                )
                .trim_end()
                .to_string());
            }
            let declared = resp
                .headers()
                .get(CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            if let Some(n) = declared.filter(|&n| n > max) {
                return Err(format!("Response too large: {n} bytes (max {max})"));
            }
            let is_html = resp
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|ct| ct.to_ascii_lowercase().contains("html"));
            let mut body: Vec<u8> = Vec::new();
            while let Some(chunk) = resp
                .chunk()
                .await
                .map_err(|e| format!("Fetch failed while reading the body: {e}"))?
            {
                if (body.len() + chunk.len()) as u64 > max {
                    return Err(format!(
                        "Response too large: more than {max} bytes (max {max})"
                    ));
                }
                body.extend_from_slice(&chunk);
            }
            let text = String::from_utf8_lossy(&body).into_owned();
            Ok(if is_html { html_to_text(&text) } else { text })
        };
        bounded_by_time_and_cancel("Request", work, timeout_ms, &cancel)
            .await
            .into()
    }
}

#[async_trait]
impl Builtin for WebFetchTool {
    type Args = WebFetchArgs;
    const NAME: &'static str = "WebFetch";
    const DESCRIPTION: &'static str = "Fetch a URL (http or https, GET) and return its content as text; HTML pages are converted to readable text. Parameters: url (required), headers (optional string map). Limits: 5,000,000 bytes, 30 seconds.";
    const READ_ONLY: bool = true;

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "The http or https URL to fetch"},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Extra request headers"}
            },
            "required": ["url"]
        })
    }
    fn spec(&self) -> &Spec {
        &self.spec
    }

    async fn run(&self, args: WebFetchArgs, ctx: &ToolContext) -> ToolOutput {
        self.fetch(&args.url, &args.headers, ctx.cancel.clone())
            .await
    }
}
