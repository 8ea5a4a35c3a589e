//! Library-level exports: versions, status text, strings, error objects, the log callback.

use std::ffi::{c_char, c_void};

use super::args::{obj_ref, take_boxed, take_string};
use super::boundary::{boundary, NO_ERROR_OUT};
use super::callbacks::{robota_free_fn, robota_log_fn, LogReg};
use super::status::{
    robota_error, robota_status, status_text, ROBOTA_ABI_VERSION, ROBOTA_E_NULL_ARG, ROBOTA_OK,
};
use robota_engine::core::log;

static VERSION_C: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// The library's ABI version, `(major << 16) | minor`; equals `ROBOTA_ABI_VERSION` of the
/// header it was built with. Bindings refuse a different major or a lower minor.
#[no_mangle]
pub extern "C" fn robota_abi_version() -> u32 {
    boundary(NO_ERROR_OUT, || Ok(ROBOTA_ABI_VERSION))
}

/// The library version (e.g. `"1.2.0"`; major.minor is the ABI version). Static; never free it.
#[no_mangle]
pub extern "C" fn robota_version() -> *const c_char {
    boundary(NO_ERROR_OUT, || Ok(VERSION_C.as_ptr().cast()))
}

/// Static English text for a status (`"unknown status"` for values this build does not know).
#[no_mangle]
pub extern "C" fn robota_status_str(s: robota_status) -> *const c_char {
    boundary(NO_ERROR_OUT, || Ok(status_text(s).as_ptr().cast()))
}

/// Frees a string returned through a `char **` output. NULL is a no-op.
#[no_mangle]
pub extern "C" fn robota_string_free(s: *mut c_char) {
    boundary(NO_ERROR_OUT, || {
        drop(take_string(s));
        Ok(())
    })
}

/// The status code of an error object (`ROBOTA_E_NULL_ARG` for NULL).
#[no_mangle]
pub extern "C" fn robota_error_code(e: *const robota_error) -> i32 {
    boundary(NO_ERROR_OUT, || {
        Ok(obj_ref(e).map_or(ROBOTA_E_NULL_ARG, |e| e.status))
    })
}

/// The message of an error object, naming what is wrong; valid until `robota_error_free`.
/// NULL for a NULL error.
#[no_mangle]
pub extern "C" fn robota_error_message(e: *const robota_error) -> *const c_char {
    boundary(NO_ERROR_OUT, || {
        Ok(obj_ref(e).map_or(std::ptr::null(), |e| e.message.as_ptr()))
    })
}

/// Details of an error object as JSON (`{"v":1,"code","category","recoverable","message"}` of
/// the Robota error taxonomy), or NULL when there are none. Valid until `robota_error_free`.
#[no_mangle]
pub extern "C" fn robota_error_details(e: *const robota_error) -> *const c_char {
    boundary(NO_ERROR_OUT, || {
        Ok(obj_ref(e)
            .and_then(|e| e.details.as_ref())
            .map_or(std::ptr::null(), |d| d.as_ptr()))
    })
}

/// Frees an error object. NULL is a no-op.
#[no_mangle]
pub extern "C" fn robota_error_free(e: *mut robota_error) {
    boundary(NO_ERROR_OUT, || {
        drop(take_boxed(e));
        Ok(())
    })
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
        let sink = LogReg::new(fn_, user_data, free_fn).into_sink();
        drop(log::set_sink(sink, min_level));
        Ok(ROBOTA_OK)
    })
}
