//! Session store exports: list and delete saved sessions (ABI 1.1), and the host's own store
//! (ABI 1.2: `robota_runtime_set_store`, `robota_store_complete`). Without a host store,
//! sessions are saved under the runtime's session directory (`session_dir`, default
//! `$ROBOTA_HOME/sessions`).

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use serde_json::Value;

use super::args::{opt_str_arg, str_arg, string_out, Out};
use super::boundary::boundary;
use super::callbacks::{json_nul_terminated, robota_free_fn, CallbackScope, Owned};
use super::handles::{self, robota_runtime};
use super::status::{robota_error, robota_status, ROBOTA_OK};
use robota_engine::sdk::persistence::port::StoreHandler;
use robota_engine::sdk::persistence::store;

/// Receives one session store request (`{"v":1,"op":"load"|"save"|"delete"|"list"|"append",…}`,
/// borrowed for the call and NUL-terminated). Answer it once with `robota_store_complete`,
/// inside the callback or later from any thread.
#[allow(non_camel_case_types)]
pub type robota_store_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        request_id: u64,
        request_json: *const c_char,
        request_len: usize,
    ),
>;

/// A store callback registration.
struct StoreReg {
    f: robota_store_fn,
    owned: Owned,
}

impl StoreHandler for StoreReg {
    fn call(&self, request_id: u64, request: &Value) {
        let Some(f) = self.f else { return };
        let request = json_nul_terminated(request);
        let _scope = CallbackScope::enter();
        // SAFETY: the host registered `f` for `user_data`; `request` is NUL-terminated and
        // outlives the call.
        unsafe {
            f(
                self.owned.user_data(),
                request_id,
                request.as_ptr().cast(),
                request.len().saturating_sub(1),
            )
        };
    }
}

/// Sets the runtime's session store: from now on sessions with `"persist": true` save through
/// it after each turn, `robota_session_resume` with `{"v":1,"session_id"}` loads through it,
/// `robota_store_list` / `robota_store_delete` and transcripts (`"transcript"`) use it instead
/// of the session directory. Requests (`docs/session-store.md`): `{"v":1,"op":"load",
/// "session_id"}` → `{"version","snapshot"}` or `{"found":false}`; `{"op":"save","session_id",
/// "expected_version","snapshot","summary"}` → `{"version"}` (expected + 1) or
/// `{"conflict":true,"version"}`; `{"op":"delete","session_id"}` → `{"deleted"}`;
/// `{"op":"list","cwd","limit"}` → `{"sessions":[…]}`; `{"op":"append","session_id","lines"}` →
/// `{}`; any op may be answered `{"error":"message"}`. A request not answered within the
/// runtime's `request_timeout_ms` fails its operation with `ROBOTA_E_TIMEOUT`. A save whose
/// `expected_version` is stale ends the turn with `ROBOTA_E_CONFLICT`. A later call replaces
/// the registration (the old `free_fn` runs once no callback uses it); `fn_` NULL removes it
/// (back to the directory). On failure `free_fn` is not called.
#[no_mangle]
pub extern "C" fn robota_runtime_set_store(
    rt: *mut robota_runtime,
    fn_: robota_store_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let reg = Arc::new(StoreReg {
            f: fn_,
            owned: Owned::new(user_data, free_fn),
        });
        let runtime = handles::runtime(rt)?;
        reg.owned.arm();
        let handler: Option<Arc<dyn StoreHandler>> = match fn_ {
            Some(_) => Some(reg),
            None => None,
        };
        drop(runtime.shared().store_port().register(handler));
        Ok(ROBOTA_OK)
    })
}

/// Answers session store request `request_id` with `response_json` (a JSON object, see
/// `robota_runtime_set_store`). Callable from any thread, also inside the callback. Errors:
/// `ROBOTA_E_STALE` (already answered, or it timed out), `ROBOTA_E_NOT_FOUND` (never issued),
/// `ROBOTA_E_INVALID_JSON`, `ROBOTA_E_INVALID_CONFIG` (not a JSON object; the request keeps
/// waiting).
#[no_mangle]
pub extern "C" fn robota_store_complete(
    rt: *mut robota_runtime,
    request_id: u64,
    response_json: *const c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let runtime = handles::runtime(rt)?;
        let text = str_arg(response_json, "response_json")?;
        runtime.shared().store_port().complete(request_id, text)?;
        Ok(ROBOTA_OK)
    })
}

/// Lists saved sessions (the host's store when set). `query_json` may be NULL or `{"cwd"?,"limit"?}`. Writes (owned
/// string) `{"v":1,"sessions":[{"id","name","cwd","created_at","updated_at","message_count"}],
/// "skipped":[{"file","error"}]}`, newest first; a corrupt or truncated file is skipped and
/// named in `skipped`. A missing directory lists nothing.
#[no_mangle]
pub extern "C" fn robota_store_list(
    rt: *mut robota_runtime,
    query_json: *const c_char,
    out_json: *mut *mut c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let runtime = handles::runtime(rt)?;
        let out = Out::required(out_json, "out_json")?;
        let query = opt_str_arg(query_json, "query_json")?;
        let v = store::list_json(runtime.shared(), query)?;
        out.put(string_out(v.to_string()));
        Ok(ROBOTA_OK)
    })
}

/// Deletes the saved session `session_id` (in the host's store when set). `ROBOTA_E_NOT_FOUND` when there is none,
/// `ROBOTA_E_INVALID_CONFIG` for an id that cannot name a session file.
#[no_mangle]
pub extern "C" fn robota_store_delete(
    rt: *mut robota_runtime,
    session_id: *const c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let runtime = handles::runtime(rt)?;
        let id = str_arg(session_id, "session_id")?;
        store::delete(runtime.shared(), id)?;
        Ok(ROBOTA_OK)
    })
}
