//! Session budgets (`"budget"` in the session JSON): parsing, the session's [`Budget`] (tool
//! calls are counted by the tool dispatcher, model calls by the engine, compaction and `prompt`
//! hooks; subagents, `agent` hooks and `assignTask` children share their parent's), the `cost`
//! command's view and the `ERROR` event of a turn the budget stopped.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::core::budget::{usd, Budget, BudgetExceeded, BudgetLimits, BudgetSpent};
use crate::core::models::model_price;
use crate::sdk::config::document::BudgetDocument;
use crate::sdk::config::SessionConfig;
use crate::sdk::error::{SdkError, SdkResult};

/// The limits of `"budget"` (checked by [`super::read`]); `max_cost_usd` needs the model's
/// price, which the model table does not know for `model` (refused, naming it).
pub fn parse_budget(b: Option<&BudgetDocument>, model: &str) -> SdkResult<Option<BudgetLimits>> {
    let Some(b) = b else { return Ok(None) };
    if b.max_cost_usd.is_some() && model_price(model).is_none() {
        return Err(SdkError::config(format!(
            "session config: field \"budget\": \"max_cost_usd\" needs the price of model \"{model}\", which the model table does not know"
        )));
    }
    Ok(Some(BudgetLimits {
        max_total_tokens: b.max_total_tokens,
        max_cost_usd: b.max_cost_usd,
        max_wall_ms: b.max_wall_ms,
        max_tool_calls: b.max_tool_calls,
        max_model_calls: b.max_model_calls,
    }))
}

/// The session's budget: the one it shares with the session that started it, else its own
/// (`None` without `"budget"`), continuing from `spent` (a resumed session), pricing calls at
/// the session model's list price.
pub fn session_budget(cfg: &SessionConfig, spent: Option<BudgetSpent>) -> Option<Arc<Budget>> {
    if let Some(shared) = &cfg.shared_budget {
        return Some(shared.clone());
    }
    cfg.budget.clone().map(|l| {
        Arc::new(Budget::new(
            l,
            spent.unwrap_or_default(),
            model_price(&cfg.model),
        ))
    })
}

/// The `cost` command's view of a budget: spend against each limit, e.g.
/// `Cost: $0.0123 of $0.50` and `{"limits":{…},"spent":{…,"cost_usd"}}`.
pub fn cost_view(b: &Budget) -> (String, Value) {
    let l = b.limits();
    let s = b.spent();
    let mut lines = vec![match l.max_cost_usd {
        Some(m) => format!("Cost: ${} of ${m}", usd(s.cost_micro_usd)),
        None => format!("Cost: ${}", usd(s.cost_micro_usd)),
    }];
    let rows = [
        ("Tokens", s.total_tokens, l.max_total_tokens),
        ("Model calls", s.model_calls, l.max_model_calls),
        ("Tool calls", s.tool_calls, l.max_tool_calls),
        ("Wall time (ms)", s.wall_ms, l.max_wall_ms),
    ];
    for (name, used, max) in rows {
        lines.push(match max {
            Some(m) => format!("{name}: {used} of {m}"),
            None => format!("{name}: {used}"),
        });
    }
    let data = json!({"limits": l, "spent": {
        "cost_usd": usd(s.cost_micro_usd), "total_tokens": s.total_tokens,
        "model_calls": s.model_calls, "tool_calls": s.tool_calls, "wall_ms": s.wall_ms}});
    (lines.join("\n"), data)
}

/// Why a child the budget stopped ended: the limit's message (`budget exceeded: …`).
pub fn exhausted_message(budget: Option<&Budget>) -> String {
    budget.and_then(Budget::exhausted).map_or_else(
        || "the session's budget is exhausted".to_string(),
        |e| e.message(),
    )
}

/// The `ERROR` event payload of a turn the budget stopped.
pub fn exceeded_event(e: &BudgetExceeded) -> Value {
    json!({"code": "BUDGET_EXCEEDED", "category": "budget", "recoverable": false,
           "message": e.message(), "limit": e.limit, "max": e.figure(e.max), "used": e.figure(e.used)})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_for(v: Value, model: &str) -> SdkResult<Option<BudgetLimits>> {
        let doc =
            crate::sdk::config::read::session_document("session config", v.as_object().unwrap())?;
        parse_budget(doc.budget.as_ref(), model)
    }

    fn parse(v: Value) -> SdkResult<Option<BudgetLimits>> {
        parse_for(v, "m")
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
        let ok = parse_for(json!({"budget": {"max_cost_usd": 0.5}}), "claude-haiku-4-5")
            .unwrap()
            .unwrap();
        assert_eq!(ok.max_cost_usd, Some(0.5));
        let e = parse(json!({"budget": {"max_cost_usd": -1}})).unwrap_err();
        assert!(e
            .message
            .contains("\"max_cost_usd\" must be a non-negative number"));
        let e = parse(json!({"budget": {"tokens": 1}})).unwrap_err();
        assert!(e
            .message
            .contains("field \"tokens\" is not a known field (known: max_total_tokens"));
    }
}
