//! Structured output: once the loop ended with an answer, the answer is checked against the run's
//! output schema. A provider with a native form was sent the schema on every call, so its answer
//! text is the JSON; any other provider gets one more call whose `tool_choice` forces the
//! synthetic `final_answer` tool, whose input is the answer (the call's instruction lives only
//! in the request; the input is recorded as the assistant's JSON text). An answer that does not
//! match gets one repair round (a user message listing the problems, kept in history); a second
//! failure ends the run with [`RunStop::SchemaError`].

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::provider_call::{call_provider, CallError};
use super::round::{append_assistant, round_meta};
use super::run_loop::{conclude, run_rounds, LoopEnd};
use super::{add_usage, RunCtx, RunStop};
use crate::core::agent::lock;
use crate::core::events::names;
use crate::core::message::{Message, Role};
use crate::core::output_schema::{
    repair_instruction, OutputSchema, FINAL_ANSWER_INSTRUCTION, FINAL_ANSWER_TOOL,
};
use crate::core::provider::{ChatRequest, ToolSchema};
use crate::core::tool_choice::ToolChoice;

/// Metadata key of the repair round's user message.
pub const REPAIR_KEY: &str = "outputSchemaRepair";
/// Metadata key of an answer recorded from the forced `final_answer` call.
pub const FINAL_ANSWER_KEY: &str = "finalAnswer";

/// Member wrapping an answer whose schema is not an object (tool inputs must be objects).
const WRAPPED: &str = "answer";

/// Checks the run's answer (repairing it once); returns the run's final stop. `ctx.output` holds
/// the answer when it matches, `ctx.schema_errors` the problems when it does not.
pub(super) async fn settle(
    ctx: &mut RunCtx<'_>,
    schema: &Arc<OutputSchema>,
    mut stop: RunStop,
    end: &mut LoopEnd,
    max_rounds: u64,
    execution_id: &str,
) -> RunStop {
    let mut repaired = false;
    loop {
        if !matches!(stop, RunStop::Complete | RunStop::MaxRounds) {
            return stop;
        }
        let problems = match answer(ctx, schema, end.rounds).await {
            Ok(v) => {
                ctx.output = Some(v);
                return stop;
            }
            Err(p) => p,
        };
        if ctx.cancel.is_cancelled() {
            return RunStop::Aborted;
        }
        if repaired {
            ctx.schema_errors = problems;
            return RunStop::SchemaError;
        }
        repaired = true;
        append_repair(ctx, &problems, end.rounds);
        // The repair gets at least one round, whatever the cap.
        let cap = if max_rounds == 0 {
            0
        } else {
            max_rounds.max(u64::from(end.rounds) + 1)
        };
        *end = run_rounds(ctx, cap, execution_id, end.turn_start, end.rounds).await;
        stop = conclude(ctx, end).await;
    }
}

/// The answer as a value: the latest answer text when it matches, else (without a native form)
/// the forced `final_answer` call's input.
async fn answer(
    ctx: &mut RunCtx<'_>,
    schema: &OutputSchema,
    round: u32,
) -> Result<Value, Vec<String>> {
    let checked = match latest_answer(ctx) {
        Some(text) => schema.check_text(&text),
        None => Err(vec!["the model gave no answer".to_string()]),
    };
    if checked.is_ok() || ctx.config.provider.native_output_schema() {
        return checked;
    }
    forced_final_answer(ctx, schema, round).await
}

/// The last non-empty assistant text after the latest user message (the turn's, or the repair
/// round's).
fn latest_answer(ctx: &RunCtx<'_>) -> Option<String> {
    let s = lock(ctx.store);
    for m in s.messages().iter().rev() {
        match m.role {
            Role::User => return None,
            Role::Assistant if !m.content.trim().is_empty() => return Some(m.content.clone()),
            _ => {}
        }
    }
    None
}

