//! Tool execution state shown to hosts (`IToolState`), the `firstArg` shortening and the
//! `tool-summary` history entry.

use serde::Serialize;
use serde_json::{json, Value};

use crate::core::diff::{DiffLine, FileDiff};
use crate::core::history::{EntryData, EventData};

/// Completed entries kept in the active-tools list.
pub const MAX_COMPLETED_TOOLS: usize = 50;

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolOutcome {
    /// Ran and succeeded.
    Success,
    /// Ran and failed.
    Error,
    /// Refused by permissions.
    Denied,
}

impl ToolOutcome {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolOutcome::Success => "success",
            ToolOutcome::Error => "error",
            ToolOutcome::Denied => "denied",
        }
    }

    fn mark(self) -> &'static str {
        match self {
            ToolOutcome::Success => "✓",
            ToolOutcome::Error => "✗",
            ToolOutcome::Denied => "⊘",
        }
    }
}

/// `IToolState`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolState {
    /// Tool name.
    pub tool_name: String,
    /// First argument, shortened.
    pub first_arg: String,
    /// Still running.
    pub is_running: bool,
    /// Outcome once finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolOutcome>,
    /// The changed lines of a successful Edit or Write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_lines: Option<Vec<DiffLine>>,
    /// The file of `diff_lines`, as the call named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_file: Option<String>,
}

/// The value of the first argument in the schema's property order (`schema.properties` as
/// declared; an argument the schema does not list comes after the listed ones, in the order
/// received): strings raw, others JSON; longer than 80 chars → first 47 + `...` + last 30.
pub fn first_arg(args: &Value, schema: &Value) -> String {
    let Value::Object(m) = args else {
        return String::new();
    };
    let declared = schema
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|props| props.keys().find_map(|k| m.get(k)));
    let raw = match declared.or_else(|| m.values().next()) {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    let n = raw.chars().count();
    if n <= 80 {
        return raw;
    }
    let head: String = raw.chars().take(47).collect();
    let tail: String = raw.chars().skip(n - 30).collect();
    format!("{head}...{tail}")
}

/// The list of running and recently completed tools.
#[derive(Debug, Clone, Default)]
pub struct ToolStates {
    items: Vec<ToolState>,
}

impl ToolStates {
    /// Empties the list (start of a turn).
    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// A tool started (`schema`: its JSON Schema, for the argument order); returns its state.
    pub fn start(&mut self, name: &str, args: &Value, schema: &Value) -> ToolState {
        let st = ToolState {
            tool_name: name.to_string(),
            first_arg: first_arg(args, schema),
            is_running: true,
            result: None,
            diff_lines: None,
            diff_file: None,
        };
        self.items.push(st.clone());
        st
    }

    /// The first running entry named `name` changed a file: its diff.
    pub fn set_diff(&mut self, name: &str, diff: &FileDiff) {
        if let Some(t) = self
            .items
            .iter_mut()
            .find(|t| t.is_running && t.tool_name == name)
        {
            t.diff_lines = Some(diff.lines.clone());
            t.diff_file = Some(diff.file.clone());
        }
    }

    /// A tool ended: the first running entry with that name gets the outcome; a denied tool
    /// that never started is added as finished. Returns its state.
    pub fn end(&mut self, name: &str, args: &Value, outcome: ToolOutcome) -> ToolState {
        let st = if let Some(t) = self
            .items
            .iter_mut()
            .find(|t| t.is_running && t.tool_name == name)
        {
            t.is_running = false;
            t.result = Some(outcome);
            t.clone()
        } else {
            let t = ToolState {
                tool_name: name.to_string(),
                first_arg: first_arg(args, &Value::Null),
                is_running: false,
                result: Some(outcome),
                diff_lines: None,
                diff_file: None,
            };
            self.items.push(t.clone());
            t
        };
        let completed = self.items.iter().filter(|t| !t.is_running).count();
        if completed > MAX_COMPLETED_TOOLS {
            let mut drop_n = completed - MAX_COMPLETED_TOOLS;
            self.items.retain(|t| {
                if drop_n > 0 && !t.is_running {
                    drop_n -= 1;
                    false
                } else {
                    true
                }
            });
        }
        st
    }

    /// Current list.
    pub fn items(&self) -> &[ToolState] {
        &self.items
    }

    /// One summary line per tool: `⟳`/`✓`/`✗`/`⊘` then `Name(firstArg)`.
    pub fn summary(&self) -> String {
        summary_of(&self.items)
    }

    /// Data of the `tool-summary` entry: the list as it is now, made into
    /// `{"tools":[…],"summary":"…"}` when the timeline is read.
    pub fn summary_data(&self) -> EventData {
        EventData::lazy(ToolSummary(self.items.clone()))
    }
}

/// The summary lines of `items` ([`ToolStates::summary`]).
fn summary_of(items: &[ToolState]) -> String {
    items
        .iter()
        .map(|t| {
            let mark = if t.is_running {
                "⟳"
            } else {
                t.result.map_or("✓", ToolOutcome::mark)
            };
            format!("{mark} {}({})", t.tool_name, t.first_arg)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `tool-start` / `tool-end` entry's data: the tool's state at that moment.
impl EntryData for ToolState {
    fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A `tool-summary` entry's data: the tool list at the turn's end.
#[derive(Debug)]
struct ToolSummary(Vec<ToolState>);

impl EntryData for ToolSummary {
    fn to_value(&self) -> Value {
        json!({"tools": self.0, "summary": summary_of(&self.0)})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_arg_shortens_long_values() {
        let none = Value::Null;
        assert_eq!(first_arg(&json!({"filePath": "/a/b"}), &none), "/a/b");
        assert_eq!(first_arg(&json!({"n": 5, "x": "y"}), &none), "5");
        assert_eq!(first_arg(&json!({}), &none), "");
        let long: String = "a".repeat(50) + &"b".repeat(50);
        let s = first_arg(&json!({ "p": long }), &none);
        assert_eq!(s, "a".repeat(47) + "..." + &"b".repeat(30));
    }

    #[test]
    fn first_arg_follows_the_schema_property_order() {
        let schema = json!({"type": "object", "properties": {
            "zeta": {"type": "string"}, "alpha": {"type": "string"}, "mid": {"type": "number"}}});
        // Received in another order: the schema's first property present wins.
        let args = json!({"alpha": "a", "mid": 3, "zeta": "z"});
        assert_eq!(first_arg(&args, &schema), "z");
        assert_eq!(first_arg(&json!({"mid": 3, "alpha": "a"}), &schema), "a");
        assert_eq!(first_arg(&json!({"mid": 3}), &schema), "3");
        // Arguments the schema does not list only count when no listed one is present.
        assert_eq!(first_arg(&json!({"other": "o", "mid": 3}), &schema), "3");
        assert_eq!(first_arg(&json!({"other": "o"}), &schema), "o");
    }

    #[test]
    fn end_marks_first_running_entry_and_summarizes() {
        let mut t = ToolStates::default();
        t.start("Read", &json!({"filePath": "/x"}), &Value::Null);
        t.start("Read", &json!({"filePath": "/y"}), &Value::Null);
        t.end("Read", &json!({"filePath": "/x"}), ToolOutcome::Success);
        t.end("Write", &json!({"filePath": "/z"}), ToolOutcome::Denied);
        assert_eq!(t.summary(), "✓ Read(/x)\n⟳ Read(/y)\n⊘ Write(/z)");
    }
}
