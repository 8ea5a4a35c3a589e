//! Library-level exports: versions, status text, strings, error objects, the log callback.

use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;

use super::callbacks::{robota_free_fn, robota_log_fn, LogReg, Owned};
use super::status::{
    robota_error, robota_status, status_text, ROBOTA_ABI_VERSION, ROBOTA_E_NULL_ARG,
};
use super::strings::boundary;
use crate::sdk::log;

static VERSION_C: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// The library's ABI version, `(major << 16) | minor`; equals `ROBOTA_ABI_VERSION` of the
/// header it was built with. Bindings refuse a different major or a lower minor.
#[no_mangle]
pub extern "C" fn robota_abi_version() -> u32 {
    ROBOTA_ABI_VERSION
}

/// The library version (e.g. `"0.1.0"`). Static; never free it.
#[no_mangle]
pub extern "C" fn robota_version() -> *const c_char {
    VERSION_C.as_ptr().cast()
}

/// Static English text for a status (`"unknown status"` for values this build does not know).
#[no_mangle]
pub extern "C" fn robota_status_str(s: robota_status) -> *const c_char {
    status_text(s).as_ptr().cast()
}

/// Frees a string returned through a `char **` output. NULL is a no-op.
#[no_mangle]
pub extern "C" fn robota_string_free(s: *mut c_char) {
    if s.is_null() {
        return;
    }
    // SAFETY: non-NULL strings handed out by this library come from `CString::into_raw`, and
    // the caller passes each one back exactly once.
    drop(unsafe { CString::from_raw(s) });
}

/// The status code of an error object (`ROBOTA_E_NULL_ARG` for NULL).
#[no_mangle]
pub extern "C" fn robota_error_code(e: *const robota_error) -> i32 {
    if e.is_null() {
        return ROBOTA_E_NULL_ARG;
    }
    // SAFETY: non-NULL error objects come from this library and are valid until freed.
    unsafe { (*e).status }
}

/// The message of an error object, naming what is wrong; valid until `robota_error_free`.
/// NULL for a NULL error.
#[no_mangle]
pub extern "C" fn robota_error_message(e: *const robota_error) -> *const c_char {
    if e.is_null() {
        return std::ptr::null();
    }
    // SAFETY: as in `robota_error_code`.
    unsafe { (*e).message.as_ptr() }
}

/// Details of an error object as JSON (`{"v":1,"code","category","recoverable","message"}` of
/// the Robota error taxonomy), or NULL when there are none. Valid until `robota_error_free`.
#[no_mangle]
pub extern "C" fn robota_error_details(e: *const robota_error) -> *const c_char {
    if e.is_null() {
        return std::ptr::null();
    }
    // SAFETY: as in `robota_error_code`.
    match unsafe { &(*e).details } {
        Some(d) => d.as_ptr(),
        None => std::ptr::null(),
    }
}

/// Frees an error object. NULL is a no-op.
#[no_mangle]
pub extern "C" fn robota_error_free(e: *mut robota_error) {
    if e.is_null() {
        return;
    }
    // SAFETY: error objects come from `Box::into_raw` in the boundary; freed once by the caller.
    drop(unsafe { Box::from_raw(e) });
}

/// Installs the process-wide log callback (NULL `fn_` removes it). Lines with
/// `level >= min_level` (`ROBOTA_LOG_TRACE` 0 … `ROBOTA_LOG_ERROR` 4) are delivered, from any
/// library thread. The previous registration's `free_fn` runs after its last callback.
#[no_mangle]
pub extern "C" fn robota_set_log_callback(
    fn_: robota_log_fn,
    user_data: *mut c_void,
    free_fn: robota_free_fn,
    min_level: i32,
    out_error: *mut *mut robota_error,
) -> robota_status {
    boundary(out_error, || {
        set_log(fn_, user_data, free_fn, min_level);
        Ok(())
    })
}

fn set_log(fn_: robota_log_fn, user_data: *mut c_void, free_fn: robota_free_fn, min_level: i32) {
    let reg = Arc::new(LogReg {
        f: fn_,
        owned: Owned::new(user_data, free_fn),
    });
    let sink: Option<log::LogSink> = if fn_.is_some() {
        let r = reg.clone();
        Some(Arc::new(move |level: i32, target: &str, msg: &str| {
            r.call(level, target, msg)
        }))
    } else {
        None
    };
    drop(reg);
    let old = log::set_sink(sink, min_level);
    drop(old);
}
