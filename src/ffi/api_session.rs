//! Session exports.

use std::ffi::{c_char, c_void};

use super::args::{opt_str_arg, str_arg, string_out, Out};
use super::boundary::{boundary, NO_ERROR_OUT};
use super::callbacks::{
    in_callback, refuse_in_callback, robota_event_fn, robota_free_fn, EventReg,
};
use super::handles::{self, robota_runtime, robota_session};
use super::session_obj::open_session;
use super::status::{err, robota_error, robota_status, ROBOTA_OK};
use robota_engine::sdk::commands::builtin;
use robota_engine::sdk::config::parse_session_config_boxed;
use robota_engine::sdk::error::ErrorCode;
use robota_engine::sdk::interactive::TurnInput;
use robota_engine::sdk::persistence::snapshot;

/// Creates a session from its JSON (`{"v":1,"provider","model","system_prompt"?,"cwd"?,
/// "tools"?,"permission_mode"?,"permissions"?,"hooks"?,"max_rounds"?,"delivery"?,
/// "session_id"?,"persist"?,"settings"?,"system_prompt_mode"?,"language"?,"temperature"?,
/// "max_tokens"?,"thinking"?,"context_window"?,"native_web_search"?,"tool_config"?,…}`).
/// `"settings":"project"|"user"` reads the settings files and assembles the system prompt
/// (docs/configuration.md); their problems arrive as the first `WARNING` events. A `session_id` names the file `<session_dir>/<id>.json`, so it
/// is 1 to 128 characters from A-Z a-z 0-9 `_` `.` `-`, not starting with `.` (also on resume
/// and fork); `persist` saves it after each turn, atomically (temp file, fsync, rename).
/// `"tool_choice"?:"auto"|"none"|"required"|{"name":"TOOL"}` (default `"auto"`; `required` and a
/// named tool hold for a turn's first model call only; a named tool the session lacks is
/// `ROBOTA_E_INVALID_CONFIG` naming it) maps to Anthropic `tool_choice`, OpenAI `tool_choice` and
/// Gemini `toolConfig.functionCallingConfig`. `"context_window"?:N` sets the window; without it
/// the library uses the window an `openai-compatible` server serves (llama.cpp `/props`, vLLM
/// `/v1/models`, LM Studio `/api/v0/models`, Ollama `/api/show`, or the window named by a
/// "maximum context length is N tokens" error; asked once per runtime and model), else the model
/// table, else 200000 tokens with one `WARNING` `code:"CONTEXT_WINDOW_ASSUMED"` per session.
/// A server's "context length exceeded" answer ends the turn with `stop_reason:"context_limit"`
/// and an `ERROR` naming the window. Failed turns: the `ERROR` event and
/// `TURN_COMPLETED.error_details` carry `{"code","category","recoverable","message"}` of the
/// taxonomy (`AUTHENTICATION_ERROR` for HTTP 401/403, `RATE_LIMIT_ERROR` for 429,
/// `NETWORK_ERROR` for connect/DNS/TLS/reset, `MODEL_NOT_AVAILABLE`, else `PROVIDER_ERROR`), as
/// do the details of the `robota_error` that `robota_session_wait` returns.
/// `fn_` receives events in `thread`/`inline`/`pump` delivery (may be NULL; unused in `pull`).
/// `free_fn(user_data)` runs once after the last callback; on failure it is not called.
/// Errors: `ROBOTA_E_NOT_FOUND` (unknown provider or tool), `ROBOTA_E_INVALID_CONFIG`,
/// `ROBOTA_E_INVALID_JSON`, `ROBOTA_E_INVALID_UTF8`, `ROBOTA_E_INVALID_HANDLE`.
#[no_mangle]
pub extern "C" fn robota_session_new(
    rt: *mut robota_runtime,
    session_json: *const c_char,
    fn_: robota_event_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    out: *mut *mut robota_session,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let out = Out::required(out, "out")?;
        let runtime = handles::runtime(rt)?;
        let cfg = parse_session_config_boxed(str_arg(session_json, "session_json")?)?;
        let reg = EventReg::new(fn_, user_data, free_fn);
        out.put(open_session(runtime, cfg, None, reg)?);
        Ok(ROBOTA_OK)
    })
}

