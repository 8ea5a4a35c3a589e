//! Reading the typed documents ([`RuntimeDocument`], [`SessionDocument`]) from a JSON object
//! field by field, so that a value of the wrong type is refused with the message that names its
//! field. Fields read elsewhere stay unset here: the lists whose order matters, which their
//! modules read into their documents (`commands`: [`super::host_commands::documents`],
//! `agents`: [`super::agents::documents`], `mcp_servers`:
//! [`crate::sdk::mcp::config::documents`]), and provider profiles' `headers` and kind keys
//! (the provider layer reads them).

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::document::{
    BudgetDocument, PermissionsDocument, ProviderProfile, RuntimeDocument, SessionDocument,
    ThinkingDocument, ThresholdDocument, TranscriptDocument,
};
use super::fields::Fields;
use super::{check_strict, document};
use crate::core::hooks::{HookGroup, HooksConfig};
use crate::core::tool_choice::ToolChoice;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::tools::ToolsConfig;

/// `map[key]` as a `T` that passes `ok` (absent or `null`: `None`); otherwise `err` of the value.
pub fn checked<T: DeserializeOwned>(
    map: &Map<String, Value>,
    key: &str,
    ok: impl FnOnce(&T) -> bool,
    err: impl FnOnce(&Value) -> SdkError,
) -> SdkResult<Option<T>> {
    match map.field(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match T::deserialize(v) {
            Ok(t) if ok(&t) => Ok(Some(t)),
            _ => Err(err(v)),
        },
    }
}

/// `map[key]` as a `T`; a value of another type fails with
/// `<what>: field "<key>" must be <expectation>`.
pub fn field<T: DeserializeOwned>(
    what: &str,
    map: &Map<String, Value>,
    key: &str,
    expectation: &str,
) -> SdkResult<Option<T>> {
    checked(map, key, |_| true, |_| must_be(what, key, expectation))
}

/// A field holding a nested document of type `T` (absent or `null`: `None`); serde's message
/// names the bad member: `<what>: field "<key>": <message>`.
fn document_field<T: DeserializeOwned>(
    what: &str,
    map: &Map<String, Value>,
    key: &str,
) -> SdkResult<Option<T>> {
    match map.field(key).filter(|v| !v.is_null()) {
        None => Ok(None),
        Some(v) => serde_json::from_value(v.clone())
            .map(Some)
            .map_err(|e| SdkError::config(format!("{what}: field \"{key}\": {e}"))),
    }
}

/// `<what>: field "<key>" must be <expectation>`.
pub fn must_be(what: &str, key: &str, expectation: &str) -> SdkError {
    SdkError::config(format!("{what}: field \"{key}\" must be {expectation}"))
}

/// A string field naming a variant of `T`: another type fails as [`field`] (`a string`), an
/// unknown name with `bad(name)`.
pub fn name<T: DeserializeOwned>(
    what: &str,
    map: &Map<String, Value>,
    key: &str,
    bad: impl FnOnce(&str) -> String,
) -> SdkResult<Option<T>> {
    let Some(s) = field::<String>(what, map, key, "a string")? else {
        return Ok(None);
    };
    let de = serde::de::value::StrDeserializer::<serde::de::value::Error>::new(&s);
    T::deserialize(de)
        .map(Some)
        .map_err(|_| SdkError::config(format!("{what}: field \"{key}\" {}", bad(&s))))
}

const NON_NEGATIVE: &str = "a non-negative integer";
const BOOL: &str = "true or false";

