//! Hard budgets of a session: total tokens, cost (from the model's list price), wall time, tool
//! calls and model calls, counted over the session's life. One budget covers every model call
//! the session causes: its rounds, its subagents and their children, `assignTask` children,
//! compaction summaries and `prompt`/`agent` hooks all share the same [`Budget`] (an `Arc`).
//! Each asks before its model call ([`Budget::check_model_call`], or [`complete_within`]) and
//! each tool call ([`Budget::check_tool_call`]); a call that would cross a limit is not made and
//! the run stops with [`RunStop::Budget`](super::execution::RunStop::Budget). Tokens and cost
//! are checked after each call: the call that crosses the limit finishes, the next one is
//! refused.

use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use tokio_util::sync::CancellationToken;

use super::errors::RobotaError;
use super::pricing::ModelPrice;
use super::prompt_cache::PromptCache;
use super::provider::{complete, ChatResponse, Provider};
use super::tokens::TokenUsage;

/// The limits (`None` = unlimited).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BudgetLimits {
    /// Input + output tokens over all model calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_tokens: Option<u64>,
    /// Cost in USD over all model calls (needs the model's price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// Wall time of all turns (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wall_ms: Option<u64>,
    /// Tool calls run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u64>,
    /// Model calls made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_model_calls: Option<u64>,
}

/// What was spent so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetSpent {
    /// Tokens of all model calls.
    pub total_tokens: u64,
    /// Cost of all model calls in micro-USD.
    #[serde(default)]
    pub cost_micro_usd: u64,
    /// Wall time of finished turns (ms).
    pub wall_ms: u64,
    /// Tool calls run.
    pub tool_calls: u64,
    /// Model calls made.
    pub model_calls: u64,
}

/// A limit that stopped (or would stop) a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetExceeded {
    /// The limit's name (`max_model_calls`, …).
    pub limit: &'static str,
    /// The limit's value (`max_cost_usd`: micro-USD).
    pub max: u64,
    /// What was spent when the call was refused (`max_cost_usd`: micro-USD).
    pub used: u64,
}

/// Micro-USD as USD.
pub fn usd(micro: u64) -> f64 {
    micro as f64 / 1e6
}

impl BudgetExceeded {
    /// A figure as shown (`max_cost_usd`: in USD).
    pub fn figure(&self, v: u64) -> serde_json::Value {
        if self.limit == "max_cost_usd" {
            serde_json::json!(usd(v))
        } else {
            serde_json::json!(v)
        }
    }

    /// `budget exceeded: max_model_calls is 2 and 2 were used`.
    pub fn message(&self) -> String {
        format!(
            "budget exceeded: {} is {} and {} were used",
            self.limit,
            self.figure(self.max),
            self.figure(self.used)
        )
    }
}

#[derive(Debug, Default)]
struct State {
    spent: BudgetSpent,
    turn_started: Option<Instant>,
    /// Turns running on the budget: a child's turn runs inside its parent's, and only the
    /// outermost one counts wall time.
    open_turns: u32,
    /// Set when a call was refused: the session's budget is exhausted for good.
    exceeded: Option<BudgetExceeded>,
}

/// One session's budget (shared by its turns; thread-safe).
#[derive(Debug, Default)]
pub struct Budget {
    limits: BudgetLimits,
    /// The session model's price (needed by `max_cost_usd`; refused at creation without one).
    price: Option<ModelPrice>,
    state: Mutex<State>,
}

