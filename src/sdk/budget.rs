//! Session budgets (`"budget"` in the session JSON): parsing, the tool wrapper that counts and
//! refuses tool calls, and the `ERROR` event of a turn the budget stopped.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use super::error::{SdkError, SdkResult};
use crate::core::budget::{Budget, BudgetExceeded, BudgetLimits};
use crate::core::tool::{Tool, ToolContext, ToolResult};

/// The keys of `"budget"`.
const KEYS: [&str; 5] = [
    "max_total_tokens",
    "max_cost_usd",
    "max_wall_ms",
    "max_tool_calls",
    "max_model_calls",
];

/// Parses `"budget"`: every limit a non-negative number; `max_cost_usd` needs the model's price,
/// which the model table does not know for `model` (refused, naming it).
pub fn parse_budget(map: &Map<String, Value>, model: &str) -> SdkResult<Option<BudgetLimits>> {
    const W: &str = "session config: field \"budget\"";
    let obj = match map.get("budget") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(SdkError::config(format!("{W} must be an object"))),
    };
    if let Some(k) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(SdkError::config(format!(
            "{W}: unknown limit \"{k}\" (expected one of: {})",
            KEYS.join(", ")
        )));
    }
    let num = |key: &str| -> SdkResult<Option<u64>> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                SdkError::config(format!(
                    "{W}: \"{key}\" must be a non-negative integer, got {v}"
                ))
            }),
        }
    };
    match obj.get("max_cost_usd") {
        None | Some(Value::Null) => {}
        Some(v) if v.as_f64().is_some_and(|f| f >= 0.0) => {
            return Err(SdkError::config(format!(
                "{W}: \"max_cost_usd\" needs the price of model \"{model}\", which the model table does not know"
            )))
        }
        Some(v) => {
            return Err(SdkError::config(format!(
                "{W}: \"max_cost_usd\" must be a non-negative number, got {v}"
            )))
        }
    }
    Ok(Some(BudgetLimits {
        max_total_tokens: num("max_total_tokens")?,
        max_wall_ms: num("max_wall_ms")?,
        max_tool_calls: num("max_tool_calls")?,
        max_model_calls: num("max_model_calls")?,
    }))
}

/// A tool whose calls count against the session's budget; a call over the limit is not run.
pub struct BudgetTool {
    inner: Arc<dyn Tool>,
    budget: Arc<Budget>,
}

/// Wraps every tool of a session with a budget.
pub fn wrap_tools(tools: Vec<Arc<dyn Tool>>, budget: &Arc<Budget>) -> Vec<Arc<dyn Tool>> {
    tools
        .into_iter()
        .map(|inner| {
            Arc::new(BudgetTool {
                inner,
                budget: budget.clone(),
            }) as Arc<dyn Tool>
        })
        .collect()
}

#[async_trait]
impl Tool for BudgetTool {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn description(&self) -> &str {
        self.inner.description()
    }
    fn parameters(&self) -> &Value {
        self.inner.parameters()
    }
    fn read_only(&self) -> bool {
        self.inner.read_only()
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        self.budget
            .check_tool_call()
            .map_err(|e| format!("{}; this tool call was not run", e.message()))?;
        self.inner.execute(args, ctx).await
    }
}

/// The `ERROR` event payload of a turn the budget stopped.
pub fn exceeded_event(e: &BudgetExceeded) -> Value {
    json!({"code": "BUDGET_EXCEEDED", "category": "budget", "recoverable": false,
           "message": e.message(), "limit": e.limit, "max": e.max, "used": e.used})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: Value) -> SdkResult<Option<BudgetLimits>> {
        parse_budget(v.as_object().unwrap(), "m")
    }

    #[test]
    fn bad_budgets_name_the_limit() {
        let l = parse(json!({"budget": {"max_model_calls": 3}}))
            .unwrap()
            .unwrap();
        assert_eq!(l.max_model_calls, Some(3));
        let e = parse(json!({"budget": {"max_tool_calls": -1}})).unwrap_err();
        assert_eq!(e.message, "session config: field \"budget\": \"max_tool_calls\" must be a non-negative integer, got -1");
        let e = parse(json!({"budget": {"max_wall_ms": "1s"}})).unwrap_err();
        assert!(e
            .message
            .contains("\"max_wall_ms\" must be a non-negative integer"));
        let e = parse(json!({"budget": {"max_cost_usd": 1.5}})).unwrap_err();
        assert!(
            e.message.contains("needs the price of model \"m\""),
            "{}",
            e.message
        );
        let e = parse(json!({"budget": {"max_cost_usd": -1}})).unwrap_err();
        assert!(e
            .message
            .contains("\"max_cost_usd\" must be a non-negative number"));
        let e = parse(json!({"budget": {"tokens": 1}})).unwrap_err();
        assert!(e.message.contains("unknown limit \"tokens\""));
    }
}