/// Opens a session from a snapshot: `{"v":1,"snapshot":<robota_session_save output>}` or
/// `{"v":1,"session_id":"…"}` (read from the runtime's `session_dir`), plus optional session
/// fields that override the saved ones (`delivery`, `model`, `hooks`, …). Same id as the saved one.
#[no_mangle]
pub extern "C" fn robota_session_resume(
    rt: *mut robota_runtime,
    resume_json: *const c_char,
    fn_: robota_event_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    out: *mut *mut robota_session,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let out = Out::required(out, "out")?;
        let runtime = handles::runtime(rt)?;
        let text = str_arg(resume_json, "resume_json")?;
        let (cfg, restore) = snapshot::parse_resume(runtime.shared(), text)?;
        let reg = EventReg::new(fn_, user_data, free_fn);
        out.put(open_session(runtime, Box::new(cfg), Some(restore), reg)?);
        Ok(ROBOTA_OK)
    })
}

/// Creates an independent copy of `s` (history, mode, approvals) with a new session id.
/// `fork_json` (may be NULL) overrides session fields, e.g. `{"delivery":"pull"}`. Safe while
/// `s` runs a turn: the copy holds the committed history.
#[no_mangle]
pub extern "C" fn robota_session_fork(
    s: *mut robota_session,
    fork_json: *const c_char,
    fn_: robota_event_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    out: *mut *mut robota_session,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let out = Out::required(out, "out")?;
        let src = handles::session(s)?;
        let text = opt_str_arg(fork_json, "fork_json")?;
        let (cfg, restore) = snapshot::parse_fork(&src.session, text)?;
        let reg = EventReg::new(fn_, user_data, free_fn);
        out.put(open_session(
            src.runtime.clone(),
            Box::new(cfg),
            Some(restore),
            reg,
        )?);
        Ok(ROBOTA_OK)
    })
}

/// Releases a session without blocking, whatever was freed first (when it holds the last
/// reference to its runtime, the runtime shuts down on a thread of its own): aborts a running
/// turn, withdraws its pending ids, drops events not yet delivered, and guarantees no new
/// callback starts after it returns (one already running may finish; `free_fn` runs after it).
/// Events of a turn `robota_session_wait` returned for were delivered already (`thread`) or
/// are dropped only if the host did not dispatch/read them (`pump`/`pull`). `SessionEnd`
/// hooks run (on a library thread) unless `robota_session_close` ran them; host hooks are not
/// asked any more. Safe from the session's own callbacks and from finalizers. NULL and
/// already-freed handles are ignored.
#[no_mangle]
pub extern "C" fn robota_session_free(s: *mut robota_session) {
    boundary(NO_ERROR_OUT, || {
        if let Some(obj) = handles::free_session(s) {
            obj.queue.detach();
            obj.session.release();
        }
        Ok(())
    })
}

/// Closes a session but keeps the handle: aborts, drops the queued prompt, runs the
/// `SessionEnd` hooks once the turn has stopped (once per session, with `robota_session_free`),
/// and delivers `ROBOTA_EVENT_SESSION_CLOSED` after them as the last event; later submits fail
/// with `ROBOTA_E_CLOSED`.
#[no_mangle]
pub extern "C" fn robota_session_close(s: *mut robota_session) -> robota_status {
    boundary(NO_ERROR_OUT, || {
        handles::session(s)?.session.close();
        Ok(ROBOTA_OK)
    })
}

/// Submits a prompt (`{"text":"…","display_input"?,"raw_input"?,"tool_choice"?,
/// "output_schema"?,"images"?}`; `tool_choice` holds for this turn only, a named tool the
/// session lacks is `ROBOTA_E_INVALID_CONFIG`; `output_schema` (a JSON Schema, wins over the
/// session's) asks for a structured answer, validated into `turn_completed.output`, see
/// docs/structured-output.md; `images` since ABI 1.2: `[{"path"}|{"data","media_type"}|{"url"}]`,
/// png/jpeg/gif/webp, at most 20 of at most 5 MiB each, a relative `path` read from the
/// session's `cwd` now, a bad image `ROBOTA_E_INVALID_CONFIG` naming it, see docs/images.md);
/// writes its turn id.
/// While a turn runs the prompt is queued (one at most): a further submit returns
/// `ROBOTA_E_BUSY` and does not replace the queued prompt. `ROBOTA_E_CLOSED` after close.
#[no_mangle]
pub extern "C" fn robota_session_submit(
    s: *mut robota_session,
    input_json: *const c_char,
    out_turn_id: *mut u64,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        let input = TurnInput::from_json_in(str_arg(input_json, "input_json")?, obj.session.cwd())?;
        Out::optional(out_turn_id).put(obj.session.submit(input)?);
        Ok(ROBOTA_OK)
    })
}

