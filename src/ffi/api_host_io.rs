//! Host I/O exports: the runtime's host I/O callback and answering host I/O requests
//! (`robota_engine::sdk::host::io`).

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use serde_json::Value;

use super::args::str_arg;
use super::boundary::boundary;
use super::callbacks::{json_nul_terminated, robota_free_fn, CallbackScope, Owned};
use super::handles::{self, robota_runtime, robota_session};
use super::status::{robota_error, robota_status, ROBOTA_OK};
use robota_engine::sdk::host::io_handler::HostIoHandler;

/// Receives a host I/O request (`{"v":1,"op":"read"|"write"|"stat"|"list"|"exec",…}`,
/// borrowed for the call and NUL-terminated). Answer it once with `robota_host_io_complete`,
/// inside the callback or later from any thread.
#[allow(non_camel_case_types)]
pub type robota_host_io_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        session: *mut robota_session,
        io_id: u64,
        request_json: *const c_char,
        request_len: usize,
    ),
>;

/// A host I/O callback registration.
struct HostIoReg {
    f: robota_host_io_fn,
    owned: Owned,
}

impl HostIoHandler for HostIoReg {
    fn call(&self, session: usize, io_id: u64, request: &Value) {
        let Some(f) = self.f else { return };
        let request = json_nul_terminated(request);
        let _scope = CallbackScope::enter();
        // SAFETY: the host registered `f` for `user_data`; `request` is NUL-terminated and
        // outlives the call; `session` is the handle the host received.
        unsafe {
            f(
                self.owned.user_data(),
                session as *mut robota_session,
                io_id,
                request.as_ptr().cast(),
                request.len().saturating_sub(1),
            )
        };
    }
}

/// Sets the runtime's host I/O callback, used by the built-in tools of sessions created with
/// `"host_io": true` in `thread`, `inline` and `pump` delivery (in `pull` delivery requests
/// arrive as `ROBOTA_EVENT_HOST_IO` events instead). Requests: `{"v":1,"op":"read","path"}` →
/// `{"content"}`; `{"op":"write","path","content"}` → `{}`; `{"op":"stat","path"}` →
/// `{"exists","is_dir","size","mtime_ms"}`; `{"op":"list","path"}` →
/// `{"entries":[{"name","is_dir"}]}`; `{"op":"exec","command","cwd","timeout_ms","env"}` →
/// `{"exit_code","stdout","stderr"}`; any op may be answered `{"error":"message"}`, and
/// `{"error":"unsupported"}` for an op the host does not offer. Paths are absolute, normalized
/// and permission-checked. A later call replaces the registration (the old `free_fn` runs once
/// no callback uses it); `fn_` NULL removes it. On failure `free_fn` is not called.
#[no_mangle]
pub extern "C" fn robota_runtime_set_host_io(
    rt: *mut robota_runtime,
    fn_: robota_host_io_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let reg = Arc::new(HostIoReg {
            f: fn_,
            owned: Owned::new(user_data, free_fn),
        });
        let runtime = handles::runtime(rt)?;
        reg.owned.arm();
        let handler: Option<Arc<dyn HostIoHandler>> = match fn_ {
            Some(_) => Some(reg),
            None => None,
        };
        runtime.set_host_io(handler);
        Ok(ROBOTA_OK)
    })
}

/// Answers host I/O request `io_id` with `response_json` (a JSON object, see
/// `robota_runtime_set_host_io`). Callable from any thread, also inside the callback. A
/// wrong-shaped answer fails the tool with a message naming the op and the field. Errors:
/// `ROBOTA_E_STALE` (already answered, or its turn was aborted / the session closed),
/// `ROBOTA_E_NOT_FOUND` (never issued, or not a host I/O request), `ROBOTA_E_INVALID_JSON`,
/// `ROBOTA_E_INVALID_CONFIG` (not a JSON object; the request keeps waiting).
#[no_mangle]
pub extern "C" fn robota_host_io_complete(
    rt: *mut robota_runtime,
    io_id: u64,
    response_json: *const c_char,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        let runtime = handles::runtime(rt)?;
        let text = str_arg(response_json, "response_json")?;
        runtime.complete_host_io(io_id, text)?;
        Ok(ROBOTA_OK)
    })
}
