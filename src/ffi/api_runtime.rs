//! Runtime exports: creation from config JSON, host tools, team templates, answering ids.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use super::args::{str_arg, Out};
use super::boundary::{boundary, NO_ERROR_OUT};
use super::callbacks::{robota_free_fn, robota_tool_fn, ToolReg};
use super::handles::{self, robota_runtime};
use super::status::{robota_error, robota_status, ROBOTA_OK};
use robota_engine::sdk::runtime::Runtime;

/// Creates a runtime from its config JSON
/// (`{"v":1,"providers":{"NAME":{"kind":…,"base_url"?,"api_key"?,…}},"worker_threads"?,
/// "session_dir"?,"request_timeout_ms"?,"request_timeout_decision"?}`): its async workers
/// (`worker_threads`, default one per core, at least 1: shards of one worker thread each,
/// with HTTP connections of their own, started when a session first needs them, so a host
/// that only runs turns with `robota_session_run` starts none) shared by all its sessions.
/// Errors: `ROBOTA_E_INVALID_JSON`, `ROBOTA_E_INVALID_CONFIG` (missing/wrong field, unknown
/// provider kind), `ROBOTA_E_INVALID_UTF8`, `ROBOTA_E_VERSION_MISMATCH`.
#[no_mangle]
pub extern "C" fn robota_runtime_new(
    config_json: *const c_char,
    out: *mut *mut robota_runtime,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let out = Out::required(out, "out")?;
        let text = str_arg(config_json, "config_json")?;
        robota_engine::core::child_signal::set_prepare(super::child_signal::prepare);
        let rt = Runtime::from_json(text)?;
        out.put(handles::new_runtime(Arc::new(rt)));
        Ok(ROBOTA_OK)
    })
}

/// Releases the caller's reference to a runtime. Sessions keep their runtime alive, so free
/// order does not matter. NULL and already-freed handles are ignored.
#[no_mangle]
pub extern "C" fn robota_runtime_free(rt: *mut robota_runtime) {
    boundary(NO_ERROR_OUT, || {
        drop(handles::free_runtime(rt));
        Ok(())
    })
}

/// Registers a host tool (`{"name","description","input_schema":{JSON Schema},"read_only"?,
/// "timeout_ms"?}`) for sessions created afterwards. `fn_` may be NULL: calls then arrive as
/// `ROBOTA_EVENT_TOOL_CALL` events. Answer every call with `robota_tool_call_complete`, inside
/// the callback or later from any thread. `free_fn(user_data)` runs once when the runtime is
/// gone; on failure it is not called.
#[no_mangle]
pub extern "C" fn robota_runtime_register_tool(
    rt: *mut robota_runtime,
    tool_json: *const c_char,
    fn_: robota_tool_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let reg = Arc::new(ToolReg::new(fn_, user_data, free_fn));
        let runtime = handles::runtime(rt)?;
        let text = str_arg(tool_json, "tool_json")?;
        runtime.register_tool(text, Some(reg.clone()))?;
        reg.arm();
        Ok(ROBOTA_OK)
    })
}

/// Registers a team template (`{"id","name","provider","model","systemMessage",
/// "description"?,"temperature"?}`) for the team tools (`"team": true` sessions) of this
/// runtime, existing sessions included. `provider` names a provider profile of the runtime
/// config or a provider kind (the first profile of that kind). Ids are unique per runtime: an
/// id that exists (a built-in `general` / `task_coordinator`, or an earlier registration) is
/// refused and the registered template is kept. Errors: `ROBOTA_E_INVALID_JSON`,
/// `ROBOTA_E_INVALID_CONFIG` (naming the missing or wrong field, or the duplicate id),
/// `ROBOTA_E_INVALID_UTF8`, `ROBOTA_E_VERSION_MISMATCH`.
#[no_mangle]
pub extern "C" fn robota_runtime_register_template(
    rt: *mut robota_runtime,
    template_json: *const c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let runtime = handles::runtime(rt)?;
        let text = str_arg(template_json, "template_json")?;
        runtime.register_template(text)?;
        Ok(ROBOTA_OK)
    })
}

/// Answers host tool call `call_id` with `result_json` (any JSON value; text that is not JSON
/// is taken as a plain string). `is_error` = 1 marks a failure the model should see. Callable
/// from any thread, also inside the tool callback. Errors: `ROBOTA_E_STALE` (already answered,
/// timed out, aborted), `ROBOTA_E_NOT_FOUND` (never issued, or not a tool call).
#[no_mangle]
pub extern "C" fn robota_tool_call_complete(
    rt: *mut robota_runtime,
    call_id: u64,
    result_json: *const c_char,
    is_error: i32,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let runtime = handles::runtime(rt)?;
        let text = str_arg(result_json, "result_json")?;
        runtime.complete_tool_call(call_id, text, is_error != 0)?;
        Ok(ROBOTA_OK)
    })
}

/// Answers a permission request (`{"decision":"allow"|"deny","remember":false}`) or a host
/// hook request (`{"exit_code":0|2|N,"stdout":"…","stderr":"…"}`; 2 blocks). Errors:
/// `ROBOTA_E_STALE`, `ROBOTA_E_NOT_FOUND`, `ROBOTA_E_INVALID_JSON`, `ROBOTA_E_INVALID_CONFIG`
/// (wrong shape; the request keeps waiting).
#[no_mangle]
pub extern "C" fn robota_request_respond(
    rt: *mut robota_runtime,
    request_id: u64,
    response_json: *const c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let runtime = handles::runtime(rt)?;
        let text = str_arg(response_json, "response_json")?;
        runtime.respond(request_id, text)?;
        Ok(ROBOTA_OK)
    })
}