/// Submits a prompt (as `robota_session_submit`) and returns when its turn has finished and its
/// events were delivered (as `robota_session_wait` with no timeout). When the session is idle
/// the calling thread runs the turn itself — model requests, tools, timers — on a reactor the
/// runtime lends it (kept with its connections for the next call), so no library thread is
/// woken; `inline` delivery then calls back on the calling thread. A prompt submitted while a
/// turn runs is queued and runs on the library's workers. Writes the turn id (also on failure
/// after it was issued). Aborting from another thread ends it with `ROBOTA_E_ABORTED`.
/// Returns `ROBOTA_OK`, `ROBOTA_E_ABORTED`, `ROBOTA_E_PROVIDER`, the errors of
/// `robota_session_submit`, or `ROBOTA_E_REENTRANT` from inside a callback or on a thread that
/// runs an async runtime.
#[no_mangle]
pub extern "C" fn robota_session_run(
    s: *mut robota_session,
    input_json: *const c_char,
    out_turn_id: *mut u64,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let (obj, id) = start_run(s, input_json, out_turn_id, "robota_session_run")?;
        obj.wait(id, -1)?;
        Ok(ROBOTA_OK)
    })
}

/// Exactly `robota_session_run`, and writes the turn's result document to
/// `*out_result_json` (owned, free with `robota_string_free`) as `robota_session_wait_result`
/// does: on `ROBOTA_OK` and when the turn failed or was aborted (`ROBOTA_E_PROVIDER`,
/// `ROBOTA_E_ABORTED`, `ROBOTA_E_BUDGET`); NULL when no turn was issued or on any other
/// status. `ROBOTA_E_NULL_ARG` when `out_result_json` is NULL (nothing is submitted).
#[no_mangle]
pub extern "C" fn robota_session_run_result(
    s: *mut robota_session,
    input_json: *const c_char,
    out_turn_id: *mut u64,
    out_result_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let out = Out::required(out_result_json, "out_result_json")?;
        Out::optional(out_result_json).put(std::ptr::null_mut());
        let (obj, id) = start_run(s, input_json, out_turn_id, "robota_session_run_result")?;
        wait_with_result(&obj, id, -1, out)
    })
}

/// The start `robota_session_run` and `robota_session_run_result` share: the handle, refused
/// inside a callback (`export` names the call), the input, the turn started and its id written.
fn start_run(
    s: *mut robota_session,
    input_json: *const c_char,
    out_turn_id: *mut u64,
    export: &str,
) -> Result<
    (std::sync::Arc<super::session_obj::SessionObj>, u64),
    robota_engine::sdk::error::SdkError,
> {
    let obj = handles::session(s)?;
    refuse_in_callback(export)?;
    let input = TurnInput::from_json_in(str_arg(input_json, "input_json")?, obj.session.cwd())?;
    let id = obj.session.run(input)?;
    Out::optional(out_turn_id).put(id);
    Ok((obj, id))
}

/// Aborts turn `turn_id`, from any thread, idempotent. A running turn stops and reports
/// `ROBOTA_EVENT_TURN_COMPLETED` with `stop_reason:"aborted"` (a queued prompt then runs); a
/// queued turn is dropped alone (its `TURN_COMPLETED` has `stop_reason:"aborted"`, waits on it
/// return `ROBOTA_E_ABORTED`) and the running one goes on. `turn_id == 0`: the running turn
/// and the queued prompt. A finished turn: `ROBOTA_OK`, nothing happens. `ROBOTA_E_NOT_FOUND`
/// for a turn id never issued.
#[no_mangle]
pub extern "C" fn robota_session_abort(s: *mut robota_session, turn_id: u64) -> robota_status {
    boundary(NO_ERROR_OUT, || {
        handles::session(s)?.session.abort(turn_id)?;
        Ok(ROBOTA_OK)
    })
}

/// Waits until turn `turn_id` finished and its events were delivered (0 = every turn submitted
/// so far, i.e. until the session is idle). Delivered means: in `thread` delivery the turn's
/// `ROBOTA_EVENT_TURN_COMPLETED` callback has returned, so every event of the turn reached the
/// host; in `pump`/`pull` delivery `TURN_COMPLETED` is queued, so the next
/// `robota_session_dispatch` / `robota_session_next_event` calls hand over everything. Hence
/// `submit → wait → free` never loses an event. `timeout_ms`: -1 = forever, 0 = poll.
/// Returns `ROBOTA_OK`, `ROBOTA_E_TIMEOUT`, `ROBOTA_E_ABORTED` (the turn was aborted),
/// `ROBOTA_E_PROVIDER` (the turn failed), `ROBOTA_E_BUDGET` (the budget stopped it),
/// `ROBOTA_E_NOT_FOUND` (never submitted), or `ROBOTA_E_REENTRANT` when called from inside a
/// callback. With `turn_id == 0` the status is that of the first turn that failed since the
/// last wait (`ROBOTA_OK` when none did; a failure is reported once).
#[no_mangle]
pub extern "C" fn robota_session_wait(
    s: *mut robota_session,
    turn_id: u64,
    timeout_ms: i32,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        refuse_in_callback("robota_session_wait")?;
        obj.wait(turn_id, timeout_ms)?;
        Ok(ROBOTA_OK)
    })
}

