//! Session exports.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use serde_json::Value;

use super::callbacks::{in_callback, robota_event_fn, robota_free_fn, EventReg, Owned};
use super::delivery::Queue;
use super::handles::{self, robota_runtime, robota_session};
use super::session_obj::{RuntimeRef, SessionObj};
use super::status::{err, robota_error, robota_status, status_of, ROBOTA_E_PANIC, ROBOTA_OK};
use super::strings::{boundary, guard, need_out, opt_str_arg, str_arg, string_out, write_out};
use crate::sdk::config::{parse_session_config, Delivery, SessionConfig};
use crate::sdk::error::{ErrorCode, SdkError};
use crate::sdk::interactive::{InteractiveSession, Restore, TurnInput};
use crate::sdk::runtime::Runtime;
use crate::sdk::{commands, snapshot};

/// Builds a session object and publishes its handle.
fn open(
    runtime: Arc<Runtime>,
    cfg: SessionConfig,
    restore: Option<Restore>,
    reg: EventReg,
    out: *mut *mut robota_session,
) -> Result<(), (SdkError, EventReg)> {
    let has_cb = reg.f.is_some();
    let mode = cfg.delivery;
    let reg = Arc::new(reg);
    let queue = Queue::new(mode, Some(reg.clone()), runtime.shared().clone());
    let can_answer = mode == Delivery::Pull || has_cb;
    let made = InteractiveSession::new(
        runtime.shared().clone(),
        cfg,
        queue.sink(),
        can_answer,
        restore,
    );
    match made {
        Ok(session) => {
            drop(reg);
            let obj = Arc::new(SessionObj {
                session,
                queue: queue.clone(),
                runtime: RuntimeRef::new(runtime),
            });
            let started = obj.session.clone();
            let h = handles::new_session(obj);
            queue.set_session_ptr(h);
            started.emit_startup_warnings();
            // SAFETY: `out` was checked non-NULL by the caller.
            unsafe { write_out(out, h) };
            Ok(())
        }
        Err(e) => {
            queue.detach();
            drop(queue);
            match Arc::try_unwrap(reg) {
                Ok(r) => Err((e, r)),
                Err(_) => Err((
                    e,
                    EventReg {
                        f: None,
                        owned: Owned::new(std::ptr::null_mut(), None),
                    },
                )),
            }
        }
    }
}

/// Runs `make` and opens the session; on failure `free_fn` is not called.
fn open_with(
    out: *mut *mut robota_session,
    fn_: robota_event_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    out_error: *mut *mut robota_error,
    make: impl FnOnce() -> Result<(Arc<Runtime>, SessionConfig, Option<Restore>), SdkError>,
) -> robota_status {
    let mut reg = Some(EventReg {
        f: fn_,
        owned: Owned::new(user_data, free_fn),
    });
    let status = boundary(out_error, || {
        need_out(out, "out")?;
        let (runtime, cfg, restore) = make()?;
        let r = reg
            .take()
            .ok_or_else(|| err(ErrorCode::Internal, "registration consumed twice"))?;
        match open(runtime, cfg, restore, r, out) {
            Ok(()) => Ok(()),
            Err((e, r)) => {
                reg = Some(r);
                Err(e)
            }
        }
    });
    if let Some(mut r) = reg {
        r.owned.disarm();
    }
    status
}

