//! The panic boundary every export enters first (rustls-ffi's `ffi_panic_boundary!` idea): the
//! body runs under `catch_unwind` and returns `Result<T, SdkError>`; an error or a caught panic
//! becomes an error object in `out_error` (when the export has one and it is non-NULL) and the
//! value [`FfiReturn::failed`] picks for the export's return type.

use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::status::{robota_error, robota_status, status_of};
use robota_engine::sdk::error::{ErrorCode, SdkError};

/// `out_error` of the exports that have none.
pub(crate) const NO_ERROR_OUT: *mut *mut robota_error = std::ptr::null_mut();

/// What an export returns when its body failed or panicked, per return type.
pub(crate) trait FfiReturn {
    /// The return value for a failure with `status`.
    fn failed(status: robota_status) -> Self;
}

impl FfiReturn for () {
    fn failed(_: robota_status) -> Self {}
}

/// Statuses, and counts that are negative statuses on failure (`robota_session_dispatch`).
impl FfiReturn for i32 {
    fn failed(status: robota_status) -> Self {
        status
    }
}

/// Versions: 0 is no valid ABI version.
impl FfiReturn for u32 {
    fn failed(_: robota_status) -> Self {
        0
    }
}

impl FfiReturn for *const c_char {
    fn failed(_: robota_status) -> Self {
        std::ptr::null()
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

/// Runs an export's body behind the panic boundary. On failure (an error or a caught panic) an
/// error object goes to `out_error` when it is non-NULL, and the export returns
/// [`FfiReturn::failed`] with the failure's status.
pub(crate) fn boundary<T: FfiReturn>(
    out_error: *mut *mut robota_error,
    body: impl FnOnce() -> Result<T, SdkError>,
) -> T {
    let e = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => return v,
        Ok(Err(e)) => e,
        Err(p) => SdkError::new(
            ErrorCode::Panic,
            format!("internal panic: {}", panic_message(p.as_ref())),
        ),
    };
    if !out_error.is_null() {
        let obj = Box::into_raw(Box::new(robota_error::from_sdk(&e)));
        // SAFETY: `out_error` is non-NULL and, per the ABI, points to writable storage.
        unsafe { out_error.write(obj) };
    }
    T::failed(status_of(e.code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::status::{ROBOTA_E_BUSY, ROBOTA_E_PANIC};

    #[test]
    fn a_panic_becomes_the_panic_status_and_an_error_object() {
        let mut e: *mut robota_error = std::ptr::null_mut();
        let s: robota_status = boundary(&mut e, || -> Result<i32, SdkError> { panic!("boom") });
        assert_eq!(s, ROBOTA_E_PANIC);
        assert!(!e.is_null());
        // SAFETY: written by the boundary just now.
        let obj = unsafe { Box::from_raw(e) };
        assert_eq!(obj.message.to_str().unwrap(), "internal panic: boom");
        let p: *const c_char = boundary(NO_ERROR_OUT, || panic!("boom"));
        assert!(p.is_null());
        let v: u32 = boundary(NO_ERROR_OUT, || Err(SdkError::new(ErrorCode::Busy, "x")));
        assert_eq!(v, 0);
        let n: i32 = boundary(NO_ERROR_OUT, || Err(SdkError::new(ErrorCode::Busy, "x")));
        assert_eq!(n, ROBOTA_E_BUSY);
    }

    /// Every `extern "C"` export enters the boundary first: its body starts with `boundary(`.
    #[test]
    fn every_export_body_starts_with_the_boundary() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi");
        let mut checked = 0;
        let mut files = Vec::new();
        let mut dirs = vec![dir];
        while let Some(d) = dirs.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut rest = text.as_str();
            while let Some(i) = rest.find("pub extern \"C\" fn ") {
                rest = &rest[i..];
                let name: String = rest["pub extern \"C\" fn ".len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let open = rest.find(") ").unwrap();
                let body_at = open + rest[open..].find('{').unwrap() + 1;
                let body = rest[body_at..].trim_start();
                assert!(
                    body.starts_with("boundary("),
                    "{}: export {name} does not start with boundary(: {}",
                    path.display(),
                    &body[..body.len().min(80)]
                );
                checked += 1;
                rest = &rest[body_at..];
            }
        }
        assert!(checked >= 25, "only {checked} exports found");
    }
}