/// Appends the repair round's user message (with its history event).
fn append_repair(ctx: &RunCtx<'_>, problems: &[String], round: u32) {
    let mut meta = Map::new();
    meta.insert(REPAIR_KEY.into(), json!(true));
    let user = Message::user(repair_instruction(problems)).with_metadata(meta);
    let (msg, idx) = {
        let mut s = lock(ctx.store);
        let idx = s.append(user);
        (s.messages()[idx].clone(), idx)
    };
    ctx.emitter.emit(names::HISTORY_MUTATION, Some(round), |d| {
        d.insert("mutation".into(), json!("append_message"));
        d.insert("index".into(), json!(idx));
        d.insert("message".into(), json!(msg.as_ref()));
    });
}

/// The `final_answer` tool: its parameters are the schema when it describes an object, else an
/// object whose `answer` member is the schema.
fn final_answer_tool(schema: &OutputSchema) -> (Arc<ToolSchema>, bool) {
    let object = schema.schema().get("type") == Some(&json!("object"));
    let parameters = if object {
        schema.schema().clone()
    } else {
        json!({"type": "object", "properties": {WRAPPED: schema.schema()}, "required": [WRAPPED]})
    };
    let tool = ToolSchema {
        name: FINAL_ANSWER_TOOL.to_string(),
        description: "Give your final answer: its input is the answer.".to_string(),
        parameters,
    };
    (Arc::new(tool), !object)
}

/// One call forcing `final_answer` (the run's tools are offered too, so the request's prefix
/// stays that of the rounds before); its input, recorded as the assistant's JSON answer, is
/// checked. A failed call records nothing.
async fn forced_final_answer(
    ctx: &mut RunCtx<'_>,
    schema: &OutputSchema,
    round: u32,
) -> Result<Value, Vec<String>> {
    let mut messages = lock(ctx.store).messages().to_vec();
    messages.push(Arc::new(Message::user(FINAL_ANSWER_INSTRUCTION)));
    let (tool, wrapped) = final_answer_tool(schema);
    let mut tools = ctx.tool_schemas.clone();
    tools.push(tool);
    if ctx.emitter.enabled() {
        ctx.emitter.emit(names::PROVIDER_REQUEST, Some(round), |d| {
            d.insert("provider".into(), json!(ctx.config.provider.name()));
            d.insert("model".into(), json!(ctx.config.model));
            d.insert(
                "messages".into(),
                json!(messages.iter().map(|m| m.as_ref()).collect::<Vec<_>>()),
            );
            d.insert(
                "tools".into(),
                json!(tools.iter().map(|t| t.as_ref()).collect::<Vec<_>>()),
            );
            d.insert("finalAnswer".into(), json!(true));
        });
    }
    let choice = ToolChoice::Tool(FINAL_ANSWER_TOOL.to_string());
    let request = ChatRequest {
        messages: &messages,
        tools: &tools,
        model: &ctx.config.model,
        max_tokens: ctx.config.max_tokens,
        temperature: ctx.config.temperature,
        native_web_tools: ctx.config.native_web_tools,
        thinking_budget: None,
        tool_choice: &choice,
        output_schema: None,
        prompt_cache: ctx.config.prompt_cache,
        cache_key: Some(&ctx.config.conversation_id),
    };
    let response = match call_provider(ctx, request, round, false).await {
        Ok((r, _)) => r,
        Err(CallError::Failed { message, .. }) => {
            return Err(vec![format!("the final_answer call failed: {message}")])
        }
        Err(CallError::Aborted) => return Err(vec!["aborted".to_string()]),
    };
    add_usage(ctx, response.usage);
    let Some(call) = response
        .tool_calls
        .iter()
        .find(|c| c.function.name == FINAL_ANSWER_TOOL)
    else {
        return Err(vec!["the model did not call final_answer".to_string()]);
    };
    let input: Value = serde_json::from_str(&call.function.arguments)
        .map_err(|e| vec![format!("the final_answer input is not valid JSON: {e}")])?;
    let value = if wrapped {
        input.get(WRAPPED).cloned().unwrap_or(Value::Null)
    } else {
        input
    };
    let mut meta = round_meta(round);
    meta.insert(FINAL_ANSWER_KEY.into(), json!(true));
    append_assistant(
        ctx,
        round,
        Message::assistant(value.to_string()).with_metadata(meta),
    );
    schema.check_value(value)
}
