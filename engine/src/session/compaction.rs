//! Compaction (a no-op on an empty history): the conversation is summarized by the session's own
//! provider and the history replaced by `[system, assistant "[Context Summary]\n<summary>"]`.
//!
//! Differences from Robota, on purpose: a `PreCompact` hook that exits 2 blocks the
//! compaction (history untouched), and a failed or empty summary leaves the history untouched
//! and says why instead of storing `(compaction failed)`.

use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::context::ContextState;
use super::session::Session;
use crate::core::agent::lock;
use crate::core::budget::{complete_within, BudgetedCallError};
use crate::core::hooks::HookEvent;
use crate::core::message::{Message, Role};

/// Prefix of the assistant message that replaces the history.
pub const SUMMARY_PREFIX: &str = "[Context Summary]\n";

/// What started a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactTrigger {
    /// The `compact` command.
    Manual,
    /// The context window reached the auto-compaction threshold.
    Auto,
}

impl CompactTrigger {
    /// `"manual"` or `"auto"`.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactTrigger::Manual => "manual",
            CompactTrigger::Auto => "auto",
        }
    }
}

/// A finished compaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    /// What started it.
    pub trigger: CompactTrigger,
    /// The model's summary (without the `[Context Summary]` prefix).
    pub summary: String,
    /// Context state before.
    pub before: ContextState,
    /// Context state after.
    pub after: ContextState,
    /// A compaction between rounds keeps the running turn's messages after the summary:
    /// `(their index before, their index after)`; `None` when nothing was kept.
    pub kept: Option<(usize, usize)>,
}

/// Why a compaction did not happen (the history is untouched in every case).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompactError {
    /// Nothing to compact (no conversation yet).
    #[error("there is no conversation to compact")]
    Empty,
    /// A `PreCompact` hook exited 2.
    #[error("compaction blocked by a PreCompact hook: {0}")]
    Blocked(String),
    /// The summary request failed, was aborted or returned nothing.
    #[error("the summary request failed: {0}")]
    Failed(String),
    /// The session's budget refused the summary request (it was not made).
    #[error("{0}")]
    Budget(String),
}

/// Robota's summary prompt over `messages` (system messages and entries for the user only
/// skipped).
pub fn summary_prompt(messages: &[Arc<Message>], instructions: Option<&str>) -> String {
    let mut p =
        String::with_capacity(512 + messages.iter().map(|m| m.content.len() + 12).sum::<usize>());
    p.push_str(
        "Summarize the following conversation concisely, preserving:\n\
         - User's original requests and goals\n\
         - Key decisions and conclusions\n\
         - Important code changes and file paths\n\
         - Current task status and next steps\n",
    );
    match instructions.filter(|s| !s.trim().is_empty()) {
        Some(i) => {
            let _ = write!(p, "\nAdditional focus:\n{i}\n\n");
        }
        None => p.push('\n'),
    }
    p.push_str(
        "Drop verbose tool outputs, debugging steps, and exploratory work that didn't lead to results.\n\nConversation:",
    );
    // A failed call's placeholder is for the user only: the summary is not told it was said.
    for m in messages
        .iter()
        .filter(|m| m.role != Role::System && m.is_sent_to_model())
    {
        let _ = write!(p, "\n{}: {}", m.role.as_str(), m.content);
    }
    p
}

/// The "Compact Instructions" section of CLAUDE.md text (the default compaction focus): from the
/// first heading whose line contains `compact instructions` (any case) to the next heading of the
/// same or a higher level; trimmed, `None` when absent or empty.
pub fn compact_instructions_section(text: &str) -> Option<String> {
    let level = |line: &str| {
        let n = line.chars().take_while(|c| *c == '#').count();
        let heading = (1..=6).contains(&n) && line[n..].starts_with([' ', '\t']);
        heading.then_some(n)
    };
    let mut out: Option<(usize, Vec<&str>)> = None;
    for line in text.lines() {
        let lv = level(line.trim_start());
        match (&mut out, lv) {
            (None, Some(_)) if line.to_lowercase().contains("compact instructions") => {
                out = Some((lv.unwrap_or(1), Vec::new()));
            }
            (Some((start, _)), Some(l)) if l <= *start => break,
            (Some((_, lines)), _) => lines.push(line),
            _ => {}
        }
    }
    let body = out?.1.join("\n").trim().to_string();
    (!body.is_empty()).then_some(body)
}

/// A kept message without its usage metadata: that usage measured the context before the
/// compaction and would keep the estimate (and so auto-compaction) at the old size.
fn without_usage(mut m: Message) -> Message {
    if let Some(meta) = &mut m.metadata {
        for k in [
            "usage",
            "inputTokens",
            "outputTokens",
            "totalTokens",
            "promptTokens",
            "completionTokens",
        ] {
            meta.remove(k);
        }
    }
    m
}

impl Session {
    /// The auto-compaction threshold (`None` = disabled).
    pub fn auto_compact_threshold(&self) -> Option<f64> {
        *lock(&self.compaction.threshold)
    }

    /// Changes the auto-compaction threshold (`0 < t ≤ 1`, `None` disables it).
    pub fn set_auto_compact_threshold(&self, threshold: Option<f64>) -> Result<(), String> {
        if let Some(t) = threshold {
            if !(t > 0.0 && t <= 1.0) {
                return Err(
                    "autoCompactThreshold must be a number greater than 0 and at most 1.".into(),
                );
            }
        }
        *lock(&self.compaction.threshold) = threshold;
        Ok(())
    }