/// Creates a session from its JSON (`{"v":1,"provider","model","system_prompt"?,"cwd"?,
/// "tools"?,"permission_mode"?,"permissions"?,"hooks"?,"max_rounds"?,"delivery"?,
/// "session_id"?,"persist"?,"settings"?,"system_prompt_mode"?,"language"?,"temperature"?,
/// "max_tokens"?,"thinking"?,"context_window"?,"native_web_search"?,"tool_config"?,…}`).
/// `"settings":"project"|"user"` reads the settings files and assembles the system prompt
/// (README "Configuration"); their problems arrive as the first `WARNING` events. A `session_id` names the file `<session_dir>/<id>.json`, so it
/// is 1 to 128 characters from A-Z a-z 0-9 `_` `.` `-`, not starting with `.` (also on resume
/// and fork); `persist` saves it after each turn, atomically (temp file, fsync, rename).
/// `fn_` receives events in `thread`/`pump` delivery (may be NULL; unused in `pull`).
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
    open_with(out, fn_, user_data, free_fn, out_error, || {
        let runtime = handles::runtime(rt)?;
        // SAFETY: NULL or a NUL-terminated string valid for the call.
        let text = unsafe { str_arg(session_json, "session_json") }?;
        Ok((runtime, parse_session_config(text)?, None))
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
    open_with(out, fn_, user_data, free_fn, out_error, || {
        let runtime = handles::runtime(rt)?;
        // SAFETY: NULL or a NUL-terminated string valid for the call.
        let text = unsafe { str_arg(resume_json, "resume_json") }?;
        let (cfg, restore) = snapshot::parse_resume(runtime.shared(), text)?;
        Ok((runtime, cfg, Some(restore)))
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
    open_with(out, fn_, user_data, free_fn, out_error, || {
        let src = handles::session(s)?;
        // SAFETY: NULL or a NUL-terminated string valid for the call.
        let text = unsafe { opt_str_arg(fork_json, "fork_json") }?;
        let (cfg, restore) = snapshot::parse_fork(&src.session, text)?;
        Ok((src.runtime.clone(), cfg, Some(restore)))
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
    guard((), || {
        if let Some(obj) = handles::free_session(s) {
            obj.queue.detach();
            obj.session.release();
        }
    });
}

/// Closes a session but keeps the handle: aborts, drops the queued prompt, runs the
/// `SessionEnd` hooks once the turn has stopped (once per session, with `robota_session_free`),
/// and delivers `ROBOTA_EVENT_SESSION_CLOSED` after them as the last event; later submits fail
/// with `ROBOTA_E_CLOSED`.
#[no_mangle]
pub extern "C" fn robota_session_close(s: *mut robota_session) -> robota_status {
    guard(ROBOTA_E_PANIC, || match handles::session(s) {
        Ok(obj) => {
            obj.session.close();
            ROBOTA_OK
        }
        Err(e) => status_of(e.code),
    })
}

/// Submits a prompt (`{"text":"…","display_input"?,"raw_input"?}`); writes its turn id.
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
        // SAFETY: NULL or a NUL-terminated string valid for the call.
        let text = unsafe { str_arg(input_json, "input_json") }?;
        let input = TurnInput::from_json(text)?;
        let id = obj.session.submit(input)?;
        if !out_turn_id.is_null() {
            // SAFETY: non-NULL output pointer supplied by the caller.
            unsafe { write_out(out_turn_id, id) };
        }
        Ok(())
    })
}

/// Aborts turn `turn_id` (0 = the running one) and drops the queued prompt; from any thread,
/// idempotent. The turn reports `ROBOTA_EVENT_TURN_COMPLETED` with `stop_reason:"aborted"`.
/// `ROBOTA_E_NOT_FOUND` for a turn id never issued.
#[no_mangle]
pub extern "C" fn robota_session_abort(s: *mut robota_session, turn_id: u64) -> robota_status {
    guard(ROBOTA_E_PANIC, || {
        match handles::session(s).and_then(|o| o.session.abort(turn_id)) {
            Ok(()) => ROBOTA_OK,
            Err(e) => status_of(e.code),
        }
    })
}

/// Waits until turn `turn_id` finished and its events were delivered (0 = every turn submitted
/// so far, i.e. until the session is idle). Delivered means: in `thread` delivery the turn's
/// `ROBOTA_EVENT_TURN_COMPLETED` callback has returned, so every event of the turn reached the
/// host; in `pump`/`pull` delivery `TURN_COMPLETED` is queued, so the next
/// `robota_session_dispatch` / `robota_session_next_event` calls hand over everything. Hence
/// `submit → wait → free` never loses an event. `timeout_ms`: -1 = forever, 0 = poll.
/// Returns `ROBOTA_OK`, `ROBOTA_E_TIMEOUT`, `ROBOTA_E_ABORTED` (the turn was aborted),
/// `ROBOTA_E_PROVIDER` (the turn failed), `ROBOTA_E_NOT_FOUND` (never submitted), or
/// `ROBOTA_E_REENTRANT` when called from inside a callback.
#[no_mangle]
pub extern "C" fn robota_session_wait(
    s: *mut robota_session,
    turn_id: u64,
    timeout_ms: i32,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        if in_callback() {
            return Err(err(
                ErrorCode::Reentrant,
                "robota_session_wait was called from inside a callback",
            ));
        }
        obj.wait(turn_id, timeout_ms)
    })
}

