//! The context window an OpenAI-compatible server *serves* for a model (not the model's training
//! maximum), asked once per runtime and model and kept in a [`ContextWindows`] cache:
//! llama.cpp `GET /props` → `default_generation_settings.n_ctx`; vLLM `GET /v1/models` →
//! `max_model_len`; LM Studio `GET /api/v0/models` → `loaded_context_length`; Ollama
//! `POST /api/show` → `num_ctx` in its `parameters`, else Ollama's documented default
//! ([`OLLAMA_DEFAULT_CONTEXT`]). A server that tells nothing still names its window in an
//! OpenAI-style "maximum context length is N tokens" error: [`window_from_error`] reads it and
//! the provider stores it with [`ContextWindows::learn`].

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};

/// Ollama's default served window when the model sets no `num_ctx` (its docs: 4k below 24 GiB
/// of VRAM).
pub const OLLAMA_DEFAULT_CONTEXT: u64 = 4096;
/// Time allowed to each discovery request.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// Windows by `(base_url, model)`: `Some(None)` means "asked, nothing told".
#[derive(Debug, Default)]
pub struct ContextWindows {
    known: Mutex<HashMap<(String, String), Option<u64>>>,
}

impl ContextWindows {
    /// An empty cache (one per runtime).
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Option<u64>>> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What is known: `None` = never asked, `Some(None)` = asked, the server told nothing.
    pub fn get(&self, base_url: &str, model: &str) -> Option<Option<u64>> {
        self.lock()
            .get(&(base_url.to_string(), model.to_string()))
            .copied()
    }

    /// Records the window the server named (discovery or an overflow error).
    pub fn learn(&self, base_url: &str, model: &str, window: Option<u64>) {
        let mut known = self.lock();
        let slot = known
            .entry((base_url.to_string(), model.to_string()))
            .or_insert(None);
        if window.is_some() || slot.is_none() {
            *slot = window;
        }
    }
}

/// The window named by an OpenAI-style overflow error ("This model's maximum context length is
/// 8192 tokens. However, …"; also "maximum context length of N").
pub fn window_from_error(message: &str) -> Option<u64> {
    let lower = message.to_ascii_lowercase();
    let at = lower.find("maximum context length")?;
    lower[at..]
        .split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
}

/// The server root: `base_url` without a trailing `/v1`.
fn root(base_url: &str) -> &str {
    let b = base_url.trim_end_matches('/');
    b.strip_suffix("/v1").unwrap_or(b)
}

async fn get_json(req: reqwest::RequestBuilder) -> Option<Value> {
    let resp = tokio::time::timeout(PROBE_TIMEOUT, req.timeout(PROBE_TIMEOUT).send())
        .await
        .ok()?
        .ok()?;
    if !resp.status().is_success() {
        return None;
    }
    let bytes = tokio::time::timeout(PROBE_TIMEOUT, resp.bytes())
        .await
        .ok()?
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn entry<'a>(list: &'a Value, model: &str) -> Option<&'a Value> {
    let items = list.get("data")?.as_array()?;
    items
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (items.len() == 1).then(|| &items[0]))
}

/// `num_ctx N` in Ollama's `parameters` text (one `name value` per line).
fn ollama_num_ctx(parameters: &str) -> Option<u64> {
    parameters.lines().find_map(|l| {
        let mut it = l.split_whitespace();
        (it.next() == Some("num_ctx"))
            .then(|| it.next()?.parse().ok())
            .flatten()
    })
}

/// Asks the server at `base_url` for the window it serves `model` with, trying llama.cpp,
/// vLLM, LM Studio and Ollama in that order. `auth` adds the provider's credentials.
pub async fn discover(
    client: &reqwest::Client,
    base_url: &str,
    model: &str,
    auth: &(dyn Fn(reqwest::RequestBuilder) -> reqwest::RequestBuilder + Send + Sync),
) -> Option<u64> {
    let root = root(base_url);
    let base = base_url.trim_end_matches('/');
    // llama.cpp server.
    if let Some(v) = get_json(auth(client.get(format!("{root}/props")))).await {
        if let Some(n) = v
            .pointer("/default_generation_settings/n_ctx")
            .or_else(|| v.get("n_ctx"))
            .and_then(Value::as_u64)
        {
            return Some(n);
        }
    }
    // vLLM (`/v1/models` entries carry `max_model_len`).
    if let Some(v) = get_json(auth(client.get(format!("{base}/models")))).await {
        if let Some(n) = entry(&v, model)
            .and_then(|m| m.get("max_model_len"))
            .and_then(Value::as_u64)
        {
            return Some(n);
        }
    }
    // LM Studio REST API v0.
    if let Some(v) = get_json(auth(client.get(format!("{root}/api/v0/models")))).await {
        if let Some(n) = entry(&v, model)
            .and_then(|m| m.get("loaded_context_length"))
            .and_then(Value::as_u64)
        {
            return Some(n);
        }
    }
    // Ollama.
    let show = client
        .post(format!("{root}/api/show"))
        .json(&json!({ "model": model }));
    if let Some(v) = get_json(auth(show)).await {
        if v.get("model_info").is_some() || v.get("parameters").is_some() {
            return Some(
                v.get("parameters")
                    .and_then(Value::as_str)
                    .and_then(ollama_num_ctx)
                    .unwrap_or(OLLAMA_DEFAULT_CONTEXT),
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_named_by_errors() {
        assert_eq!(
            window_from_error("This model's maximum context length is 8192 tokens. However, you requested 9000 tokens"),
            Some(8192)
        );
        assert_eq!(
            window_from_error("Requested tokens (600) exceed context window of 512"),
            None
        );
        assert_eq!(window_from_error("bad request"), None);
    }

    #[test]
    fn ollama_parameters() {
        assert_eq!(
            ollama_num_ctx("num_ctx                        8192\nstop \"<|eot_id|>\""),
            Some(8192)
        );
        assert_eq!(ollama_num_ctx("stop \"x\""), None);
    }

    #[test]
    fn cache_keeps_what_was_learned() {
        let c = ContextWindows::new();
        assert_eq!(c.get("u", "m"), None);
        c.learn("u", "m", None);
        assert_eq!(c.get("u", "m"), Some(None));
        c.learn("u", "m", Some(512));
        c.learn("u", "m", None);
        assert_eq!(c.get("u", "m"), Some(Some(512)));
        assert_eq!(root("http://h:1/v1/"), "http://h:1");
    }
}