/// `robota_session_wait` for turn `turn_id` (non-zero; 0 is `ROBOTA_E_INVALID_CONFIG`) that
/// also writes the turn's result document to `*out_result_json` (owned, free with
/// `robota_string_free`): its `ROBOTA_EVENT_TURN_COMPLETED` event in pull form
/// (`{"v":1,"kind":16,"type":"turn_completed","turn_id",…,"stop_reason",…}`), on `ROBOTA_OK`
/// and also when the turn failed or was aborted (`ROBOTA_E_PROVIDER`, `ROBOTA_E_ABORTED`,
/// `ROBOTA_E_BUDGET`: the document says why); NULL otherwise. Documents are kept for the 64
/// most recent finished turns of a session: an older turn is `ROBOTA_E_NOT_FOUND` saying its
/// result was dropped. Other statuses as `robota_session_wait`; `ROBOTA_E_NULL_ARG` when
/// `out_result_json` is NULL.
#[no_mangle]
pub extern "C" fn robota_session_wait_result(
    s: *mut robota_session,
    turn_id: u64,
    timeout_ms: i32,
    out_result_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let out = Out::required(out_result_json, "out_result_json")?;
        Out::optional(out_result_json).put(std::ptr::null_mut());
        let obj = handles::session(s)?;
        refuse_in_callback("robota_session_wait_result")?;
        if turn_id == 0 {
            return Err(err(
                ErrorCode::InvalidConfig,
                "turn_id: robota_session_wait_result waits for one turn; 0 is not a turn id",
            ));
        }
        wait_with_result(&obj, turn_id, timeout_ms, out)
    })
}

/// Waits for `turn_id` and writes its result document (see `robota_session_wait_result`).
fn wait_with_result(
    obj: &super::session_obj::SessionObj,
    turn_id: u64,
    timeout_ms: i32,
    out: Out<*mut c_char>,
) -> Result<robota_status, robota_engine::sdk::error::SdkError> {
    let outcome = obj.wait(turn_id, timeout_ms);
    let ended = match &outcome {
        Ok(()) => true,
        Err(e) => matches!(
            e.code,
            ErrorCode::Aborted | ErrorCode::Provider | ErrorCode::Budget | ErrorCode::Conflict
        ),
    };
    if !ended {
        return outcome.map(|()| ROBOTA_OK);
    }
    if let Some(doc) = obj.session.turn_result(turn_id)? {
        out.put(string_out(doc));
    }
    outcome.map(|()| ROBOTA_OK)
}

/// Runs a command `{"name":"help"|"clear"|"context"|"cost"|"model"|"mode"|"permissions"|
/// "cancel_queue"|…,"args":"…"}` → `{"v":1,"message","success","data"?}` (owned string).
/// `ROBOTA_E_NOT_FOUND` for an unknown command; `ROBOTA_E_BUSY` for `clear` or `compact` during
/// a turn. `compact` blocks until the summary is in (`ROBOTA_E_REENTRANT` inside a callback).
#[no_mangle]
pub extern "C" fn robota_session_command(
    s: *mut robota_session,
    command_json: *const c_char,
    out_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        let out = Out::required(out_json, "out_json")?;
        let text = str_arg(command_json, "command_json")?;
        if in_callback() && robota_engine::sdk::interactive::is_compact_command(text) {
            return Err(err(
                ErrorCode::Reentrant,
                "the compact command waits for the model; run it outside callbacks",
            ));
        }
        if in_callback() && robota_engine::sdk::commands::host::is_host_command(&obj.session, text)
        {
            return Err(err(
                ErrorCode::Reentrant,
                "a host command waits for the host's answer; run it outside callbacks",
            ));
        }
        let v = builtin::execute_json(&obj.session, text)?;
        out.put(string_out(v.to_string()));
        Ok(ROBOTA_OK)
    })
}

