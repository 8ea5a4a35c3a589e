//! The settings' provider (`currentProvider` must name an existing profile with a `type`): a
//! session whose JSON names no `"provider"` talks to the profile the settings resolve,
//! `providers[currentProvider]` (else the legacy `provider` block), built like a runtime profile:
//! `type` → `kind`, `apiKey` → `api_key`, `baseURL` → `base_url`, `timeout` → `timeout_ms` (`$ENV:`
//! references were resolved when the file was read).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::Settings;
use crate::core::provider::Provider;
use crate::providers::ProviderKind;
use crate::sdk::error::{SdkError, SdkResult};
use crate::sdk::runtime::RuntimeShared;

/// The resolved profile of the merged settings `m`: `providers[current]` when it exists and
/// has a `type`, else (no `currentProvider`) the legacy `provider` block with `name` as its
/// type (default `anthropic`).
pub fn resolve_profile(
    m: &Map<String, Value>,
    current: Option<&str>,
) -> Option<Map<String, Value>> {
    match current {
        Some(cp) => {
            let p = m.get("providers")?.get(cp)?.as_object()?;
            p.contains_key("type").then(|| p.clone())
        }
        None => {
            let mut p = m.get("provider")?.as_object()?.clone();
            let name = p.remove("name").unwrap_or_else(|| json!("anthropic"));
            p.insert("type".into(), name);
            Some(p)
        }
    }
}

/// The runtime profile JSON (`{"kind","api_key"?,"base_url"?,"timeout_ms"?}`) of a settings
/// profile.
pub fn runtime_profile(p: &Map<String, Value>) -> SdkResult<(ProviderKind, Value)> {
    let ty = p.get("type").and_then(Value::as_str).unwrap_or_default();
    let kind = ProviderKind::parse(ty)
        .filter(|k| *k != ProviderKind::Scripted)
        .ok_or_else(|| {
            SdkError::config(format!(
                "settings: provider type \"{ty}\" is not one of anthropic, openai, openai-compatible, openai-responses, azure-openai or gemini"
            ))
        })?;
    let mut out = json!({ "kind": kind.as_str() });
    for (from, to) in [("apiKey", "api_key"), ("baseURL", "base_url")] {
        if let Some(v) = p.get(from) {
            out[to] = v.clone();
        }
    }
    if let Some(t) = p.get("timeout").and_then(Value::as_f64) {
        out["timeout_ms"] = json!(t.round() as u64);
    }
    Ok((kind, out))
}

/// The provider of a session that names none: the settings' profile.
pub fn make(shared: &RuntimeShared, s: Option<&Settings>) -> SdkResult<Arc<dyn Provider>> {
    let Some(p) = s.and_then(|s| s.provider.as_ref()) else {
        return Err(SdkError::config(
            "session config: missing required field \"provider\" (and no settings file gives a provider profile)",
        ));
    };
    let (kind, profile) = runtime_profile(p)?;
    let name = s
        .and_then(|s| s.current_provider.clone())
        .unwrap_or_else(|| kind.as_str().to_string());
    shared.provider_from_profile(&name, kind, &profile)
}
