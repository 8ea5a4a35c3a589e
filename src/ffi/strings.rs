//! C strings in and out, the panic boundary and error reporting.

use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::status::{robota_error, robota_status, status_of, ROBOTA_OK};
use crate::sdk::error::{ErrorCode, SdkError};

/// Borrows a NUL-terminated UTF-8 argument named `what`.
///
/// # Safety
/// `p` must be NULL or point to a NUL-terminated string valid for the call.
pub unsafe fn str_arg<'a>(p: *const c_char, what: &str) -> Result<&'a str, SdkError> {
    if p.is_null() {
        return Err(SdkError::new(ErrorCode::NullArg, format!("{what} is NULL")));
    }
    // SAFETY: non-NULL and NUL-terminated per the caller's contract.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str().map_err(|e| {
        SdkError::new(
            ErrorCode::InvalidUtf8,
            format!(
                "{what} is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ),
        )
    })
}

/// Like [`str_arg`] but NULL is allowed.
///
/// # Safety
/// As [`str_arg`].
pub unsafe fn opt_str_arg<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, SdkError> {
    if p.is_null() {
        Ok(None)
    } else {
        // SAFETY: forwarded contract.
        unsafe { str_arg(p, what) }.map(Some)
    }
}

/// An owned C string for the caller (freed with `robota_string_free`).
pub fn string_out(s: String) -> *mut c_char {
    CString::new(s.replace('\0', "\\u0000"))
        .unwrap_or_default()
        .into_raw()
}

/// Writes `v` through `out` (non-NULL checked by the caller).
///
/// # Safety
/// `out` must be a valid, writable pointer.
pub unsafe fn write_out<T>(out: *mut T, v: T) {
    // SAFETY: caller guarantees `out` is valid and writable.
    unsafe { out.write(v) }
}

/// Checks that an output pointer is not NULL.
pub fn need_out<T>(out: *mut T, what: &str) -> Result<(), SdkError> {
    if out.is_null() {
        Err(SdkError::new(ErrorCode::NullArg, format!("{what} is NULL")))
    } else {
        Ok(())
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Runs `f` behind the panic boundary; on failure stores an error object in `out_error`
/// (when non-NULL) and returns its status.
pub fn boundary(
    out_error: *mut *mut robota_error,
    f: impl FnOnce() -> Result<(), SdkError>,
) -> robota_status {
    let e = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return ROBOTA_OK,
        Ok(Err(e)) => e,
        Err(p) => SdkError::new(
            ErrorCode::Panic,
            format!("internal panic: {}", panic_message(p.as_ref())),
        ),
    };
    let status = status_of(e.code);
    if !out_error.is_null() {
        let obj = Box::into_raw(Box::new(robota_error::from_sdk(&e)));
        // SAFETY: `out_error` is non-NULL and, per the ABI, points to writable storage.
        unsafe { out_error.write(obj) };
    }
    status
}

/// Runs `f` behind the panic boundary, mapping a panic to `on_panic`.
pub fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}
