//! `runHooks(config, event, input, executors)`, hooks run one after another: select the event's
//! groups by matcher, run their hooks in order, stop at the first block (exit 2), collect exit-0
//! stdout, and turn everything else into warnings. Exit-0 stdout that is a JSON object follows the
//! JSON protocol of [`super::json_output`]. A PreToolUse `updatedInput` that is not a JSON object
//! blocks the call with a reason naming the hook (running the original input would ignore the
//! hook's intent).

use regex::Regex;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::json_output::parse_json_output;
use super::registry::HookExecutorRegistry;
use super::types::{
    HookEvent, HookGroup, HookRunOutcome, HooksConfig, DEFAULT_BLOCK_REASON, EXIT_BLOCK,
};

/// The text a group's matcher is searched in: `tool_name` when present, else the agent type
/// (or id) for subagent events, the `reason` for `SessionEnd`, else nothing.
pub fn matcher_target(event: HookEvent, input: &Value) -> Option<String> {
    let s = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(t) = s("tool_name") {
        return Some(t);
    }
    match event {
        HookEvent::SubagentStart | HookEvent::SubagentStop => {
            s("agent_type").or_else(|| s("agent_id"))
        }
        HookEvent::SessionEnd => s("reason"),
        _ => None,
    }
}

/// Whether `matcher` selects `target`: empty → always; no target → never; else an unanchored
/// regex search, falling back to string equality when the regex is invalid.
pub fn matcher_matches(matcher: &str, target: Option<&str>) -> bool {
    if matcher.is_empty() {
        return true;
    }
    let Some(target) = target else { return false };
    match Regex::new(matcher) {
        Ok(re) => re.is_match(target),
        Err(_) => matcher == target,
    }
}

fn group_input(input: &Value, group: &HookGroup) -> Value {
    let Some(env) = &group.env else {
        return input.clone();
    };
    let mut obj = match input {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    let mut merged = match obj.get("env") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    for (k, v) in env {
        merged.insert(k.clone(), Value::String(v.clone()));
    }
    obj.insert("env".into(), Value::Object(merged));
    Value::Object(obj)
}

/// `a string`, `an array`, … (error messages).
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Runs the hooks of `event` (see the module doc). Never fails.
pub async fn run_hooks(
    config: &HooksConfig,
    event: HookEvent,
    input: &Value,
    registry: &HookExecutorRegistry,
) -> HookRunOutcome {
    run_hooks_with_cancel(config, event, input, registry, CancellationToken::new()).await
}

/// [`run_hooks`] that stops running hooks when `cancel` fires (remaining hooks are skipped).
pub async fn run_hooks_with_cancel(
    config: &HooksConfig,
    event: HookEvent,
    input: &Value,
    registry: &HookExecutorRegistry,
    cancel: CancellationToken,
) -> HookRunOutcome {
    let mut outcome = HookRunOutcome::default();
    let groups = config.groups(event);
    if groups.is_empty() {
        return outcome;
    }
    let target = matcher_target(event, input);
    let mut parts: Vec<String> = Vec::new();
    // The input with the latest `updatedInput` as `tool_input`, once a hook rewrote it.
    let mut rewritten: Option<Value> = None;
    for group in groups {
        if !matcher_matches(&group.matcher, target.as_deref()) {
            continue;
        }
        let mut ginput = group_input(rewritten.as_ref().unwrap_or(input), group);
        for def in &group.hooks {
            if cancel.is_cancelled() {
                outcome.stdout = parts.join("\n");
                return outcome;
            }
            let Some(executor) = registry.get(&def.kind) else {
                outcome.warnings.push(format!(
                    "{event} hook of unknown type \"{}\" skipped",
                    def.kind
                ));
                continue;
            };
            let r = executor.execute(def, &ginput, cancel.clone()).await;
            match r.exit_code {
                0 => match parse_json_output(event, &r.stdout) {
                    Some(json) => {
                        parts.extend(json.context);
                        let block = match json.updated_input {
                            None => json.block,
                            Some(Value::Object(m)) => {
                                let base = rewritten.get_or_insert_with(|| input.clone());
                                for v in [base, &mut ginput] {
                                    if let Value::Object(o) = v {
                                        o.insert("tool_input".into(), Value::Object(m.clone()));
                                    }
                                }
                                outcome.updated_input = Some(m);
                                json.block
                            }
                            Some(other) => Some(format!(
                                "{event} hook \"{}\" returned an invalid updatedInput: it must be a JSON object, not {}",
                                def.label(),
                                json_kind(&other)
                            )),
                        };
                        if let Some(reason) = block {
                            outcome.blocked = true;
                            outcome.reason = Some(reason);
                            outcome.stdout = parts.join("\n");
                            return outcome;
                        }
                    }
                    None => {
                        let t = r.stdout.trim();
                        if !t.is_empty() {
                            parts.push(t.to_string());
                        }
                    }
                },
                EXIT_BLOCK => {
                    let reason = r.stderr.trim();
                    outcome.blocked = true;
                    outcome.reason = Some(if reason.is_empty() {
                        DEFAULT_BLOCK_REASON.to_string()
                    } else {
                        reason.to_string()
                    });
                    outcome.stdout = parts.join("\n");
                    return outcome;
                }
                code => {
                    let detail = r.stderr.trim();
                    let mut w = format!("{event} hook \"{}\" exited with code {code}", def.label());
                    if !detail.is_empty() {
                        w.push_str(": ");
                        w.push_str(detail);
                    }
                    outcome.warnings.push(w);
                }
            }
        }
    }
    outcome.stdout = parts.join("\n");
    outcome
}
