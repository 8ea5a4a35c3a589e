//! `WebSearch` — search the web through a pluggable backend (results as `{title, url, snippet}`).
//!
//! The backend is chosen by configuration ([`ToolsConfig::web_search`](super::config::ToolsConfig)
//! or a backend object). With none configured the tool answers with a clear "not configured"
//! error; it never invents results.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::args::int;
use super::bounded::bounded_by_time_and_cancel;
use super::builtin::{Builtin, Spec};
use super::config::{ToolEnv, WebSearchConfig};
use super::html::{decode_entities, html_to_text};
use super::result::ToolOutput;
use crate::core::env_ref::{resolve_env_reference, ENV_REFERENCE_PREFIX};
use crate::core::tool::ToolContext;

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHit {
    /// Page title.
    pub title: String,
    /// Page URL.
    pub url: String,
    /// Short excerpt.
    pub snippet: String,
}

/// A web-search service.
#[async_trait]
pub trait WebSearchBackend: Send + Sync {
    /// Backend name (`brave`, ...).
    fn name(&self) -> &str;
    /// Up to `count` results for `query`; `Err` is shown to the model as the tool error.
    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchHit>, String>;
}

/// The message when no backend is configured.
pub const WEB_SEARCH_NOT_CONFIGURED: &str = "Web search is not configured: no search backend is set. Configure one in the tools config, e.g. \"webSearch\": {\"provider\": \"brave\", \"apiKey\": \"$ENV:BRAVE_API_KEY\"}.";

/// The variable the Brave backend's key is read from by default.
pub const BRAVE_API_KEY_VAR: &str = "BRAVE_API_KEY";

/// Brave's web-search endpoint.
pub const BRAVE_DEFAULT_URL: &str = "https://api.search.brave.com/res/v1/web/search";

/// The Brave Search API backend.
pub struct BraveSearch {
    client: reqwest::Client,
    base_url: String,
    api_key: String,
}

impl BraveSearch {
    /// A Brave backend; `api_key` may be a literal or a `$ENV:NAME` reference (resolved at each
    /// search, never echoed); `base_url` defaults to [`BRAVE_DEFAULT_URL`].
    pub fn new(client: reqwest::Client, base_url: Option<String>, api_key: Option<String>) -> Self {
        BraveSearch {
            client,
            base_url: base_url.unwrap_or_else(|| BRAVE_DEFAULT_URL.to_string()),
            api_key: api_key.unwrap_or_else(|| format!("{ENV_REFERENCE_PREFIX}BRAVE_API_KEY")),
        }
    }
}

#[derive(Deserialize)]
struct BraveResponse {
    #[serde(default)]
    web: Option<BraveWeb>,
}

#[derive(Deserialize)]
struct BraveWeb {
    #[serde(default)]
    results: Vec<BraveResult>,
}

#[derive(Deserialize)]
struct BraveResult {
    #[serde(default)]
    title: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    description: String,
}

fn clean(text: &str) -> String {
    if text.contains('<') {
        html_to_text(text)
    } else {
        decode_entities(text)
    }
}

#[async_trait]
impl WebSearchBackend for BraveSearch {
    fn name(&self) -> &str {
        "brave"
    }

    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchHit>, String> {
        let Some(key) = resolve_env_reference(&self.api_key).filter(|k| !k.is_empty()) else {
            let var = self
                .api_key
                .strip_prefix(ENV_REFERENCE_PREFIX)
                .filter(|v| !v.is_empty())
                .unwrap_or("BRAVE_API_KEY");
            return Err(format!(
                "Web search requires {var} environment variable. Get a free API key at https://brave.com/search/api/ (2,000 queries/month free)."
            ));
        };
        let resp = self
            .client
            .get(&self.base_url)
            .query(&[("q", query), ("count", &count.to_string())])
            .header("Accept", "application/json")
            .header("X-Subscription-Token", key)
            .send()
            .await
            .map_err(|e| format!("Brave Search API request failed: {}", e.without_url()))?;
        let status = resp.status();
        if !status.is_success() {
            return Err(format!(
                "Brave Search API error: HTTP {} {}",
                status.as_u16(),
                status.canonical_reason().unwrap_or("")
            )
            .trim_end()
            .to_string());
        }
        let body: BraveResponse = resp
            .json()
            .await
            .map_err(|e| format!("Brave Search API returned an invalid response: {e}"))?;
        Ok(body
            .web
            .map(|w| w.results)
            .unwrap_or_default()
            .into_iter()
            .take(count)
            .map(|r| SearchHit {
                title: clean(&r.title),
                url: r.url,
                snippet: clean(&r.description),
            })
            .collect())
    }
}