/// The runtime document of `map` (already checked for unknown keys).
pub fn runtime_document(w: &str, map: &Map<String, Value>) -> SdkResult<RuntimeDocument> {
    let providers_v = map
        .get("providers")
        .ok_or_else(|| SdkError::config(format!("{w}: missing required field \"providers\"")))?;
    let Value::Object(pmap) = providers_v else {
        return Err(must_be(
            w,
            "providers",
            "an object of named provider profiles",
        ));
    };
    let mut providers = BTreeMap::new();
    for (name, profile) in pmap {
        let Value::Object(p) = profile else {
            return Err(SdkError::config(format!(
                "{w}: provider \"{name}\" must be an object"
            )));
        };
        let what = format!("{w}: provider \"{name}\"");
        let kind = field::<String>(&what, p, "kind", "a string")?
            .ok_or_else(|| SdkError::config(format!("{what}: missing required field \"kind\"")))?;
        let profile = ProviderProfile {
            kind,
            base_url: field(&what, p, "base_url", "a string")?,
            api_key: field(&what, p, "api_key", "a string")?,
            headers: None,
            timeout_ms: field(&what, p, "timeout_ms", NON_NEGATIVE)?,
            max_retries: field(&what, p, "max_retries", NON_NEGATIVE)?,
            kind_keys: Map::new(),
        };
        providers.insert(name.clone(), profile);
    }
    Ok(RuntimeDocument {
        providers,
        worker_threads: field(w, map, "worker_threads", NON_NEGATIVE)?,
        request_timeout_decision: name(w, map, "request_timeout_decision", |s| {
            format!("must be \"deny\" or \"allow\", got \"{s}\"")
        })?,
        session_dir: field(w, map, "session_dir", "a string")?,
        request_timeout_ms: field(w, map, "request_timeout_ms", NON_NEGATIVE)?,
        env: field(w, map, "env", "an object of string values")?,
        plugin_dirs: field(w, map, "plugin_dirs", "an array of folder paths")?,
        strict: None,
    })
}

/// `map[key]` unless absent or `null`; an object must have only the keys of `T`.
fn nested<'a, T: DeserializeOwned>(
    w: &str,
    map: &'a Map<String, Value>,
    key: &str,
) -> SdkResult<Option<&'a Value>> {
    let Some(v) = map.field(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    if let Value::Object(o) = v {
        check_strict(&format!("{w}: field \"{key}\""), o, document::keys::<T>())?;
    }
    Ok(Some(v))
}

/// `thinking`: `{"budget_tokens": N}` (the semantic checks are the parser's).
fn thinking(w: &str, map: &Map<String, Value>) -> SdkResult<Option<ThinkingDocument>> {
    let Some(v) = nested::<ThinkingDocument>(w, map, "thinking")? else {
        return Ok(None);
    };
    let t = v
        .as_object()
        .filter(|t| t.contains_key("budget_tokens"))
        .ok_or_else(|| must_be(w, "thinking", "{\"budget_tokens\": N}"))?;
    let positive = || must_be(w, "thinking.budget_tokens", "a positive integer");
    let budget_tokens =
        checked::<u64>(t, "budget_tokens", |_| true, |_| positive())?.ok_or_else(positive)?;
    Ok(Some(ThinkingDocument { budget_tokens }))
}

/// `budget`: an object of limits, each `<W>: "<key>" must be …, got <value>` when wrong.
fn budget(map: &Map<String, Value>) -> SdkResult<Option<BudgetDocument>> {
    const W: &str = "session config: field \"budget\"";
    let obj = match map.field("budget") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(SdkError::config(format!("{W} must be an object"))),
    };
    check_strict(W, obj, document::keys::<BudgetDocument>())?;
    let bad = |key: &'static str, what: &'static str| {
        move |v: &Value| SdkError::config(format!("{W}: \"{key}\" must be {what}, got {v}"))
    };
    let num = |key: &'static str| checked::<u64>(obj, key, |_| true, bad(key, NON_NEGATIVE));
    Ok(Some(BudgetDocument {
        max_total_tokens: num("max_total_tokens")?,
        max_cost_usd: checked(
            obj,
            "max_cost_usd",
            |f: &f64| *f >= 0.0 && f.is_finite(),
            bad("max_cost_usd", "a non-negative number"),
        )?,
        max_wall_ms: num("max_wall_ms")?,
        max_tool_calls: num("max_tool_calls")?,
        max_model_calls: num("max_model_calls")?,
    }))
}