/// Appends a message to the conversation without calling the model (`injectMessage`):
/// `message_json` is `{"role":"user"|"assistant"|"system","content":"text"}`. The message is
/// reported like a committed one (`ROBOTA_EVENT_MESSAGE`, so the transcript keeps it, then
/// `ROBOTA_EVENT_CONTEXT_UPDATE`), is in every history view, reaches the model with the next
/// turn and is saved with `"persist": true`. `ROBOTA_E_INVALID_JSON` for text that is not
/// JSON; `ROBOTA_E_INVALID_CONFIG` naming the member that is wrong (an unknown member, a
/// missing or non-string `role`/`content`, another role — `tool` included); `ROBOTA_E_BUSY`
/// while a turn or command runs; `ROBOTA_E_CLOSED` after `robota_session_close` (ABI 1.2).
#[no_mangle]
pub extern "C" fn robota_session_inject_message(
    s: *mut robota_session,
    message_json: *const c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        let text = str_arg(message_json, "message_json")?;
        obj.session.inject_message(text)?;
        Ok(ROBOTA_OK)
    })
}

/// A consistent snapshot of the history (also during a turn). `query_json` (may be NULL):
/// `{"view":"conversation"}` (default: the messages the model is sent, system prompt and tool
/// results included; a failed model call's `Request failed: …` placeholder is left out, the
/// UI views show the failure as a `system` entry `Error: …`), `{"view":"messages"}` (the UI's
/// chat entries, `getMessages`) or
/// `{"view":"history"}` (the full UI timeline with `tool-start`/`tool-end`/`tool-summary`
/// entries, `getFullHistory`). Writes `{"v":1,"view","messages"|"entries":[…]}`.
#[no_mangle]
pub extern "C" fn robota_session_messages(
    s: *mut robota_session,
    query_json: *const c_char,
    out_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        let out = Out::required(out_json, "out_json")?;
        let query = opt_str_arg(query_json, "query_json")?;
        out.put(string_out(obj.session.messages_json(query)?));
        Ok(ROBOTA_OK)
    })
}

/// Session state JSON `{"v":1,…}`: `session_id`; `name` (or null); `executing` (a turn runs);
/// `closed` (`robota_session_close` was called); `current_turn`, `queued_turn` (ids or null);
/// `pending_prompt` (the queued prompt's text or null); `streaming_text` (the running turn's
/// text so far); `active_tools` (the running turn's tools); `context_state` (as in
/// `context_update`); `message_count` (turns that completed with an answer, any `stop_reason`
/// other than `error` and `aborted`, counted across resume and fork; not a number of messages);
/// `model`; `provider` (the profile name); `delivery`; `permission_mode`;
/// `session_allowed_tools` (tools approved with `remember`); `mcp_servers`.
#[no_mangle]
pub extern "C" fn robota_session_state(
    s: *mut robota_session,
    out_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        let out = Out::required(out_json, "out_json")?;
        out.put(string_out(obj.session.state_json().to_string()));
        Ok(ROBOTA_OK)
    })
}

/// A versioned snapshot `{"v":1,"kind":"robota.session",…}` for `robota_session_resume`.
/// It names the provider profile and never contains API keys; hooks are not stored.
#[no_mangle]
pub extern "C" fn robota_session_save(
    s: *mut robota_session,
    out_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        let out = Out::required(out_json, "out_json")?;
        out.put(string_out(snapshot::snapshot(&obj.session).to_string()));
        Ok(ROBOTA_OK)
    })
}

/// Pull delivery: the next event as `{"v":1,"kind":N,"type":"…","turn_id":N,…}` (text deltas
/// as `"text"`). `timeout_ms`: -1 = forever, 0 = poll. `ROBOTA_E_TIMEOUT` when none arrived,
/// `ROBOTA_E_CLOSED` after `session_closed` was read, `ROBOTA_E_UNSUPPORTED` for other
/// delivery modes, `ROBOTA_E_REENTRANT` with a timeout from inside a callback.
#[no_mangle]
pub extern "C" fn robota_session_next_event(
    s: *mut robota_session,
    timeout_ms: i32,
    out_event_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        let out = Out::required(out_event_json, "out_event_json")?;
        out.put(string_out(obj.queue.next_event(timeout_ms)?));
        Ok(ROBOTA_OK)
    })
}

/// Pump delivery: runs up to `max_events` callbacks (<= 0 = all queued) on the calling thread,
/// waiting up to `timeout_ms` (-1 = forever, 0 = no wait) for the first event. Returns the
/// number delivered (>= 0) or a negative status (`ROBOTA_E_REENTRANT` inside a callback,
/// `ROBOTA_E_UNSUPPORTED` for other delivery modes, `ROBOTA_E_BUSY` when another thread pumps).
#[no_mangle]
pub extern "C" fn robota_session_dispatch(
    s: *mut robota_session,
    max_events: i32,
    timeout_ms: i32,
) -> i32 {
    boundary(NO_ERROR_OUT, || {
        handles::session(s)?.queue.dispatch(max_events, timeout_ms)
    })
}
