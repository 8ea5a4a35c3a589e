//! Host-supplied provider exports: registering a provider the host implements and pushing the
//! events of its calls (`robota_engine::sdk::host::provider`).

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use super::args::{opt_str_arg, str_arg};
use super::boundary::boundary;
use super::callbacks::{nul_copy, robota_free_fn, CallbackScope, Owned};
use super::handles::{self, robota_runtime};
use super::status::{robota_error, robota_status, ROBOTA_OK};
use robota_engine::sdk::error::{ErrorCode, SdkError};
use robota_engine::sdk::host::provider::HostProviderHandler;

/// Receives one model call or the cancellation of one. `call_id` is unique per runtime, never
/// 0. `request_json` is borrowed for the call, NUL-terminated, `request_len` bytes without the
/// NUL: `{"v":1,"type":"call","provider","model","session_id","messages","tools",
/// "tool_choice","max_tokens","temperature","thinking_budget","attempt"}` or
/// `{"v":1,"type":"cancel","reason":"aborted"|"session_closed"|"timeout"}`. Called on a
/// library thread that holds no lock (the host's own thread inside `robota_session_run`
/// included); it must return quickly: answer later from any thread with
/// `robota_provider_push`.
#[allow(non_camel_case_types)]
pub type robota_provider_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        call_id: u64,
        request_json: *const c_char,
        request_len: usize,
    ),
>;

/// A host provider's callback registration.
struct ProviderReg {
    f: robota_provider_fn,
    owned: Owned,
}

impl HostProviderHandler for ProviderReg {
    fn call(&self, call_id: u64, document: &str) {
        let Some(f) = self.f else { return };
        let doc = nul_copy(document);
        let _scope = CallbackScope::enter();
        // SAFETY: the host registered `f` for `user_data`; `doc` is NUL-terminated and
        // outlives the call.
        unsafe {
            f(
                self.owned.user_data(),
                call_id,
                doc.as_ptr().cast(),
                doc.len() - 1,
            )
        };
    }
}

/// Registers a provider the host implements (ABI v1.2) as `name`: sessions (`"provider":
/// name`), subagents, team templates, compaction, prompt hooks and `robota_query` use it like
/// a provider profile. For each model call `fn_` receives a call id and the request document;
/// the host answers with `robota_provider_push` events, then one `done` or `error`.
/// `capabilities_json` (NULL = `{}`): `{"models"?:["id",…] (other models fail the call as
/// not available), "context_window"?, "max_output_tokens"? (sent when the session sets no
/// `max_tokens`), "vision"? (default false: a request with an image fails), "thinking"?
/// (default false: no `thinking_budget` is sent), "max_retries"? (default 2), "timeout_ms"?
/// (default 300000: a call with no event for that long is cancelled with reason `"timeout"`
/// and fails as a recoverable provider error)}`. `free_fn(user_data)` runs once when the
/// runtime is gone (after the last call); on failure it is not called. Errors:
/// `ROBOTA_E_NULL_ARG` (`name` or `fn_` NULL), `ROBOTA_E_INVALID_JSON`,
/// `ROBOTA_E_INVALID_CONFIG` (empty name, a name that is a provider profile of the config or
/// an earlier registration, an unknown capability key or a wrong value), `ROBOTA_E_INVALID_UTF8`,
/// `ROBOTA_E_INVALID_HANDLE`.
#[no_mangle]
pub extern "C" fn robota_runtime_register_provider(
    rt: *mut robota_runtime,
    name: *const c_char,
    capabilities_json: *const c_char,
    fn_: robota_provider_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let reg = Arc::new(ProviderReg {
            f: fn_,
            owned: Owned::new(user_data, free_fn),
        });
        let runtime = handles::runtime(rt)?;
        let name = str_arg(name, "name")?;
        let caps = opt_str_arg(capabilities_json, "capabilities_json")?;
        if fn_.is_none() {
            return Err(SdkError::new(ErrorCode::NullArg, "fn_ is NULL"));
        }
        runtime.register_provider(name, caps, reg.clone())?;
        reg.owned.arm();
        Ok(ROBOTA_OK)
    })
}

/// Pushes one event (ABI v1.2) for host provider call `call_id`, from any thread, also inside
/// the provider callback: `{"type":"text","text"}`, `{"type":"thinking","text"}`,
/// `{"type":"tool_call","id","name","arguments":{…}}`, or streamed
/// `{"type":"tool_call_start","id","name"}`, `{"type":"tool_call_delta","id","arguments":"<JSON
/// text fragment>"}`, `{"type":"tool_call_end","id"}`; `{"type":"usage","input_tokens",
/// "output_tokens"}`; then exactly one end: `{"type":"done","stop_reason"?:"end_turn"|
/// "tool_use"|"max_tokens"|"refusal"}` or `{"type":"error","class":"provider"|"rate_limit"|
/// "authentication"|"network"|"model_not_available"|"context_length"|"invalid_request",
/// "message","retry_after_ms"?,"recoverable"?}`. Errors: `ROBOTA_E_STALE` (the call ended:
/// done, failed or cancelled), `ROBOTA_E_NOT_FOUND` (never issued), `ROBOTA_E_INVALID_JSON`,
/// `ROBOTA_E_INVALID_CONFIG` (unknown `type`, missing or wrong field, a delta for a tool call
/// never started, a tool the request did not offer, arguments that are not a JSON object);
/// an `INVALID_JSON` or `INVALID_CONFIG` push also ends the call with a non-recoverable
/// provider error saying what was wrong.
#[no_mangle]
pub extern "C" fn robota_provider_push(
    rt: *mut robota_runtime,
    call_id: u64,
    event_json: *const c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let runtime = handles::runtime(rt)?;
        let text = str_arg(event_json, "event_json")?;
        runtime.push_provider_event(call_id, text)?;
        Ok(ROBOTA_OK)
    })
}