/// The session document of `map` (already checked for unknown keys).
pub fn session_document(w: &str, map: &Map<String, Value>) -> SdkResult<SessionDocument> {
    let mut doc = SessionDocument::default();
    core_keys(w, map, &mut doc)?;
    model_call_keys(w, map, &mut doc)?;
    prompt_and_tool_keys(w, map, &mut doc)?;
    Ok(doc)
}

/// The keys of docs/configuration.md's "Core keys": the provider and model, the tools and who
/// may run them, the session's identity and delivery.
fn core_keys(w: &str, map: &Map<String, Value>, doc: &mut SessionDocument) -> SdkResult<()> {
    doc.settings = name(w, map, "settings", |s| {
        format!("must be \"none\", \"user\" or \"project\", got \"{s}\"")
    })?;
    doc.provider = field(w, map, "provider", "a string")?;
    doc.model = field(w, map, "model", "a string")?;
    doc.cwd = field(w, map, "cwd", "a string")?;
    doc.tools = field(w, map, "tools", "an array of tool names")?;
    doc.permissions = permissions(w, map)?;
    doc.hooks = hooks(w, map)?;
    doc.max_rounds = checked(
        map,
        "max_rounds",
        |n: &u64| i64::try_from(*n).is_ok(),
        |_| must_be(w, "max_rounds", "a non-negative integer (0 = unlimited)"),
    )?;
    doc.system_prompt = field(w, map, "system_prompt", "a string")?;
    doc.permission_mode = name(w, map, "permission_mode", |s| {
        format!("must be one of plan, default, acceptEdits, bypassPermissions; got \"{s}\"")
    })?;
    doc.delivery = name(w, map, "delivery", |s| {
        format!("must be \"thread\", \"inline\", \"pump\" or \"pull\", got \"{s}\"")
    })?;
    doc.session_id = field(w, map, "session_id", "a string")?;
    doc.persist = field(w, map, "persist", BOOL)?;
    doc.replay_events = field(w, map, "replay_events", BOOL)?;
    doc.request_timeout_ms = field(w, map, "request_timeout_ms", NON_NEGATIVE)?;
    doc.name = field(w, map, "name", "a string")?;
    Ok(())
}

/// The keys of "Model-call keys": what every model call of the session is sent with.
fn model_call_keys(w: &str, map: &Map<String, Value>, doc: &mut SessionDocument) -> SdkResult<()> {
    doc.temperature = checked(
        map,
        "temperature",
        |t: &f64| (0.0..=2.0).contains(t),
        |_| must_be(w, "temperature", "a number from 0 to 2"),
    )?;
    doc.context_window = checked(
        map,
        "context_window",
        |n: &u64| *n >= 1,
        |_| {
            must_be(
                w,
                "context_window",
                &format!("an integer from 1 to {}", u64::MAX),
            )
        },
    )?;
    doc.max_tokens = checked(
        map,
        "max_tokens",
        |n: &u64| (1..=u64::from(u32::MAX)).contains(n),
        |_| {
            must_be(
                w,
                "max_tokens",
                &format!("an integer from 1 to {}", u32::MAX),
            )
        },
    )?;
    doc.tool_choice = match map.field("tool_choice").filter(|v| !v.is_null()) {
        None => None,
        Some(v) => Some(
            ToolChoice::from_json(&format!("{w}: field \"tool_choice\""), v)
                .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))?,
        ),
    };
    doc.output_schema = super::call_settings::output_schema(w, map.field("output_schema"))?
        .map(|s| s.schema().as_object().cloned().unwrap_or_default());
    doc.thinking = thinking(w, map)?;
    doc.native_web_search = field(w, map, "native_web_search", BOOL)?;
    doc.prompt_cache = super::prompt_cache::read(w, map)?;
    Ok(())
}

