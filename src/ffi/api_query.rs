//! One-shot query export (`robota_query`, added in ABI 1.1).

use std::ffi::{c_char, c_void};

use super::args::{str_arg, string_out, Out};
use super::boundary::boundary;
use super::callbacks::{deliver, refuse_in_callback, robota_event_fn, robota_free_fn, EventReg};
use super::handles::{self, robota_runtime};
use super::status::{robota_error, robota_status, ROBOTA_OK};

/// One shot (`createQuery`): a temporary session built from `query_json` (session JSON plus
/// `"prompt"`; `permission_mode` defaults to `"bypassPermissions"`), run to completion, then
/// closed. Blocks; `ROBOTA_E_REENTRANT` inside a callback. `fn_` (may be NULL) receives every
/// event of the query on the calling thread, in order, before this returns, whatever the
/// `delivery` field says; the `session` argument of those calls is NULL (answer requests with
/// the runtime-level `robota_*_complete` functions). `free_fn(user_data)` runs exactly once
/// before this returns, whatever the result. `out_json` (owned, free with
/// `robota_string_free`) = `{"v":1,"response","stop_reason","usage","output"?,"session_id"?,
/// "messages"}` (`output`: the validated answer when the JSON has an `output_schema`)
/// (`session_id` when `"persist": true`; `messages` = the conversation, system prompt first).
/// Errors: those of `robota_session_new`, `ROBOTA_E_INVALID_CONFIG` (missing `prompt`),
/// `ROBOTA_E_PROVIDER` (the turn failed; the message says why).
#[no_mangle]
pub extern "C" fn robota_query(
    rt: *mut robota_runtime,
    query_json: *const c_char,
    fn_: robota_event_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    out_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        // Armed at once: `free_fn` runs when `reg` drops, before this returns, whatever happens.
        let reg = EventReg::new(fn_, user_data, free_fn);
        reg.owned.arm();
        refuse_in_callback("robota_query")?;
        let out = Out::required(out_json, "out_json")?;
        let runtime = handles::runtime(rt)?;
        let text = str_arg(query_json, "query_json")?;
        let v =
            robota_engine::sdk::query::run(runtime.shared().clone(), text, fn_.is_some(), |ev| {
                deliver(ev, Some(&reg), std::ptr::null_mut())
            })?;
        out.put(string_out(v.to_string()));
        Ok(ROBOTA_OK)
    })
}
