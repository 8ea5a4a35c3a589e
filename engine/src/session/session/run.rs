//! One user turn of a session, in its steps: the run guard, `SessionStart` (first run only),
//! `UserPromptSubmit` and the prompt it may prefix, the engine run with compaction between
//! rounds, and `Stop` / `StopFailure`.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{Session, ABORTED_REASON, STOP_RESPONSE_CHARS};
use crate::core::agent::{lock, RunOptions};
use crate::core::errors::RobotaError;
use crate::core::execution::{ExecutionResult, RunStop};
use crate::core::hooks::HookEvent;
use crate::core::message::Message;
use crate::session::options::{SessionRunError, SessionRunOptions};

/// Marks the session not running when the run ends, however it ends.
struct Reset<'a>(&'a AtomicBool);

impl Drop for Reset<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl Session {
    /// Runs one user turn: SessionStart (first run only) → UserPromptSubmit (exit 2 blocks the
    /// turn: nothing is sent, history is unchanged) → the engine → Stop / StopFailure.
    /// Hook stdout of SessionStart and UserPromptSubmit is prepended to the prompt as a
    /// `<system-reminder>` block.
    pub async fn run(
        &self,
        input: Message,
        opts: SessionRunOptions,
    ) -> Result<ExecutionResult, SessionRunError> {
        if self.running.swap(true, Ordering::AcqRel) {
            return Err(SessionRunError::Engine(RobotaError::Validation(
                "Another run is already in progress on this session".into(),
            )));
        }
        let _reset = Reset(&self.running);
        let cancel = opts.cancel.clone().unwrap_or_default();
        if opts.skip_auto_compact {
            self.refresh_context();
        } else {
            self.auto_compact(&cancel).await;
        }
        self.fire_session_start(&cancel).await;
        let message = self.submit_prompt(input, &opts, &cancel).await?;

        let pre = {
            let store = lock(self.agent.store());
            let mut t = lock(&self.tracker);
            t.update_with_pending(&store, &message);
            t.state()
        };
        self.notify_context(&pre);

        let result = self.run_engine(message, &opts, &cancel).await;
        let after = self.refresh_context();
        self.notify_context(&after);
        match result {
            Err(e) => {
                self.fire_stop_failure(&e.to_string()).await;
                Err(SessionRunError::Engine(e))
            }
            Ok(r) => {
                self.fire_stop(&r).await;
                Ok(r)
            }
        }
    }

    /// `SessionStart`, on the first run only; its stdout is kept for the first prompt.
    async fn fire_session_start(&self, cancel: &CancellationToken) {
        if !self.start_fired.swap(true, Ordering::AcqRel) {
            let fields = || Self::fields(vec![("env", self.env_value())]);
            let out = self
                .fire_hook(HookEvent::SessionStart, fields, cancel.clone())
                .await;
            *lock(&self.start_stdout) = out.stdout;
        }
    }

    /// `UserPromptSubmit` (a block refuses the turn), then the message to send: `input` with
    /// the stdout of `SessionStart` and `UserPromptSubmit` prefixed as a `<system-reminder>`.
    async fn submit_prompt(
        &self,
        input: Message,
        opts: &SessionRunOptions,
        cancel: &CancellationToken,
    ) -> Result<Message, SessionRunError> {
        let fields = || {
            let raw = opts
                .raw_input
                .clone()
                .unwrap_or_else(|| input.content.clone());
            Self::fields(vec![
                ("user_message", Value::String(raw.clone())),
                ("prompt", Value::String(raw)),
                ("env", self.env_value()),
            ])
        };
        let ups = self
            .fire_hook(HookEvent::UserPromptSubmit, fields, cancel.clone())
            .await;
        if ups.blocked {
            return Err(SessionRunError::PromptBlocked {
                reason: ups.reason.unwrap_or_default(),
            });
        }
        let start_text = std::mem::take(&mut *lock(&self.start_stdout));
        let injected: Vec<&str> = [start_text.as_str(), ups.stdout.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        let mut message = input;
        if !injected.is_empty() {
            message.content = format!(
                "<system-reminder>\n{}\n</system-reminder>\n{}",
                injected.join("\n"),
                message.content
            );
        }
        Ok(message)
    }

    /// The engine's run of `message`, compacting between rounds when automatic compaction
    /// is on.
    async fn run_engine(
        &self,
        message: Message,
        opts: &SessionRunOptions,
        cancel: &CancellationToken,
    ) -> Result<ExecutionResult, RobotaError> {
        let (round_tx, mut round_rx) = tokio::sync::mpsc::channel(1);
        let run_opts = RunOptions {
            cancel: Some(cancel.clone()),
            on_text_delta: opts.on_text_delta.clone(),
            on_thinking_delta: opts.on_thinking_delta.clone(),
            on_server_tool: opts.on_server_tool.clone(),
            on_event: opts.on_event.clone(),
            max_execution_rounds: None,
            owner_path: Vec::new(),
            tool_choice: opts.tool_choice.clone(),
            output_schema: opts.output_schema.clone(),
            budget: opts.budget.clone(),
            between_rounds: self.auto_compact_threshold().map(|_| round_tx),
            on_user_appended: opts.on_user_appended.clone(),
            execution_id: opts.execution_id.clone(),
        };
        let run = self.agent.run(message, run_opts);
        tokio::pin!(run);
        loop {
            tokio::select! {
                r = &mut run => break r,
                Some(reply) = round_rx.recv() => {
                    let _ = reply.send(self.compact_between_rounds(cancel).await);
                }
            }
        }
    }

    /// `StopFailure` for an interrupted or failed run, else `Stop` with the response.
    async fn fire_stop(&self, r: &ExecutionResult) {
        if r.interrupted {
            self.fire_stop_failure(ABORTED_REASON).await;
        } else if r.stop == RunStop::Error {
            let reason = r.error.clone().unwrap_or_else(|| r.response.clone());
            self.fire_stop_failure(&reason).await;
        } else {
            let fields = || {
                let short: String = r.response.chars().take(STOP_RESPONSE_CHARS).collect();
                Self::fields(vec![
                    ("response", Value::String(short)),
                    ("last_assistant_message", Value::String(r.response.clone())),
                    ("stop_hook_active", Value::Bool(false)),
                    ("env", self.env_value()),
                ])
            };
            self.fire_hook(HookEvent::Stop, fields, CancellationToken::new())
                .await;
        }
    }
}
