//! Host I/O exports: the runtime's host I/O callback and answering host I/O requests
//! (`crate::sdk::host_io`).

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use serde_json::Value;

use super::callbacks::{nul_terminated, robota_free_fn, CallbackScope, Owned};
use super::handles::{self, robota_runtime, robota_session};
use super::status::{err, robota_error, robota_status};
use super::strings::{boundary, str_arg};
use crate::sdk::error::{parse_json, ErrorCode};
use crate::sdk::events::{Event, Payload};
use crate::sdk::pending::{Answer, AnswerError, PendingKind};
use crate::sdk::runtime::RuntimeShared;

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
pub struct HostIoReg {
    /// Callback.
    pub f: robota_host_io_fn,
    /// Data.
    pub owned: Owned,
}

/// Sets the runtime's host I/O callback, used by the built-in tools of sessions created with
/// `"host_io": true` in `thread` and `pump` delivery (in `pull` delivery requests arrive as
/// `ROBOTA_EVENT_HOST_IO` events instead). Requests: `{"v":1,"op":"read","path"}` →
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
    let mut reg = Some(HostIoReg {
        f: fn_,
        owned: Owned::new(user_data, free_fn),
    });
    let status = boundary(out_error, || {
        let runtime = handles::runtime(rt)?;
        let new: Option<Arc<dyn std::any::Any + Send + Sync>> = match reg.take() {
            Some(r) if r.f.is_some() => Some(Arc::new(r)),
            Some(_) => None,
            None => return Err(err(ErrorCode::Internal, "registration consumed twice")),
        };
        let old = {
            let mut slot = runtime
                .shared()
                .host_io
                .write()
                .unwrap_or_else(|p| p.into_inner());
            std::mem::replace(&mut *slot, new)
        };
        drop(old);
        Ok(())
    });
    if let Some(mut r) = reg {
        r.owned.disarm();
    }
    status
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
        // SAFETY: NULL or a NUL-terminated string valid for the call.
        let text = unsafe { str_arg(response_json, "response_json") }?;
        let value = parse_json("response_json", text)?;
        if !value.is_object() {
            return Err(err(
                ErrorCode::InvalidConfig,
                "response_json: a host I/O answer must be a JSON object",
            ));
        }
        runtime
            .shared()
            .pending
            .answer(io_id, &[PendingKind::HostIo], Answer::Response(value))
            .map_err(|e| match e {
                AnswerError::NotFound(m) => err(ErrorCode::NotFound, m),
                AnswerError::Stale(m) => err(ErrorCode::Stale, m),
            })
    })
}

/// Hands a `HOST_IO` event to the runtime's host I/O callback (thread and pump delivery).
/// Without a callback the request is withdrawn, so the tool fails instead of waiting.
pub fn deliver(shared: &RuntimeShared, ev: Event, session: *mut robota_session) {
    let Payload::Json(doc) = ev.payload else {
        return;
    };
    let io_id = doc.get("io_id").and_then(Value::as_u64).unwrap_or(0);
    let reg = shared
        .host_io
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .and_then(|r| r.downcast::<HostIoReg>().ok());
    let Some(f) = reg.as_ref().and_then(|r| r.f) else {
        shared.pending.cancel(io_id);
        return;
    };
    let request = nul_terminated(
        doc.get("request")
            .map_or_else(String::new, Value::to_string),
    );
    let user_data = reg
        .as_ref()
        .map_or(std::ptr::null_mut(), |r| r.owned.user_data());
    let _scope = CallbackScope::enter();
    // SAFETY: the host registered `f` for `user_data`; `request` is NUL-terminated and outlives
    // the call; `session` is the handle the host received.
    unsafe {
        f(
            user_data,
            session,
            io_id,
            request.as_ptr().cast(),
            request.len().saturating_sub(1),
        )
    };
}