impl Budget {
    /// A budget with `limits`, continuing from `spent` (a resumed session).
    pub fn new(limits: BudgetLimits, spent: BudgetSpent, price: Option<ModelPrice>) -> Self {
        Budget {
            limits,
            price,
            state: Mutex::new(State {
                spent,
                ..State::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The limits.
    pub fn limits(&self) -> &BudgetLimits {
        &self.limits
    }

    /// What was spent (the running turn's wall time included).
    pub fn spent(&self) -> BudgetSpent {
        let st = self.lock();
        let mut s = st.spent;
        s.wall_ms += running_ms(&st);
        s
    }

    /// A turn starts (its wall time counts from now, unless it runs inside another turn on the
    /// same budget: a subagent's turn inside its parent's).
    pub fn begin_turn(&self) {
        let mut st = self.lock();
        if st.open_turns == 0 {
            st.turn_started = Some(Instant::now());
        }
        st.open_turns += 1;
    }

    /// The turn ended: the wall time of the outermost turn is added when it ends.
    pub fn end_turn(&self) {
        let mut st = self.lock();
        st.open_turns = st.open_turns.saturating_sub(1);
        if st.open_turns == 0 {
            st.spent.wall_ms += running_ms(&st);
            st.turn_started = None;
        }
    }

    /// The limit that makes any further call impossible, if one is reached.
    pub fn exhausted(&self) -> Option<BudgetExceeded> {
        let st = self.lock();
        if let Some(e) = &st.exceeded {
            return Some(e.clone());
        }
        let s = &st.spent;
        let wall = s.wall_ms + running_ms(&st);
        reached(
            "max_total_tokens",
            self.limits.max_total_tokens,
            s.total_tokens,
        )
        .or_else(|| {
            reached(
                "max_cost_usd",
                self.limits.max_cost_usd.map(|m| (m * 1e6).round() as u64),
                s.cost_micro_usd,
            )
        })
        .or_else(|| {
            reached(
                "max_model_calls",
                self.limits.max_model_calls,
                s.model_calls,
            )
        })
        .or_else(|| reached("max_wall_ms", self.limits.max_wall_ms, wall))
    }

    /// Asks for one model call: counts it, or refuses it (the refusal is remembered).
    pub fn check_model_call(&self) -> Result<(), BudgetExceeded> {
        if let Some(e) = self.exhausted() {
            self.lock().exceeded.get_or_insert(e.clone());
            return Err(e);
        }
        self.lock().spent.model_calls += 1;
        Ok(())
    }

    /// Adds the usage of a finished call to `model` (its tokens and its cost, at `model`'s list
    /// price, else the session model's).
    pub fn record_usage(&self, model: &str, usage: &TokenUsage) {
        self.record_cached_usage(model, usage, PromptCache::FiveMinutes);
    }

    /// [`Self::record_usage`] with cache writes priced for `cache`'s lifetime.
    pub fn record_cached_usage(&self, model: &str, usage: &TokenUsage, cache: PromptCache) {
        let price = super::models::model_price(model).or(self.price);
        let cost = price.map_or(0, |p| p.cost_micro_usd_cached(usage, cache));
        let mut st = self.lock();
        st.spent.total_tokens += usage.total();
        st.spent.cost_micro_usd += cost;
    }

    /// The price costs are computed with.
    pub fn price(&self) -> Option<ModelPrice> {
        self.price
    }

    /// Asks for one tool call: counts it, or refuses it (the refusal is remembered, so the next
    /// model call is refused too and the run stops).
    pub fn check_tool_call(&self) -> Result<(), BudgetExceeded> {
        let mut st = self.lock();
        if let Some(e) = &st.exceeded {
            return Err(e.clone());
        }
        let wall = st.spent.wall_ms + running_ms(&st);
        let refused = reached(
            "max_tool_calls",
            self.limits.max_tool_calls,
            st.spent.tool_calls,
        )
        .or_else(|| reached("max_wall_ms", self.limits.max_wall_ms, wall));
        if let Some(e) = refused {
            st.exceeded = Some(e.clone());
            return Err(e);
        }
        st.spent.tool_calls += 1;
        Ok(())
    }
}

/// Why a call made by [`complete_within`] has no answer.
#[derive(Debug, thiserror::Error)]
pub enum BudgetedCallError {
    /// The budget refused the call: it was not made.
    #[error("{}", .0.message())]
    Refused(BudgetExceeded),
    /// The provider failed.
    #[error(transparent)]
    Provider(#[from] RobotaError),
}

/// [`complete`] on a budget (`None`: unlimited): refused before it is made when the budget is
/// exhausted, its usage charged after. Compaction summaries and `prompt` hooks call the model
/// this way.
pub async fn complete_within(
    budget: Option<&Budget>,
    provider: &dyn Provider,
    model: &str,
    prompt: String,
    cancel: CancellationToken,
) -> Result<ChatResponse, BudgetedCallError> {
    if let Some(b) = budget {
        b.check_model_call().map_err(BudgetedCallError::Refused)?;
    }
    let reply = complete(provider, model, prompt, cancel).await?;
    if let (Some(b), Some(u)) = (budget, &reply.usage) {
        b.record_usage(model, u);
    }
    Ok(reply)
}

fn running_ms(st: &State) -> u64 {
    st.turn_started.map_or(0, |t| {
        u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX)
    })
}

fn reached(limit: &'static str, max: Option<u64>, used: u64) -> Option<BudgetExceeded> {
    max.filter(|m| used >= *m)
        .map(|max| BudgetExceeded { limit, max, used })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_and_tool_calls_stop_at_their_limits() {
        let b = Budget::new(
            BudgetLimits {
                max_model_calls: Some(2),
                max_tool_calls: Some(1),
                ..Default::default()
            },
            BudgetSpent::default(),
            None,
        );
        assert!(b.check_model_call().is_ok());
        assert!(b.check_tool_call().is_ok());
        let e = b.check_tool_call().unwrap_err();
        assert_eq!(
            e.message(),
            "budget exceeded: max_tool_calls is 1 and 1 were used"
        );
        // the refused tool call exhausts the session: the next model call is refused too
        assert_eq!(b.check_model_call().unwrap_err(), e);
        assert_eq!(b.exhausted(), Some(e));
        assert_eq!(b.spent().model_calls, 1);
    }

    #[test]
    fn a_turn_inside_another_leaves_the_outer_turns_clock_running() {
        let b = Budget::default();
        b.begin_turn();
        b.begin_turn(); // a subagent's turn inside its parent's
        b.end_turn();
        assert!(b.lock().turn_started.is_some());
        b.end_turn();
        assert!(b.lock().turn_started.is_none());
    }

    #[test]
    fn a_call_is_priced_at_its_own_models_price_else_the_sessions() {
        let b = Budget::new(BudgetLimits::default(), BudgetSpent::default(), None);
        let thousand_in = TokenUsage {
            input_tokens: 1000,
            ..Default::default()
        };
        // claude-haiku-4-5: $1 per million input tokens
        b.record_usage("claude-haiku-4-5", &thousand_in);
        // no price for the model nor the session: tokens only
        b.record_usage("m", &thousand_in);
        assert_eq!(
            (b.spent().cost_micro_usd, b.spent().total_tokens),
            (1000, 2000)
        );
    }

    #[test]
    fn tokens_are_checked_after_the_call_that_crosses() {
        let b = Budget::new(
            BudgetLimits {
                max_total_tokens: Some(100),
                ..Default::default()
            },
            BudgetSpent::default(),
            None,
        );
        assert!(b.check_model_call().is_ok());
        b.record_usage(
            "m",
            &TokenUsage {
                input_tokens: 100,
                output_tokens: 50,
                ..Default::default()
            },
        );
        let e = b.check_model_call().unwrap_err();
        assert_eq!((e.limit, e.max, e.used), ("max_total_tokens", 100, 150));
    }

    #[test]
    fn cost_is_checked_after_the_call_that_crosses() {
        let b = Budget::new(
            BudgetLimits {
                max_cost_usd: Some(0.01),
                ..Default::default()
            },
            BudgetSpent::default(),
            Some(super::super::pricing::ModelPrice {
                input: 3.0,
                output: 15.0,
                cache_write: 3.75,
                cache_read: 0.3,
                above_200k: None,
            }),
        );
        assert!(b.check_model_call().is_ok());
        // 3000×3 = 9000 µ$: under the limit
        b.record_usage(
            "m",
            &TokenUsage {
                input_tokens: 3000,
                ..Default::default()
            },
        );
        assert!(b.check_model_call().is_ok());
        b.record_usage(
            "m",
            &TokenUsage {
                output_tokens: 100,
                ..Default::default()
            },
        );
        let e = b.check_model_call().unwrap_err();
        assert_eq!((e.limit, e.max, e.used), ("max_cost_usd", 10_000, 10_500));
        assert_eq!(
            e.message(),
            "budget exceeded: max_cost_usd is 0.01 and 0.0105 were used"
        );
    }
}
