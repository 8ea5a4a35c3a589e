//! Session store exports (added in ABI 1.1): list and delete the sessions saved under the
//! runtime's session directory (`session_dir`, default `$ROBOTA_HOME/sessions`).

use std::ffi::c_char;

use super::args::{opt_str_arg, str_arg, string_out, Out};
use super::boundary::boundary;
use super::handles::{self, robota_runtime};
use super::status::{robota_error, robota_status, ROBOTA_OK};
use robota_engine::sdk::persistence::store;

/// Lists saved sessions. `query_json` may be NULL or `{"cwd"?,"limit"?}`. Writes (owned
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

/// Deletes the saved session `session_id`. `ROBOTA_E_NOT_FOUND` when there is none,
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