/// Builds the backend a [`WebSearchConfig`] names.
pub fn backend_from_config(
    config: &WebSearchConfig,
    client: reqwest::Client,
) -> Result<Arc<dyn WebSearchBackend>, String> {
    match config.provider.to_ascii_lowercase().as_str() {
        "brave" => Ok(Arc::new(BraveSearch::new(
            client,
            config.base_url.clone(),
            config.api_key.clone(),
        ))),
        other => Err(format!(
            "Unknown web search provider: {other} (available: brave)"
        )),
    }
}

/// Searches the web through the configured backend.
pub struct WebSearchTool {
    spec: Spec,
    backend: Result<Arc<dyn WebSearchBackend>, String>,
}

/// WebSearch's arguments.
#[derive(Deserialize)]
pub(crate) struct WebSearchArgs {
    query: String,
    #[serde(default, deserialize_with = "int")]
    limit: Option<i64>,
}

impl WebSearchTool {
    /// A WebSearch tool on `env` (backend from `env.config`).
    pub fn new(env: ToolEnv) -> Self {
        let client = env
            .config
            .http_client
            .clone()
            .unwrap_or_else(super::web_fetch::default_client);
        let backend = match (&env.config.web_search_backend, &env.config.web_search) {
            (Some(b), _) => Ok(b.clone()),
            (None, Some(cfg)) => backend_from_config(cfg, client),
            (None, None) => Err(WEB_SEARCH_NOT_CONFIGURED.to_string()),
        };
        WebSearchTool {
            backend,
            spec: Spec::of::<Self>(env),
        }
    }

    async fn run_search(&self, query: &str, limit: usize, cancel: CancellationToken) -> ToolOutput {
        let backend = match &self.backend {
            Ok(b) => b.clone(),
            Err(e) => return ToolOutput::fail(e.clone()),
        };
        let timeout_ms = self.spec.env.limits().web_search_timeout_ms;
        let search = backend.search(query, limit);
        bounded_by_time_and_cancel("Web search", search, timeout_ms, &cancel)
            .await
            .and_then(|hits| serde_json::to_string_pretty(&hits).map_err(|e| e.to_string()))
            .into()
    }
}

#[async_trait]
impl Builtin for WebSearchTool {
    type Args = WebSearchArgs;
    const NAME: &'static str = "WebSearch";
    const DESCRIPTION: &'static str = "Search the internet through the configured search backend. Parameters: query (required), limit (default 10, max 20). Returns a JSON array of {title, url, snippet}.";
    const READ_ONLY: bool = true;

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The search query"},
                "limit": {"type": "number", "description": "Maximum number of results (default 10, max 20)"}
            },
            "required": ["query"]
        })
    }
    fn spec(&self) -> &Spec {
        &self.spec
    }

    async fn run(&self, args: WebSearchArgs, ctx: &ToolContext) -> ToolOutput {
        let max_results = self.spec.env.limits().web_search_max_results.max(1) as i64;
        let limit = args.limit.unwrap_or(10).clamp(1, max_results) as usize;
        self.run_search(&args.query, limit, ctx.cancel.clone())
            .await
    }
}