    /// Whether the history (as of now) reached the auto-compaction threshold.
    pub fn auto_compact_due(&self) -> bool {
        let state = self.refresh_context();
        let t = self.auto_compact_threshold();
        t.is_some_and(|t| state.used_percentage >= t * 100.0)
    }

    /// Compacts when due (trigger `auto`); a blocked or failed compaction is reported to the
    /// observer as a warning and the session goes on with its history unchanged.
    pub async fn auto_compact(&self, cancel: &CancellationToken) -> Option<Compaction> {
        if !self.auto_compact_due() {
            return None;
        }
        match self.compact(None, CompactTrigger::Auto, cancel).await {
            Ok(c) => Some(c),
            Err(e) => {
                if let Some(o) = &self.observer {
                    o.on_warning(&format!("automatic compaction did not happen: {e}"));
                }
                None
            }
        }
    }

    /// Between two rounds of a turn (the engine asks before every round after the first):
    /// when auto-compaction is due, the history *before* the running turn is summarized and
    /// the turn's own messages (its prompt, tool calls and results) are kept verbatim after
    /// the summary, so tool calls stay answered and the model carries on. Nothing before the
    /// turn → nothing to do (the 95 % guard then still applies). True when compacted; a failed
    /// or blocked compaction is a warning and the turn goes on unchanged.
    pub async fn compact_between_rounds(&self, cancel: &CancellationToken) -> bool {
        if !self.auto_compact_due() {
            return false;
        }
        let keep_from = {
            let store = lock(self.agent.store());
            let msgs = store.messages();
            match msgs.iter().rposition(|m| m.role == Role::User) {
                Some(k) if msgs[..k].iter().any(|m| m.role != Role::System) => k,
                _ => return false,
            }
        };
        match self
            .compact_from(None, CompactTrigger::Auto, cancel, Some(keep_from))
            .await
        {
            Ok(_) => true,
            Err(e) => {
                if let Some(o) = &self.observer {
                    o.on_warning(&format!("automatic compaction did not happen: {e}"));
                }
                false
            }
        }
    }

    /// `compact(instructions?)`: summarizes the conversation with the session's provider and
    /// replaces the history with the summary. `instructions` default to the session's
    /// compact instructions. The history is untouched on any error.
    pub async fn compact(
        &self,
        instructions: Option<&str>,
        trigger: CompactTrigger,
        cancel: &CancellationToken,
    ) -> Result<Compaction, CompactError> {
        self.compact_from(instructions, trigger, cancel, None).await
    }

    /// [`Self::compact`] of the messages before `keep_from` (all when `None`); the messages
    /// from `keep_from` on are kept after the summary.
    async fn compact_from(
        &self,
        instructions: Option<&str>,
        trigger: CompactTrigger,
        cancel: &CancellationToken,
        keep_from: Option<usize>,
    ) -> Result<Compaction, CompactError> {
        let instructions = instructions
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let mut messages = self.agent.messages();
        if let Some(k) = keep_from {
            messages.truncate(k);
        }
        if !messages.iter().any(|m| m.role != Role::System) {
            return Err(CompactError::Empty);
        }
        let before = self.refresh_context();
        // Reference quirk kept: PreCompact's trigger is "manual" only when instructions were given.
        let pre_trigger = if instructions.is_some() {
            "manual"
        } else {
            "auto"
        };
        let mut fields = serde_json::Map::new();
        fields.insert("trigger".into(), Value::String(pre_trigger.into()));
        if let Some(i) = &instructions {
            fields.insert("custom_instructions".into(), Value::String(i.clone()));
        }
        let pre = self
            .fire_hook(HookEvent::PreCompact, || fields, cancel.clone())
            .await;
        if pre.blocked {
            return Err(CompactError::Blocked(
                pre.reason.unwrap_or_else(|| "Blocked by hook".into()),
            ));
        }
        let focus = instructions.or_else(|| self.compaction.focus());
        let prompt = summary_prompt(&messages, focus.as_deref());
        drop(messages);
        let config = self.agent.config();
        let reply = complete_within(
            self.budget.as_deref(),
            config.provider.as_ref(),
            &config.model,
            prompt,
            cancel.clone(),
        )
        .await
        .map_err(|e| match e {
            BudgetedCallError::Refused(b) => CompactError::Budget(b.message()),
            BudgetedCallError::Provider(e) => CompactError::Failed(e.to_string()),
        })?;
        if cancel.is_cancelled() {
            return Err(CompactError::Failed("aborted".into()));
        }
        let summary = reply.content.trim().to_string();
        if summary.is_empty() {
            return Err(CompactError::Failed(
                "the model returned an empty summary".into(),
            ));
        }
        let kept = {
            let mut store = lock(self.agent.store());
            let tail: Vec<Arc<Message>> = keep_from
                .map(|k| store.messages().get(k..).unwrap_or_default().to_vec())
                .unwrap_or_default();
            store.clear(true);
            store.append(Message::assistant(format!("{SUMMARY_PREFIX}{summary}")));
            let at = store.len();
            let kept = keep_from.map(|k| (k, at));
            for m in tail {
                store.append(without_usage(Arc::unwrap_or_clone(m)));
            }
            kept
        };
        let after = self.refresh_context();
        let mut fields = serde_json::Map::new();
        fields.insert("trigger".into(), Value::String(trigger.as_str().into()));
        fields.insert("compact_summary".into(), Value::String(summary.clone()));
        self.fire_hook(HookEvent::PostCompact, || fields, CancellationToken::new())
            .await;
        let done = Compaction {
            trigger,
            summary,
            before,
            after,
            kept,
        };
        if let Some(o) = &self.observer {
            o.on_compacted(&done);
            o.on_context_update(&after);
        }
        Ok(done)
    }
}
