//! Hook configuration types (`THooksConfig`, `IHookGroup`, `IHookDefinition`) and results.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Default timeout of a command hook: 10 s (configurable per hook).
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// Default timeout of an http hook.
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(10);
/// Exit code that blocks.
pub const EXIT_BLOCK: i32 = 2;
/// Reason used when a blocking hook printed nothing on stderr.
pub const DEFAULT_BLOCK_REASON: &str = "Blocked by hook";
/// Stderr of a command hook killed by its timeout.
pub const HOOK_TIMED_OUT: &str = "Hook timed out";

/// The 13 lifecycle events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum HookEvent {
    /// Before a tool runs (can block).
    PreToolUse,
    /// After a tool ran successfully.
    PostToolUse,
    /// Once per session, before the first prompt.
    SessionStart,
    /// When the session shuts down.
    SessionEnd,
    /// After each successful turn.
    Stop,
    /// After a failed turn.
    StopFailure,
    /// Before compaction.
    PreCompact,
    /// After compaction.
    PostCompact,
    /// Before each prompt is sent (can block the turn).
    UserPromptSubmit,
    /// A subagent started.
    SubagentStart,
    /// A subagent finished.
    SubagentStop,
    /// A worktree was created for a subagent.
    WorktreeCreate,
    /// A subagent worktree was removed.
    WorktreeRemove,
}

impl HookEvent {
    /// All events in reference order.
    pub const ALL: [HookEvent; 13] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::Stop,
        HookEvent::StopFailure,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::UserPromptSubmit,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::WorktreeCreate,
        HookEvent::WorktreeRemove,
    ];

    /// The wire name (`hook_event_name`).
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::Stop => "Stop",
            HookEvent::StopFailure => "StopFailure",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::PostCompact => "PostCompact",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::WorktreeCreate => "WorktreeCreate",
            HookEvent::WorktreeRemove => "WorktreeRemove",
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for HookEvent {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        HookEvent::ALL
            .into_iter()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = HookEvent::ALL.iter().map(|e| e.as_str()).collect();
                format!(
                    "Unknown hook event \"{s}\". Valid events: {}",
                    names.join(", ")
                )
            })
    }
}

/// One hook definition: its `type` plus the other fields, kept generically so any executor
/// kind (`command`, `http`, `prompt`, `agent`, a host's `host`, …) can be configured.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookDefinition {
    /// The `type` field (executor kind).
    pub kind: String,
    /// Every other field, as written.
    pub fields: Map<String, Value>,
}

impl HookDefinition {
    /// A definition of `kind` with no fields.
    pub fn new(kind: impl Into<String>) -> Self {
        HookDefinition {
            kind: kind.into(),
            fields: Map::new(),
        }
    }

    /// `{"type":"command","command":<command>}`.
    pub fn command(command: impl Into<String>) -> Self {
        Self::new("command").with("command", Value::String(command.into()))
    }

    /// `{"type":"http","url":<url>}`.
    pub fn http(url: impl Into<String>) -> Self {
        Self::new("http").with("url", Value::String(url.into()))
    }

    /// Sets a field (builder style).
    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.fields.insert(key.to_string(), value);
        self
    }

    /// A string field.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    /// The `timeout` field in seconds, if it is a positive finite number; `Err` names the problem.
    pub fn timeout(&self) -> Result<Option<Duration>, String> {
        match self.fields.get("timeout") {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_f64() {
                Some(secs) if secs.is_finite() && secs > 0.0 => {
                    Ok(Some(Duration::from_secs_f64(secs)))
                }
                _ => Err(format!(
                    "hook \"timeout\" must be a positive number of seconds, got {v}"
                )),
            },
        }
    }

    /// What the built-in executors read first: the string field `field` the hook cannot run
    /// without (its absence a failure naming the `kind` of hook) and the timeout (`default` when
    /// unset, a failure when it is not a positive number).
    pub(crate) fn field_and_timeout(
        &self,
        kind: &str,
        field: &str,
        default: Duration,
    ) -> Result<(&str, Duration), HookResult> {
        let Some(value) = self.str_field(field) else {
            return Err(HookResult::failure(format!(
                "{kind} hook is missing a \"{field}\" string"
            )));
        };
        let timeout = self.timeout().map_err(HookResult::failure)?;
        Ok((value, timeout.unwrap_or(default)))
    }

    /// A short label for warnings: the command, the url, or the kind.
    pub fn label(&self) -> String {
        self.str_field("command")
            .or_else(|| self.str_field("url"))
            .map_or_else(|| self.kind.clone(), str::to_string)
    }
}

impl Serialize for HookDefinition {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = Map::with_capacity(self.fields.len() + 1);
        m.insert("type".into(), Value::String(self.kind.clone()));
        m.extend(self.fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        m.serialize(s)
    }
}