/// The keys of "Prompt, settings and tool keys" read here (`commands`, `agents` and
/// `mcp_servers` are read by their modules).
fn prompt_and_tool_keys(
    w: &str,
    map: &Map<String, Value>,
    doc: &mut SessionDocument,
) -> SdkResult<()> {
    doc.system_prompt_mode = field(w, map, "system_prompt_mode", "\"append\" or \"replace\"")?;
    doc.language = field(w, map, "language", "a string")?;
    doc.tool_config = match map.field("tool_config").filter(|v| !v.is_null()) {
        None => None,
        Some(v) => Some(
            ToolsConfig::from_json(v)
                .map_err(|e| SdkError::config(format!("{w}: field \"tool_config\": {e}")))?,
        ),
    };
    doc.tool_env = document_field(w, map, "tool_env")?;
    if let Some(Err(e)) = doc.tool_env.as_ref().map(|p| p.validate()) {
        return Err(SdkError::config(format!("{w}: field \"tool_env\": {e}")));
    }
    doc.sandbox = document_field(w, map, "sandbox")?;
    doc.host_io = field(w, map, "host_io", BOOL)?;
    doc.auto_compact_threshold = checked(
        map,
        "auto_compact_threshold",
        |t: &ThresholdDocument| match t {
            ThresholdDocument::Fraction(t) => *t > 0.0 && *t <= 1.0,
            ThresholdDocument::Off(on) => !*on,
        },
        |v| {
            SdkError::config(format!(
                "{w}: field \"auto_compact_threshold\" must be a number greater than 0 and at most 1, or false, got {v}"
            ))
        },
    )?;
    doc.compact_instructions = field(w, map, "compact_instructions", "a string")?;
    doc.transcript = checked(
        map,
        "transcript",
        |t: &TranscriptDocument| !matches!(t, TranscriptDocument::Dir(d) if d.is_empty()),
        |v| {
            SdkError::config(format!(
                "{w}: field \"transcript\" must be true, false or a directory path, got {v}"
            ))
        },
    )?;
    doc.record = field(w, map, "record", "a string")?;
    doc.budget = budget(map)?;
    doc.team = field(w, map, "team", BOOL)?;
    Ok(())
}

/// `permissions`: `{"allow":[…],"deny":[…]}` with no other key.
fn permissions(w: &str, map: &Map<String, Value>) -> SdkResult<Option<PermissionsDocument>> {
    let Some(v) = nested::<PermissionsDocument>(w, map, "permissions")? else {
        return Ok(None);
    };
    // The detail is the one the permission lists' own type gives.
    PermissionsDocument::deserialize(v).map(Some).map_err(|_| {
        let e = crate::core::permissions::PermissionLists::deserialize(v)
            .err()
            .map_or_else(String::new, |e| e.to_string());
        must_be(
            w,
            "permissions",
            &format!("{{\"allow\":[…],\"deny\":[…]}}: {e}"),
        )
    })
}

/// `hooks`: an object keyed by hook event whose groups have no unknown key, read as the
/// engine's [`HooksConfig`] (whose errors name the bad event or definition).
fn hooks(w: &str, map: &Map<String, Value>) -> SdkResult<Option<HooksConfig>> {
    let (v, events) = match map.field("hooks") {
        None | Some(Value::Null) => return Ok(None),
        Some(v @ Value::Object(events)) => (v, events),
        Some(_) => return Err(must_be(w, "hooks", "an object keyed by hook event")),
    };
    for (event, groups) in events {
        let objects = groups.as_array().into_iter().flatten();
        for g in objects.filter_map(Value::as_object) {
            check_strict(
                &format!("{w}: field \"hooks\": a \"{event}\" group"),
                g,
                document::keys::<HookGroup>(),
            )?;
        }
    }
    HooksConfig::from_json(v)
        .map(Some)
        .map_err(|e| SdkError::config(format!("{w}: field \"hooks\": {e}")))
}