/// Runs a command `{"name":"help"|"clear"|"context"|"cost"|"model"|"mode"|"permissions"|
/// "cancel_queue"|…,"args":"…"}` → `{"v":1,"message","success","data"?}` (owned string).
/// `ROBOTA_E_NOT_FOUND` for an unknown command; `ROBOTA_E_BUSY` for `clear` during a turn.
#[no_mangle]
pub extern "C" fn robota_session_command(
    s: *mut robota_session,
    command_json: *const c_char,
    out_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        need_out(out_json, "out_json")?;
        // SAFETY: NULL or a NUL-terminated string valid for the call.
        let text = unsafe { str_arg(command_json, "command_json") }?;
        let v = commands::execute_json(&obj.session, text)?;
        // SAFETY: checked non-NULL.
        unsafe { write_out(out_json, string_out(v.to_string())) };
        Ok(())
    })
}

/// A consistent snapshot of the history (also during a turn). `query_json` (may be NULL):
/// `{"view":"conversation"}` (default: the messages the model sees, system prompt and tool
/// results included), `{"view":"messages"}` (the UI's chat entries, `getMessages`) or
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
        need_out(out_json, "out_json")?;
        // SAFETY: NULL or a NUL-terminated string valid for the call.
        let q = unsafe { opt_str_arg(query_json, "query_json") }?;
        let view = match q {
            None => "conversation".to_string(),
            Some(t) => {
                let m = crate::sdk::config::parse_object("query_json", t)?;
                match m.get("view") {
                    None => "conversation".to_string(),
                    Some(Value::String(v)) => v.clone(),
                    Some(_) => {
                        return Err(err(
                            ErrorCode::InvalidConfig,
                            "query_json: field \"view\" must be a string",
                        ))
                    }
                }
            }
        };
        // Serialized straight from the structs so message fields keep their documented order.
        let list_json = |msgs: Vec<Arc<crate::core::message::Message>>| {
            let list: Vec<&crate::core::message::Message> =
                msgs.iter().map(|m| m.as_ref()).collect();
            serde_json::to_string(&list).unwrap_or_else(|_| "[]".into())
        };
        let doc = match view.as_str() {
            "conversation" => format!(
                "{{\"v\":1,\"view\":\"conversation\",\"messages\":{}}}",
                list_json(obj.session.conversation())
            ),
            "messages" => format!(
                "{{\"v\":1,\"view\":\"messages\",\"messages\":{}}}",
                list_json(obj.session.ui_messages())
            ),
            "history" => format!(
                "{{\"v\":1,\"view\":\"history\",\"entries\":{}}}",
                serde_json::to_string(&obj.session.full_history()).unwrap_or_else(|_| "[]".into())
            ),
            other => {
                return Err(err(
                    ErrorCode::InvalidConfig,
                    format!("query_json: unknown view \"{other}\" (expected conversation, messages or history)"),
                ))
            }
        };
        // SAFETY: checked non-NULL.
        unsafe { write_out(out_json, string_out(doc)) };
        Ok(())
    })
}

/// Session state JSON: `{"v":1,"session_id","executing","current_turn","queued_turn",
/// "pending_prompt","streaming_text","active_tools","context_state","message_count","model",
/// "permission_mode",…}`.
#[no_mangle]
pub extern "C" fn robota_session_state(
    s: *mut robota_session,
    out_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    session_json_out(s, out_json, out_error, |obj| {
        obj.session.state_json().to_string()
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
    session_json_out(s, out_json, out_error, |obj| {
        snapshot::snapshot(&obj.session).to_string()
    })
}

/// Shared body of the exports that write one JSON document about a session to `out_json`.
fn session_json_out(
    s: *mut robota_session,
    out_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
    doc: impl FnOnce(&SessionObj) -> String,
) -> robota_status {
    boundary(out_error, || {
        let obj = handles::session(s)?;
        need_out(out_json, "out_json")?;
        let text = doc(&obj);
        // SAFETY: `out_json` was checked non-NULL by `need_out`.
        unsafe { write_out(out_json, string_out(text)) };
        Ok(())
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
        need_out(out_event_json, "out_event_json")?;
        let ev = obj.queue.next_event(timeout_ms)?;
        // SAFETY: checked non-NULL.
        unsafe { write_out(out_event_json, string_out(ev)) };
        Ok(())
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
    guard(ROBOTA_E_PANIC, || {
        match handles::session(s).and_then(|o| o.queue.dispatch(max_events, timeout_ms)) {
            Ok(n) => n,
            Err(e) => status_of(e.code),
        }
    })
}