/// The keys the executors of the session's hook types read; a definition may carry others
/// (they are kept, and a type with no executor is skipped with a warning).
impl JsonSchema for HookDefinition {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HookDefinition".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let timeout = "Seconds (default: command and http 10, prompt 30, agent 60).";
        json_schema!({
            "description": "One hook: `type` picks its executor, which reads the keys of its type.",
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {
                    "description": "`command`, `http`, `prompt`, `agent` or `host` (another type is skipped with a warning).",
                    "type": "string",
                    "minLength": 1
                },
                "command": {"description": "`command`: the shell command (`sh -c` in `cwd`).", "type": "string"},
                "url": {"description": "`http`: the URL the input JSON is POSTed to.", "type": "string"},
                "headers": {
                    "description": "`http`: extra request headers (`$NAME`, `${NAME}`, `$ENV:NAME` interpolated).",
                    "type": "object",
                    "additionalProperties": {"type": "string"}
                },
                "prompt": {"description": "`prompt`: what the session's provider is asked.", "type": "string"},
                "model": {"description": "`prompt`: the model (default: the session's).", "type": "string"},
                "agent": {"description": "`agent`: the subagent (default `general-purpose`).", "type": "string"},
                "maxTurns": {"description": "`agent`: its round cap (default 50).", "type": "integer", "minimum": 1},
                "timeout": {"description": timeout, "type": "number", "exclusiveMinimum": 0}
            }
        })
    }
}

impl<'de> Deserialize<'de> for HookDefinition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut fields = Map::<String, Value>::deserialize(d)?;
        let kind = match fields.remove("type") {
            Some(Value::String(k)) if !k.trim().is_empty() => k,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "hook definition \"type\" must be a non-empty string, got {other}"
                )))
            }
            None => {
                return Err(D::Error::custom(
                    "hook definition is missing \"type\" (command, http, …)",
                ))
            }
        };
        Ok(HookDefinition { kind, fields })
    }
}

/// A group: a matcher (unanchored regex; empty = all) and hooks run in order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "HookGroupDocument", extend("additionalProperties" = false))]
pub struct HookGroup {
    /// Regex searched in the match target (tool name, agent type, end reason; default: every
    /// target).
    #[serde(default)]
    pub matcher: String,
    /// Hooks run sequentially.
    #[serde(default)]
    pub hooks: Vec<HookDefinition>,
    /// Environment merged over the input's `env` for this group's hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
}

impl HookGroup {
    /// A group with a matcher and hooks.
    pub fn new(matcher: impl Into<String>, hooks: Vec<HookDefinition>) -> Self {
        HookGroup {
            matcher: matcher.into(),
            hooks,
            env: None,
        }
    }
}

/// `THooksConfig`: event → groups. Serializes as `{"PreToolUse":[{matcher,hooks}],…}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HooksConfig {
    /// Groups per event.
    pub events: BTreeMap<HookEvent, Vec<HookGroup>>,
}

impl HooksConfig {
    /// An empty config (no hooks).
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses the settings `hooks` object; errors name the bad event or field.
    pub fn from_json(value: &Value) -> Result<Self, String> {
        if value.is_null() {
            return Ok(Self::default());
        }
        serde_json::from_value(value.clone()).map_err(|e| format!("Invalid hooks config: {e}"))
    }

    /// Adds a group for `event` (builder style).
    pub fn with_group(mut self, event: HookEvent, group: HookGroup) -> Self {
        self.events.entry(event).or_default().push(group);
        self
    }

    /// Groups configured for `event`.
    pub fn groups(&self, event: HookEvent) -> &[HookGroup] {
        self.events.get(&event).map_or(&[], Vec::as_slice)
    }

    /// True when no event has a group.
    pub fn is_empty(&self) -> bool {
        self.events.values().all(Vec::is_empty)
    }
}

/// An object whose keys are the events ([`HookEvent::ALL`]), each a list of groups.
impl JsonSchema for HooksConfig {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HooksConfig".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let groups = generator.subschema_for::<Vec<HookGroup>>().to_value();
        let events: Map<String, Value> = HookEvent::ALL
            .iter()
            .map(|e| (e.as_str().to_string(), groups.clone()))
            .collect();
        json_schema!({
            "description": "Groups of hooks by event.",
            "type": "object",
            "properties": events,
            "additionalProperties": false
        })
    }
}

/// Result of one hook (`IHookResult`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookResult {
    /// 0 = allow, 2 = block, anything else = proceed with a warning.
    pub exit_code: i32,
    /// Collected when the exit code is 0.
    pub stdout: String,
    /// The block reason (exit 2) or the warning text.
    pub stderr: String,
}

impl HookResult {
    /// A result.
    pub fn new(exit_code: i32, stdout: impl Into<String>, stderr: impl Into<String>) -> Self {
        HookResult {
            exit_code,
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    /// `{1, "", message}`: the hook failed to run; the caller proceeds with a warning.
    pub fn failure(message: impl Into<String>) -> Self {
        Self::new(1, "", message)
    }
}

/// What `run_hooks` decided.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HookRunOutcome {
    /// A hook exited 2.
    pub blocked: bool,
    /// The blocking hook's stderr (or [`DEFAULT_BLOCK_REASON`]).
    pub reason: Option<String>,
    /// Trimmed non-blank stdout of exit-0 hooks, joined with `\n`.
    pub stdout: String,
    /// One line per hook that failed, exited with another code, or was skipped.
    pub warnings: Vec<String>,
    /// The tool input a PreToolUse hook rewrote (`hookSpecificOutput.updatedInput`; the last
    /// hook's wins, and later hooks see it as `tool_input`).
    pub updated_input: Option<Map<String, Value>>,
}
