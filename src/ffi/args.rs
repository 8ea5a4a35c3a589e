//! Arguments from C and outputs to C, each check in one line at the export: C strings in
//! ([`str_arg`], [`opt_str_arg`]), out-pointers ([`Out`]) and owned strings out
//! ([`string_out`]). The `unsafe` and its `// SAFETY:` live here, once.

use std::ffi::{c_char, CStr, CString};

use robota_engine::sdk::error::{ErrorCode, SdkError};

/// Borrows the NUL-terminated UTF-8 argument `what`; NULL is `ROBOTA_E_NULL_ARG`, bad UTF-8
/// is `ROBOTA_E_INVALID_UTF8` naming the byte offset.
pub(crate) fn str_arg<'a>(p: *const c_char, what: &str) -> Result<&'a str, SdkError> {
    if p.is_null() {
        return Err(SdkError::new(ErrorCode::NullArg, format!("{what} is NULL")));
    }
    // SAFETY: non-NULL, and the ABI requires string arguments to be NUL-terminated and valid
    // for the duration of the call (the borrow does not outlive the export).
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

/// Like [`str_arg`], but NULL is `None`.
pub(crate) fn opt_str_arg<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, SdkError> {
    if p.is_null() {
        Ok(None)
    } else {
        str_arg(p, what).map(Some)
    }
}

/// An owned C string for the caller (freed with `robota_string_free`); NUL bytes inside are
/// escaped as `\u0000`.
pub(crate) fn string_out(s: String) -> *mut c_char {
    // Copied only when there is a NUL to escape (JSON text never has one).
    let c = CString::new(s).unwrap_or_else(|nul| {
        let text = String::from_utf8_lossy(&nul.into_vec()).replace('\0', "\\u0000");
        CString::new(text).unwrap_or_default()
    });
    c.into_raw()
}

/// A checked output pointer: [`Out::required`] refuses NULL before the export does any work,
/// [`Out::optional`] accepts it (nothing is written then). Written only on success.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// The output `what`; NULL is `ROBOTA_E_NULL_ARG`.
    pub(crate) fn required(p: *mut T, what: &str) -> Result<Self, SdkError> {
        if p.is_null() {
            Err(SdkError::new(ErrorCode::NullArg, format!("{what} is NULL")))
        } else {
            Ok(Out(p))
        }
    }

    /// An output the caller may leave NULL.
    pub(crate) fn optional(p: *mut T) -> Self {
        Out(p)
    }

    /// Writes `v` (nothing for a NULL optional output).
    pub(crate) fn put(self, v: T) {
        if !self.0.is_null() {
            // SAFETY: non-NULL, and the ABI requires output pointers to point to writable
            // storage of their type for the duration of the call.
            unsafe { self.0.write(v) }
        }
    }
}

/// The library-owned object behind a pointer the library handed out earlier (an error
/// object), or `None` for NULL.
pub(crate) fn obj_ref<'a, T>(p: *const T) -> Option<&'a T> {
    // SAFETY: non-NULL pointers of this kind come from `Box::into_raw` in this library and stay
    // valid until the caller frees them (the ABI forbids use after free).
    unsafe { p.as_ref() }
}

/// Takes back ownership of an object (a string or an error object) the library handed out;
/// NULL is `None`.
pub(crate) fn take_boxed<T>(p: *mut T) -> Option<Box<T>> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL objects of this kind come from `Box::into_raw` in this library, and the
    // caller passes each back exactly once (ABI ownership rules).
    Some(unsafe { Box::from_raw(p) })
}

/// Takes back an owned string handed out by [`string_out`]; NULL is `None`.
pub(crate) fn take_string(p: *mut c_char) -> Option<CString> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL strings handed out by this library come from `CString::into_raw`
    // ([`string_out`]), and the caller passes each back exactly once.
    Some(unsafe { CString::from_raw(p) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes back what `string_out` gave the caller.
    fn taken(p: *mut c_char) -> String {
        // SAFETY: `p` came from `string_out` (`CString::into_raw`) and is taken back once.
        unsafe { CString::from_raw(p) }.into_string().unwrap()
    }

    #[test]
    fn string_out_escapes_nul_and_keeps_everything_else() {
        assert_eq!(taken(string_out("a\0b\0".into())), "a\\u0000b\\u0000");
        assert_eq!(taken(string_out(r#"{"t":"é"}"#.into())), r#"{"t":"é"}"#);
        assert_eq!(taken(string_out(String::new())), "");
    }
}
